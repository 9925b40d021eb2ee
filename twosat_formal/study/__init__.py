"""Studies: the papers' experiments and the one-command benchmark."""
