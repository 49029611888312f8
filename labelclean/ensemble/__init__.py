"""labelclean.ensemble."""

from labelclean.ensemble._spbl import SPBLClassifier

__all__: list[str] = ["SPBLClassifier"]
