"""Making instances: generators (one module per family), perturbations, edits."""
