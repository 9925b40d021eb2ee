"""The core: the formula, typed records and parameter tables, the ``Model`` protocol,
seeds and provenance."""
