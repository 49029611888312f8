"""labelclean.ensemble."""

__all__: list[str] = []
