"""Helpers that are no layer's business: atomic writes, lazy properties, small caches,
registries, executors."""
