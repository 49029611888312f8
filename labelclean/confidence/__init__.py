"""labelclean.confidence."""

__all__: list[str] = []
