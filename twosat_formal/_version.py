"""The version of twosat-formal, defined here once (``pyproject.toml`` reads it)."""

__version__ = "0.1.0"
