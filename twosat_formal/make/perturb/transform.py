"""The :class:`Transform` record: what one perturbation did, and the proof that it is sound.

A transform describes its result completely in terms of its base formula:

* ``literal_map`` holds one map per *copy* of the base in the result (one map for
  every operator except ``duplicate``); entry ``v - 1`` of a map is the literal of
  the result that base variable ``v`` becomes (``-w`` when its polarity is flipped);
* the *sources* are the base clauses mapped through each copy's map, copy after
  copy, followed by ``added_clauses`` (already written over the result's variables);
* ``clause_permutation[i]`` is the source that becomes clause ``i`` of the result;
* ``fresh_vars`` are the result's variables that no base variable maps to, and
  ``witness`` (literals over them) is a model of the fresh part when the relation
  needs one;
* ``num_vars`` and ``names`` give the result's variable count and name table.

:meth:`Transform.rebuild` applies exactly this description to the base, so a stored
transform reproduces its result without re-running the operator.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1, -2], [2]])
>>> t = Transform(
...     operator="flip", params={"variables": ["x2"]}, seed=0,
...     relation="equivalent-under-map", literal_map=((1, -2),),
...     clause_permutation=(0, 1), num_vars=2,
... )
>>> t.rebuild(base).clauses
(Clause(1, 2), Clause(-2))
>>> Transform.from_json(t.to_json()) == t
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

import numpy as np

from twosat_formal.core.formula import Formula, take_clauses
from twosat_formal.core.records import PerturbationStep, StepProof, read_record
from twosat_formal.errors import ConfigError, RecordError

__all__ = ["RELATIONS", "JsonValue", "Proof", "Transform", "canonical_params"]

#: A value that JSON can hold (the type of operator parameters).
JsonValue = Any

#: The relations a transform can guarantee between its base and its result.
RELATIONS = (
    "equivalent",
    "equivalent-under-map",
    "conservative-extension",
    "label-preserving-monotone",
    "equisatisfiable-copy-product",
)


#: Parameter value types that a JSON text gives back as they are (strings, numbers, flags).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def canonical_params(params: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Parameters as plain JSON values with sorted keys (tuples become lists).

    >>> canonical_params({"b": (1, 2), "a": None})
    {'a': None, 'b': [1, 2]}
    """
    params = dict(params)
    if all(type(key) is str for key in params) and _SCALARS.issuperset(map(type, params.values())):
        # what the JSON text would give back: the same keys, sorted, and the same values
        return {key: params[key] for key in sorted(params)}
    try:
        result: dict[str, JsonValue] = json.loads(json.dumps(params, sort_keys=True))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"operator parameters must be JSON values: {exc}") from None
    return result


@dataclass(frozen=True)
class Proof:
    """The outcome of proving a transform's relation.

    ``method`` names the proof (``"z3:equivalence"``...), ``result`` is ``"proved"``
    for every proof that is recorded (a failed proof raises instead), and ``seconds``
    is the time the proof took, Z3 calls included.

    >>> Proof("z3:equivalence", "proved", 0.25).to_json()
    {'method': 'z3:equivalence', 'result': 'proved', 'seconds': 0.25}
    """

    method: str
    result: str
    seconds: float

    def to_json(self) -> dict[str, JsonValue]:
        """The proof as a JSON object."""
        return {"method": self.method, "result": self.result, "seconds": self.seconds}

    @classmethod
    def from_json(cls, obj: Mapping[str, JsonValue]) -> Proof:
        """Read a proof written by :meth:`to_json` (:class:`RecordError` if malformed).

        The object is read through its typed model
        (:class:`~twosat_formal.core.records.StepProof`).
        """
        read = read_record(StepProof, obj, what="a proof")
        return cls(read.method, read.result, read.seconds)


@dataclass(frozen=True)
class Transform:
    """One perturbation step: operator, parameters, seed, and what it did to the clauses.

    See the module docstring for the meaning of each field. ``params`` holds the
    operator's parameters with defaults filled in (choices drawn from ``seed`` are
    not parameters: they show in the map, the permutation and the added clauses).
    """

    operator: str
    params: Mapping[str, JsonValue]
    seed: int
    relation: str
    literal_map: tuple[tuple[int, ...], ...]
    clause_permutation: tuple[int, ...]
    num_vars: int
    added_clauses: tuple[tuple[int, ...], ...] = ()
    fresh_vars: tuple[int, ...] = ()
    witness: tuple[int, ...] = ()
    names: tuple[str, ...] | None = None
    proof: Proof | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ConfigError(
                f"unknown relation {self.relation!r}",
                parameter="relation",
                valid=", ".join(RELATIONS),
            )
        object.__setattr__(self, "params", canonical_params(self.params))

    # -- derived views -------------------------------------------------------------------

    @property
    def copies(self) -> int:
        """How many copies of the base the result holds (1 unless ``duplicate``)."""
        return len(self.literal_map)

    def with_proof(self, proof: Proof) -> Transform:
        """This transform with ``proof`` recorded."""
        return replace(self, proof=proof)

    def image_of_clause(self, index: int, copy: int = 0) -> int:
        """The position in the result of base clause ``index`` (in copy ``copy``).

        >>> t = Transform("reorder", {}, 0, "equivalent", ((1,),), (2, 0, 1), 1)
        >>> t.image_of_clause(0)
        1
        """
        per_copy = (len(self.clause_permutation) - len(self.added_clauses)) // self.copies
        if not 0 <= index < per_copy or not 0 <= copy < self.copies:
            raise ConfigError(
                f"clause {index} of copy {copy} is not in the result", parameter="index"
            )
        source = copy * per_copy + index
        try:
            return self.clause_permutation.index(source)
        except ValueError:
            raise ConfigError(
                f"clause {index} of copy {copy} is not in the result", parameter="index"
            ) from None

    # -- rebuilding ----------------------------------------------------------------------

    def check_shape(self, base: Formula) -> None:
        """Raise :class:`ConfigError` unless this transform fits ``base``.

        Checks that every map covers the base's variables with literals of the
        result, that the permutation is a permutation of all the sources, and that
        added clauses, fresh variables and witness stay within the result's variables.
        """
        if self.num_vars < 0:
            raise ConfigError("a transform's num_vars cannot be negative", parameter="num_vars")
        if self.copies < 1:
            raise ConfigError("a transform needs at least one literal map", parameter="literal_map")
        self._check_maps(base)
        self._check_permutation(base)
        for lits, what in (
            ([lit for c in self.added_clauses for lit in c], "added_clauses"),
            (self.fresh_vars, "fresh_vars"),
            (self.witness, "witness"),
        ):
            if self._outside(lits):
                raise ConfigError(
                    f"{what} names a variable outside 1..{self.num_vars}", parameter=what
                )
        if self.names is not None and len(self.names) != self.num_vars:
            raise ConfigError(
                f"{len(self.names)} names for {self.num_vars} variables", parameter="names"
            )

    def _outside(self, lits: Iterable[int]) -> bool:
        """Whether a literal of ``lits`` is 0 or names a variable beyond the result's."""
        return any(lit == 0 or abs(lit) > self.num_vars for lit in lits)

    def _check_maps(self, base: Formula) -> None:
        """Refuse a literal map that does not send each base variable to a result literal."""
        for k, lmap in enumerate(self.literal_map):
            if len(lmap) != base.num_vars:
                raise ConfigError(
                    f"literal map {k} has {len(lmap)} entries for {base.num_vars} base variables",
                    parameter="literal_map",
                )
            if self._outside(lmap):
                raise ConfigError(
                    f"literal map {k} names a variable outside 1..{self.num_vars}",
                    parameter="literal_map",
                )

    def _check_permutation(self, base: Formula) -> None:
        """Refuse a clause permutation that is not one of all the source clauses."""
        sources = self.copies * base.num_clauses + len(self.added_clauses)
        perm = self.clause_permutation
        if len(perm) != sources or sorted(perm) != list(range(sources)):
            raise ConfigError(
                f"the clause permutation is not a permutation of the {sources} source clauses",
                parameter="clause_permutation",
            )

    def rebuild(self, base: Formula) -> Formula:
        """The result of this transform on ``base``, from the recorded fields alone."""
        self.check_shape(base)
        maps = np.array(self.literal_map, dtype=np.int64).reshape(self.copies, base.num_vars)
        # tables[k, lit] is what base literal lit becomes in copy k: maps[k, v - 1] for v,
        # its negation for -v (a negative index counts from the end of the row)
        zero = np.zeros((self.copies, 1), dtype=np.int64)
        tables = np.concatenate((zero, maps, -maps[:, ::-1]), axis=1)
        added = self.added_clauses
        lits = np.concatenate(
            (
                tables[:, base.literals].reshape(-1),
                np.fromiter(chain.from_iterable(added), dtype=np.int64),
            )
        )
        widths = np.concatenate(
            (
                *(base.widths,) * self.copies,
                np.fromiter(map(len, added), dtype=np.int64, count=len(added)),
            )
        )
        offsets = np.zeros(len(widths) + 1, dtype=np.int64)
        np.add.accumulate(widths, out=offsets[1:])
        # the sources in permutation order (check_shape: a permutation of them all),
        # gathered here so that one formula is built, not the sources' and then a selection
        perm = np.array(self.clause_permutation, dtype=np.int64)
        lits, offsets = take_clauses(lits, offsets, perm)
        return Formula.from_arrays(lits, offsets, self.num_vars, self.names)

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self, *, with_proof: bool = True) -> dict[str, JsonValue]:
        """The transform as a JSON object (see ``docs/certificates.md``)."""
        obj: dict[str, JsonValue] = {
            "operator": self.operator,
            "params": canonical_params(self.params),
            "seed": self.seed,
            "relation": self.relation,
            "literal_map": [list(m) for m in self.literal_map],
            "clause_permutation": list(self.clause_permutation),
            "added_clauses": [list(c) for c in self.added_clauses],
            "fresh_vars": list(self.fresh_vars),
            "witness": list(self.witness),
            "num_vars": self.num_vars,
            "names": list(self.names) if self.names is not None else None,
        }
        if with_proof:
            obj["proof"] = self.proof.to_json() if self.proof is not None else None
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, JsonValue]) -> Transform:
        """Read a transform written by :meth:`to_json` (:class:`RecordError` if malformed).

        The object is read through its typed model
        (:class:`~twosat_formal.core.records.PerturbationStep`); the error names the field.
        """
        read = read_record(PerturbationStep, obj, what="a transform")
        proof = read.proof
        try:
            return cls(
                operator=read.operator,
                params=dict(read.params),
                seed=read.seed,
                relation=read.relation,
                literal_map=tuple(tuple(m) for m in read.literal_map),
                clause_permutation=tuple(read.clause_permutation),
                added_clauses=tuple(tuple(c) for c in read.added_clauses),
                fresh_vars=tuple(read.fresh_vars),
                witness=tuple(read.witness),
                num_vars=read.num_vars,
                names=tuple(read.names) if read.names is not None else None,
                proof=None if proof is None else Proof(proof.method, proof.result, proof.seconds),
            )
        except ConfigError as exc:
            raise RecordError(str(exc)) from None
