"""Allow ``python -m labelclean``."""

from labelclean.cli.main import app

if __name__ == "__main__":  # pragma: no cover
    app()
