"""labelclean.validation."""

__all__: list[str] = []
