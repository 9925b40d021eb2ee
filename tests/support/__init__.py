"""Shared test helpers (servers, oracles, strategies, CLI runners): ``tests.support.NAME``."""
