"""labelclean.linear_model."""

__all__: list[str] = []
