"""The test suite: one folder per package folder (see docs/architecture.md)."""
