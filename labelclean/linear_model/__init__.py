"""Linear models: robust softmax regression with self-paced weights."""

from labelclean.linear_model._rosr import RoSRClassifier

__all__ = ["RoSRClassifier"]
