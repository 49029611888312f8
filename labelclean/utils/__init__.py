"""Utilities shared by every labelclean subpackage."""

from labelclean.utils.discovery import all_estimators

__all__ = ["all_estimators"]
