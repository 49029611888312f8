"""labelclean.io."""

__all__: list[str] = []
