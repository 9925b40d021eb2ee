"""Chains of perturbations: apply several operators in order, record and replay every step.

Step ``i`` of a chain run with seed ``s`` gets its own seed, drawn from
``random.Random(s)``, so a chain is reproducible from its seed alone, and each
recorded step is reproducible from its own recorded seed.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1, 2], [-1, 2], [2, 3]])
>>> new, chain = apply_chain(base, ["reorder", ("filler", {"count": 2})], seed=7)
>>> [t.operator for t in chain.steps], new.num_clauses
(['reorder', 'filler'], 5)
>>> replay(base, chain.steps) == new
True
>>> Chain.from_json(chain.to_json()) == chain
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from twosat_formal._util.registry import set_twice, split_setting
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ArgumentTypeError, ConfigError, ProofError, RecordError
from twosat_formal.make.checks import check_seed
from twosat_formal.make.perturb.operator import OPERATORS, Operator
from twosat_formal.make.perturb.transform import JsonValue, Transform

__all__ = [
    "Chain",
    "StepSpec",
    "apply_chain",
    "parse_steps",
    "replay",
    "replay_step",
    "step_seeds",
]

#: One step of a chain: an operator name, or a name and its parameters.
StepSpec = str | tuple[str, Mapping[str, object]]


def step_seeds(seed: int, count: int) -> list[int]:
    """The seeds of the ``count`` steps of a chain run with ``seed``.

    >>> step_seeds(0, 2) == step_seeds(0, 3)[:2]
    True
    """
    rng = random.Random(seed)
    return [rng.randrange(2**31) for _ in range(count)]


@dataclass(frozen=True)
class Chain:
    """The transforms of a chain, in the order they were applied."""

    steps: tuple[Transform, ...] = ()

    def to_json(self) -> list[dict[str, JsonValue]]:
        """The chain as a JSON list of transforms."""
        return [t.to_json() for t in self.steps]

    @classmethod
    def from_json(cls, items: object) -> Chain:
        """Read a chain written by :meth:`to_json` (:class:`RecordError` if malformed)."""
        if not isinstance(items, list | tuple):
            raise RecordError("a transform chain must be a JSON list")
        return cls(tuple(Transform.from_json(item) for item in items))

    @property
    def proof_seconds(self) -> float:
        """Total seconds the steps' proofs took."""
        return sum(t.proof.seconds for t in self.steps if t.proof is not None)

    def rebuild(self, base: Formula) -> Formula:
        """The chain's result on ``base`` from the recorded fields (no operator is run)."""
        formula = base
        for t in self.steps:
            formula = t.rebuild(formula)
        return formula

    def track_clause(self, index: int) -> int:
        """Where base clause ``index`` ends up (first copy, if a step duplicates).

        >>> from twosat_formal.core.formula import Formula
        >>> _, chain = apply_chain(Formula([[1], [2], [3]]), [("reorder", {"order": "reversed"})])
        >>> chain.track_clause(0)
        2
        """
        for t in self.steps:
            index = t.image_of_clause(index)
        return index


def _spec(step: StepSpec) -> tuple[str, dict[str, object]]:
    """A chain step's operator name and parameters: a name, or ``(name, params)`` whose
    params are a mapping (a str, a list or ``None`` is none)."""
    if isinstance(step, str):
        return step, {}
    if (
        isinstance(step, tuple)
        and len(step) == 2
        and isinstance(step[0], str)
        and isinstance(step[1], Mapping)
        and all(isinstance(key, str) for key in step[1])
    ):
        if "seed" in step[1]:  # each step's seed is drawn from the chain's
            raise ConfigError(
                f"{step[0]}: 'seed' is no operator parameter; a step's seed is drawn "
                "from the chain's seed",
                parameter="seed",
            )
        return step[0], dict(step[1])
    raise ArgumentTypeError(
        f"a chain step must be a name or (name, params) with params a mapping of str, not {step!r}",
        parameter="steps",
        valid="an operator name, or (name, params) with params a mapping",
    )


def apply_chain(
    formula: Formula,
    steps: Sequence[StepSpec],
    *,
    seed: int = 0,
    bridge: int | None = None,
) -> tuple[Formula, Chain]:
    """Apply the operators of ``steps`` in order, each proven, and record every step.

    Parameters
    ----------
    formula:
        The base formula.
    steps:
        Operator names, or ``(name, params)`` pairs.
    seed:
        The chain's seed; step ``i`` uses ``step_seeds(seed, len(steps))[i]``.
    bridge:
        Index of the base's designated clause (a mono-bridge instance's bridge).
        It is followed through every step and is the default ``clause`` of each
        ``bridge-move`` step.

    Returns
    -------
    (Formula, Chain)
        The final formula and the chain of transforms.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> base = Formula([[1, 2], [-2, 3], [3, 1]])
    >>> new, chain = apply_chain(base, [("bridge-move", {"position": 0})], bridge=2)
    >>> new.clauses[0], chain.steps[0].params["clause"]
    (Clause(3, 1), 2)
    """
    specs = [_spec(step) for step in steps]
    formula.require_size("a perturbation chain")
    seeds = step_seeds(check_seed(seed), len(specs))
    current = formula
    done: list[Transform] = []
    for (name, params), step_seed in zip(specs, seeds, strict=True):
        operator = OPERATORS.get(name)
        if name == "bridge-move" and params.get("clause") is None and bridge is not None:
            params["clause"] = bridge
        current, transform = operator.apply(current, seed=step_seed, **params)
        done.append(transform)
        if bridge is not None:
            bridge = transform.image_of_clause(bridge)
    return current, Chain(tuple(done))


def replay_step(base: Formula, recorded: Transform) -> tuple[Formula, Transform]:
    """Re-run a recorded step on ``base`` and require the same transform.

    The operator is applied again with the recorded parameters and seed (which
    proves the relation again); every recorded field must equal the replayed one.

    Raises
    ------
    ProofError
        Naming the first field that differs, or the failed proof.
    """
    operator = OPERATORS.get(recorded.operator)
    result, replayed = operator.apply(base, seed=recorded.seed, **dict(recorded.params))
    mine, theirs = recorded.to_json(with_proof=False), replayed.to_json(with_proof=False)
    for key in mine:
        if mine[key] != theirs[key]:
            raise ProofError(
                f"{recorded.operator}: the recorded {key} differs from the one the operator "
                "produces again from the recorded parameters and seed"
            )
    return result, replayed


def replay(base: Formula, transforms: Sequence[Transform]) -> Formula:
    """Replay every recorded step from ``base`` (see :func:`replay_step`); the final formula.

    Raises
    ------
    ProofError
        Naming the step (1-based) that could not be replayed or proven.
    """
    current = base
    for i, recorded in enumerate(transforms, 1):
        try:
            current, _ = replay_step(current, recorded)
        except ProofError as exc:
            raise ProofError(
                f"step {i} ({recorded.operator}): {exc}", counterexample=exc.counterexample
            ) from None
    return current


def _steps_of(setting: str, ops: Sequence[Operator], target: str | None, name: str) -> list[int]:
    """The steps (0-based) a setting of parameter ``name`` goes to: those whose operator
    has it (no ``target``), step ``target`` (a number) or the steps of operator ``target``."""
    if target is None:
        chosen = [i for i, op in enumerate(ops) if any(p.name == name for p in op.params)]
        missing = f"no operator of the chain has a parameter {name!r}"
    elif target.isdigit():
        return [_step_index(setting, target, len(ops))]
    else:
        chosen = [i for i, op in enumerate(ops) if op.name == target]
        missing = f"operator {target!r} is not in the chain"
    if not chosen:
        raise ConfigError(missing, parameter="set")
    return chosen


def _step_index(setting: str, number: str, steps: int) -> int:
    """The 0-based index of the step ``number`` (1-based) a setting names."""
    if not 1 <= int(number) <= steps:
        raise ConfigError(
            f"setting {setting!r} names step {number} of {steps}",
            parameter="set",
            valid=f"1..{steps}",
        )
    return int(number) - 1


def parse_steps(operators: Sequence[str], settings: Sequence[str] = ()) -> list[StepSpec]:
    """Steps from operator names and ``KEY=VALUE`` settings, as the CLI passes them.

    A setting ``KEY=VALUE`` goes to every step whose operator has the parameter
    ``KEY``; ``OP.KEY=VALUE`` to every ``OP`` step; ``N.KEY=VALUE`` to step ``N``
    (1-based). Values stay text here; each operator converts and checks its own. A
    step's parameter set twice (``count=1`` and ``count=2``, or ``count=1`` and
    ``filler.count=2``) is refused, as ``generate`` refuses a key given twice.

    >>> parse_steps(["reorder", "filler"], ["count=3", "1.order=reversed"])
    [('reorder', {'order': 'reversed'}), ('filler', {'count': '3'})]
    >>> parse_steps(["rename"], ["flip"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: setting 'flip' is not KEY=VALUE
    >>> parse_steps(["filler"], ["count=1", "count=2"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: parameter 'count' is set twice for step 1 (filler)
    """
    ops = [OPERATORS.get(name) for name in operators]
    params: list[dict[str, object]] = [{} for _ in ops]
    for setting in settings:
        key, value = split_setting(setting)
        target, dot, name = key.rpartition(".")
        for i in _steps_of(setting, ops, target if dot else None, name):
            ops[i].param(name)
            if name in params[i]:
                raise set_twice(name, where=f"for step {i + 1} ({ops[i].name})")
            params[i][name] = value
    return [(op.name, p) if p else op.name for op, p in zip(ops, params, strict=True)]
