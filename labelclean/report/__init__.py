"""labelclean.report."""

__all__: list[str] = []
