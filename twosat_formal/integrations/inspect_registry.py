"""What the ``inspect_ai`` entry point of this package registers with inspect.

``pyproject.toml`` names this module under ``[project.entry-points.inspect_ai]``, so an
installed twosat-formal offers inspect the task ``twosat_formal/twosat``
(:func:`~twosat_formal.integrations.inspect.twosat`) and the model provider
``twosat/<reasoner>`` (:mod:`~twosat_formal.integrations.inspect_models`)::

    inspect eval twosat_formal/twosat -T path=inspect/twosat.jsonl --model twosat/oracle
"""

from __future__ import annotations

from twosat_formal.integrations.inspect import twosat
from twosat_formal.integrations.inspect_models import twosat_reasoners

__all__ = ["twosat", "twosat_reasoners"]
