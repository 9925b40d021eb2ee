"""The operator interface: parameters, validation, and the apply-then-prove step.

An :class:`Operator` bundles a name, the relation it guarantees, its parameters
(:class:`Param`, validated by the operator's pydantic table: :mod:`twosat_formal.core.params`)
and a *planner*: a function that, given the base formula, a seeded
``random.Random`` and the resolved parameters, returns a :class:`Plan` (maps,
permutation, added clauses, fresh variables, witness, names). :meth:`Operator.apply`
turns the plan into a :class:`~twosat_formal.make.perturb.transform.Transform`, builds the
result with :meth:`Transform.rebuild` (the one construction path, so a stored
transform always reproduces its result) and proves the relation with Z3.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> op = Operator(
...     name="identity", relation="equivalent", summary="Change nothing.",
...     params=(), planner=lambda f, rng, p: Plan.keep(f),
... )
>>> new, t = op.apply(Formula([[1, 2]]), seed=3)
>>> new == Formula([[1, 2]]), t.proof.result
(True, 'proved')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from twosat_formal._util.registry import Registry
from twosat_formal.core.formula import MAX_SIZE, Formula, default_name, is_valid_name
from twosat_formal.core.jsonfields import fields_json
from twosat_formal.core.jsonread import loads
from twosat_formal.core.params import Problem, from_text, table_of, validate
from twosat_formal.errors import ConfigError
from twosat_formal.make.checks import check_seed
from twosat_formal.make.perturb.proofs import prove
from twosat_formal.make.perturb.transform import JsonValue, Transform

__all__ = [
    "OPERATORS",
    "PREFIXES",
    "Operator",
    "Param",
    "Plan",
    "fresh_names",
    "interleave",
    "names_or_none",
]

_KINDS = ("int", "float", "str", "bool", "choice", "ints", "strs")


@dataclass(frozen=True)
class Param:
    """One operator parameter: name, kind, default, help text and valid range.

    ``kind`` is one of ``int``, ``float``, ``str``, ``bool``, ``choice`` (one of
    ``choices``), ``ints`` (a list of ints) or ``strs`` (a list of names). Lists may
    also be given as comma-separated text. ``None`` is accepted when the default is
    ``None``.

    >>> params = (Param("count", "int", 3, "how many", minimum=0),
    ...           Param("vars", "strs", None, "names"), Param("perm", "ints", None, "order"))
    >>> Operator("demo", "equivalent", "", params, planner=None).resolve(
    ...     {"count": "5", "vars": "a, b", "perm": "[2, 0, 1]"})
    {'count': 5, 'vars': ['a', 'b'], 'perm': [2, 0, 1]}
    """

    name: str
    kind: str
    default: JsonValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ConfigError(f"unknown parameter kind {self.kind!r}", valid=", ".join(_KINDS))

    @property
    def type_text(self) -> str:
        """The kind as shown to users (``choice`` lists its choices)."""
        if self.kind == "choice":
            return "|".join(self.choices)
        return {"ints": "int list", "strs": "name list"}.get(self.kind, self.kind)

    def to_json(self) -> dict[str, JsonValue]:
        """The parameter as a JSON object (for ``operators --json``), ``kind`` as ``type``.

        The type is written as :attr:`type_text`, which lists the choices.

        >>> Param("order", "choice", "shuffled", "how", choices=("shuffled", "reversed")).to_json()
        {'name': 'order', 'type': 'shuffled|reversed', 'default': 'shuffled', 'help': 'how', \
'minimum': None, 'maximum': None}
        """
        out = fields_json(self, rename={"kind": "type"}, skip=("choices",))
        return {**out, "type": self.type_text}

    def _bad(self, value: object) -> ConfigError:
        valid = self.type_text
        if self.minimum is not None or self.maximum is not None:
            lo = "" if self.minimum is None else f"{self.minimum:g} <= "
            hi = "" if self.maximum is None else f" <= {self.maximum:g}"
            valid = f"{lo}{self.kind}{hi}"
        return ConfigError(
            f"invalid value {value!r} for parameter {self.name!r}", parameter=self.name, valid=valid
        )

    @property
    def annotation(self) -> Any:
        """The value's type for the operator's parameter table (:mod:`twosat_formal.core.params`).

        Text is read as the kind says; ``none`` or ``null`` is ``None``, valid where the
        default is ``None``.
        """
        base = _TYPES[self.kind]
        if self.kind == "choice":
            base = Literal[self.choices]
        elif self.kind in ("int", "float"):
            low, high = self.minimum, self.maximum
            if self.kind == "int":  # an absurd count or index
                low = -MAX_SIZE if low is None else max(low, -MAX_SIZE)
                high = MAX_SIZE if high is None else min(high, MAX_SIZE)
            base = Annotated[base, Field(ge=low, le=high, allow_inf_nan=False)]
        read = from_text(_reader(_READERS.get(self.kind, _items)))
        return Annotated[base | None if self.default is None else base, read]


_NONE = ("none", "null")
_TRUTH = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
#: How text becomes a value of each kind (of a list's items: stripped first).
_READERS: dict[str, Callable[[str], object]] = {
    "int": int,
    "float": float,
    "bool": lambda t: _TRUTH.get(t.lower(), t),
    "str": str,
    "choice": str,
}


def _reader(read: Callable[[str], object]) -> Callable[[str], object]:
    """``read``, with ``none`` and ``null`` read as ``None``."""
    return lambda text: None if text.lower() in _NONE else read(text)


def _items(text: str) -> object:
    """A list's text: JSON (``[2, 0, 1]``) or comma-separated (``a, b``)."""
    text = text.strip()
    if text.startswith("["):
        return loads(text, source="parameter")  # RecordError (a ValueError): the text stays
    return [part for part in text.split(",") if part.strip()] if text else []


def _stripped(read: Callable[[str], object]) -> BeforeValidator:
    """How a list's item is read: stripped, then as its kind (``none``: ``None``)."""
    return from_text(lambda text: _reader(read)(text.strip()))


#: A list given as a tuple is the same list.
_AS_LIST = BeforeValidator(lambda v: list(v) if isinstance(v, tuple) else v)
#: The type of each kind's values (a choice's is narrowed to its choices).
_TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "bool": bool,
    "str": str,
    "choice": str,
    "ints": Annotated[list[Annotated[int, _stripped(int)]], _AS_LIST],
    "strs": Annotated[list[Annotated[str, _stripped(str)]], _AS_LIST],
}


@dataclass(frozen=True)
class Plan:
    """What an operator decided to do; see :class:`Transform` for each field.

    >>> from twosat_formal.core.formula import Formula
    >>> Plan.keep(Formula([[1], [2]])).clause_permutation
    (0, 1)
    """

    literal_map: tuple[tuple[int, ...], ...]
    clause_permutation: tuple[int, ...]
    num_vars: int
    names: tuple[str, ...] | None
    added_clauses: tuple[tuple[int, ...], ...] = ()
    fresh_vars: tuple[int, ...] = ()
    witness: tuple[int, ...] = ()
    relation: str | None = None

    def changes(self) -> dict[str, Any]:
        """What the plan does to the clauses: its fields but ``relation``, as :class:`Transform`'s.

        >>> from twosat_formal.core.formula import Formula
        >>> sorted(Plan.keep(Formula([[1]])).changes())  # doctest: +NORMALIZE_WHITESPACE
        ['added_clauses', 'clause_permutation', 'fresh_vars', 'literal_map', 'names',
         'num_vars', 'witness']
        """
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "relation"}

    @classmethod
    def keep(cls, formula: Formula, permutation: Sequence[int] | None = None) -> Plan:
        """Same variables and names; clauses in ``permutation`` order (default: as is)."""
        perm = tuple(range(formula.num_clauses)) if permutation is None else tuple(permutation)
        return cls(
            literal_map=(tuple(range(1, formula.num_vars + 1)),),
            clause_permutation=perm,
            num_vars=formula.num_vars,
            names=None if formula.has_default_names else formula.names,
        )


Planner = Callable[[Formula, random.Random, Mapping[str, Any]], Plan]


@dataclass(frozen=True)
class Operator:
    """A named perturbation with its parameters and the relation it guarantees."""

    name: str
    relation: str
    summary: str
    params: tuple[Param, ...]
    planner: Planner

    def to_json(self) -> dict[str, JsonValue]:
        """The operator and its parameters as a JSON object (for ``operators --json``)."""
        return fields_json(self, skip=("planner",))

    def param(self, name: str) -> Param:
        """The parameter called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise ConfigError(
            f"operator {self.name!r} has no parameter {name!r}",
            parameter=name,
            valid=", ".join(p.name for p in self.params) or "no parameters",
        )

    def resolve(self, params: Mapping[str, object]) -> dict[str, JsonValue]:
        """The parameters with defaults filled in, each checked and converted.

        >>> from twosat_formal.make.perturb import OPERATORS
        >>> OPERATORS.get("reorder").resolve({"order": "reversed"})
        {'order': 'reversed', 'permutation': None}
        """
        checked = validate(table_of(self.name, self.params), params, self._problem(params))
        return {p.name: checked.get(p.name, p.default) for p in self.params}

    def _problem(self, params: Mapping[str, object]) -> Problem:
        return lambda key, unknown: self.param(key)._bad(params[key])

    def apply(
        self, formula: Formula, *, seed: int = 0, **params: object
    ) -> tuple[Formula, Transform]:
        """Apply this operator to ``formula`` and prove the relation with Z3.

        Parameters
        ----------
        formula:
            The base formula.
        seed:
            Seed of the ``random.Random`` that draws every random choice.
        **params:
            The operator's parameters (see :attr:`params`); missing ones take defaults.

        Returns
        -------
        (Formula, Transform)
            The result and the transform, its proof recorded.

        Raises
        ------
        ConfigError
            For an unknown parameter or a value outside its range.
        ProofError
            If the relation cannot be proven (never expected for a correct operator,
            except for ``filler`` over existing variables of a satisfiable base).
        """
        check_seed(seed)
        resolved = self.resolve(params)
        plan = self.planner(formula, random.Random(seed), resolved)
        transform = Transform(
            operator=self.name,
            params=resolved,
            seed=seed,
            relation=plan.relation or self.relation,
            **plan.changes(),
        )
        result = transform.rebuild(formula)
        return result, transform.with_proof(prove(formula, result, transform))


#: Every perturbation operator, by name.
OPERATORS: Registry[Operator] = Registry("operator")


def interleave(lengths: Sequence[int], rng: random.Random) -> list[tuple[int, int]]:
    """A uniformly random merge of sequences that keeps each one's internal order.

    Returns ``(sequence, index)`` pairs in merged order.

    >>> merged = interleave([2, 3], random.Random(0))
    >>> sorted(merged) == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
    True
    >>> [i for s, i in merged if s == 1]
    [0, 1, 2]
    """
    tags = [k for k, n in enumerate(lengths) for _ in range(n)]
    rng.shuffle(tags)
    seen = [0] * len(lengths)
    merged = []
    for k in tags:
        merged.append((k, seen[k]))
        seen[k] += 1
    return merged


#: Prefixes tried, in order, for fresh variable names when none is given.
PREFIXES = ("v", "y", "z", "w", "u", "t", "r", "s", "q", "p")


def fresh_names(
    taken: set[str], count: int, prefix: str | None, candidates: Sequence[str] = PREFIXES
) -> tuple[str, ...]:
    """``count`` names ``<prefix>1, <prefix>2, ...`` that avoid ``taken``.

    With ``prefix=None`` the first of ``candidates`` whose names are all free is used.

    >>> fresh_names({"v1"}, 2, None)
    ('y1', 'y2')
    >>> fresh_names({"v1"}, 1, "v")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: names with prefix 'v' clash with the formula's names
    """
    tried = (prefix,) if prefix is not None else tuple(candidates)
    for p in tried:
        names = tuple(f"{p}{i}" for i in range(1, count + 1))
        if not all(is_valid_name(n) for n in names):
            raise ConfigError(
                f"prefix {p!r} does not make valid variable names",
                parameter="prefix",
                valid="an identifier",
            )
        if taken.isdisjoint(names):
            return names
    raise ConfigError(
        f"names with prefix {tried[0]!r} clash with the formula's names",
        parameter="prefix",
        valid="a prefix whose names the formula does not use",
    )


def names_or_none(names: Sequence[str]) -> tuple[str, ...] | None:
    """``None`` when ``names`` are the defaults ``x1, x2, ...`` (as :class:`Formula` stores them).

    >>> names_or_none(("x1", "x2")), names_or_none(("a",))
    (None, ('a',))
    """
    names = tuple(names)
    return None if all(n == default_name(i) for i, n in enumerate(names, 1)) else names
