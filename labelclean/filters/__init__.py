"""labelclean.filters."""

__all__: list[str] = []
