"""labelclean.pipeline."""

__all__: list[str] = []
