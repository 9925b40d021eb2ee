"""Perturbations that keep a formula's label, each proven with Z3.

Operators (see :data:`OPERATORS`; ``twosat-formal operators`` lists their parameters):

============== ======================================== ===============================
operator       what it does                             relation (proven)
============== ======================================== ===============================
reorder        permute the clauses                      equivalent
rename         rename variables, optional flips         equivalent under the map
flip           negate chosen variables                  equivalent under the map
filler         add clauses over fresh variables         conservative extension
               … or over existing ones (UNSAT base)     label-preserving (monotone)
duplicate      conjoin disjoint renamed copies          equisatisfiable (copy product)
bridge-move    move one clause to position s            equivalent
============== ======================================== ===============================

Each operator's ``apply(formula, *, seed, **params)`` returns the new formula and a
:class:`Transform` whose proof is recorded; :func:`apply_chain` runs several in order.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1, 2], [-1, 2]])
>>> new, t = OPERATORS.get("rename").apply(base, seed=2, names="fresh")
>>> t.relation, t.proof.result
('equivalent-under-map', 'proved')
>>> new2, chain = apply_chain(base, ["duplicate", "reorder"], seed=1)
>>> new2.num_clauses, len(chain.steps)
(4, 2)
"""

from twosat_formal.make.perturb import bridge_move, duplicate, filler, flip, rename, reorder
from twosat_formal.make.perturb.chain import Chain, apply_chain, replay, replay_step, step_seeds
from twosat_formal.make.perturb.operator import OPERATORS, Operator, Param, Plan
from twosat_formal.make.perturb.proofs import prove
from twosat_formal.make.perturb.transform import RELATIONS, Proof, Transform

for _module in (reorder, rename, flip, filler, duplicate, bridge_move):
    OPERATORS.add(_module.OPERATOR.name, _module.OPERATOR)

__all__ = [
    "OPERATORS",
    "RELATIONS",
    "Chain",
    "Operator",
    "Param",
    "Plan",
    "Proof",
    "Transform",
    "apply_chain",
    "prove",
    "replay",
    "replay_step",
    "step_seeds",
]
