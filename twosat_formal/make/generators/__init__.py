"""Generator families of the paper, the :func:`generate` entry point and datasets.

Each family is a plain function ``(rng, clauses, **params) -> (Formula, structure)``
that its own module registers in :data:`FAMILIES` with the specs of its parameters
(:func:`~twosat_formal.make.generators.family.register_family`); importing this package
imports the family modules, in the paper's order. :func:`generate`
validates a request, draws the formula with ``random.Random(seed)``, labels it with the
solver and returns an :class:`~twosat_formal.io.instance.Instance`. A :class:`Dataset`
(config + seed + size, in the style of reasoning-gym) gives item ``i`` from its own
derived seed, so any item can be rebuilt alone.

Examples
--------
>>> FAMILIES.names()
['implication-cycle', 'equivalence-core', 'backbone', 'mono-bridge', 'symmetry']
>>> inst = generate("implication-cycle", clauses=10, seed=1)
>>> inst.label, inst.formula.num_clauses, inst.params["k"]
('UNSAT', 10, 5)
>>> data = Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=3)
>>> len(data), data[2] == Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=9)[2]
(3, True)
"""

from __future__ import annotations

# The family modules register themselves on import, in the paper's order (§3.1-§3.5),
# which is the registry's order.
# isort: off
from twosat_formal.make.generators import implication_cycle  # noqa: F401
from twosat_formal.make.generators import equivalence_core  # noqa: F401
from twosat_formal.make.generators import backbone  # noqa: F401
from twosat_formal.make.generators import mono_bridge  # noqa: F401
from twosat_formal.make.generators import symmetry  # noqa: F401

# isort: on
from twosat_formal.make.generators.dataset import Dataset, DatasetConfig
from twosat_formal.make.generators.draw import derive_seed, generate
from twosat_formal.make.generators.family import FAMILIES, Family

__all__ = [
    "FAMILIES",
    "Dataset",
    "DatasetConfig",
    "Family",
    "derive_seed",
    "generate",
]
