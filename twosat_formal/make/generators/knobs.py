"""Generator parameters: difficulty knobs in [0, 1], structural parameters, named grids.

Every family declares its parameters as :class:`ParamSpec` records. A *knob* is a
difficulty parameter in ``[0, 1]`` that a family maps to a *structural* parameter (an
int such as the twist position ``k``); the structural parameter can also be set
directly, and then it wins over its knob. :func:`validate_params` checks a request
against the family's table, a pydantic one built from its specs
(:mod:`twosat_formal.core.params`: unknown key, wrong type, out of range raise a
:class:`ConfigError` naming the parameter and its valid range), text values read as
the CLI passes them.

Examples
--------
>>> spec = ParamSpec("split", "knob", 0.5, "twist position")
>>> validate_params("demo", [spec], {"split": "1/3"})[0]
{'split': 0.3333333333333333}
>>> knob_to_int(0.5, 1, 10)
6
>>> KNOB_GRIDS["paper-3"]
(0.2, 0.5, 0.8)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from twosat_formal._util.registry import set_twice, split_setting
from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.core.params import from_text, table_of, validate
from twosat_formal.errors import ConfigError

__all__ = [
    "FILLER_SHARE",
    "FRESH_FILLERS",
    "KNOB_GRIDS",
    "Checked",
    "ParamKind",
    "ParamSpec",
    "ParamValue",
    "knob_to_int",
    "optional_int",
    "parse_settings",
    "round_half_up",
    "share_count",
    "validate_params",
]

#: The value of one generator parameter.
ParamValue = float | int | bool | str | None
#: Parameters as their family's table checked them: each value has its parameter's type
#: (or is the parameter's default), so a reader converts nothing.
Checked = dict[str, Any]
#: What kind of value a parameter takes.
ParamKind = Literal["knob", "int", "bool", "choice", "text"]

#: Named knob grids of the paper (§4 and §5.1): the centres of the thirds of [0, 1],
#: and the same plus the bounds of the thirds.
KNOB_GRIDS: dict[str, tuple[float, ...]] = {
    "paper-3": (0.2, 0.5, 0.8),
    "paper-7": (0.0, 0.2, 1 / 3, 0.5, 2 / 3, 0.8, 1.0),
}

#: The words a bool parameter reads (in any case, spaces around ignored).
_TRUTH = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("0", "false", "no", "off"), False),
}


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a generator family.

    Parameters
    ----------
    name:
        The key used in ``generate(family, **params)`` and ``--set KEY=VALUE``.
    kind:
        ``"knob"`` (float in [0, 1]), ``"int"`` (in ``[low, high]``), ``"bool"``,
        ``"choice"`` (one of ``choices``) or ``"text"`` (any string, e.g. a path).
    default:
        The value used when the parameter is not given; ``None`` for a structural
        parameter means "derived from the knobs and the clause target".
    meaning:
        One line for ``twosat-formal families``.
    low, high:
        Bounds of an ``"int"`` parameter (``None``: unbounded).
    choices:
        The values of a ``"choice"`` parameter.
    drives:
        For a knob, the structural parameter it sets.

    Examples
    --------
    >>> ParamSpec("k", "int", None, "twist", low=1).valid()
    'an integer in [1, 10000000]'
    >>> validate_params("demo", [ParamSpec("shuffle", "bool", False, "order")], {"shuffle": "yes"})
    ({'shuffle': True}, frozenset({'shuffle'}))
    """

    name: str
    kind: ParamKind
    default: ParamValue
    meaning: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    drives: str | None = None

    @classmethod
    def knob(cls, name: str, drives: str, meaning: str, default: float = 0.5) -> ParamSpec:
        """A difficulty knob in [0, 1] (default 0.5) that sets the parameter ``drives``.

        >>> ParamSpec.knob("split", "k", "twist position") == ParamSpec(
        ...     "split", "knob", 0.5, "twist position", drives="k")
        True
        """
        return cls(name, "knob", default, meaning, drives=drives)

    @classmethod
    def choice(
        cls, name: str, choices: tuple[str, ...], meaning: str, default: str | None = ""
    ) -> ParamSpec:
        """One of ``choices``, the first by default (``default=None``: drawn or derived).

        >>> ParamSpec.choice("layout", ("grouped", "interleaved"), "order").default
        'grouped'
        """
        first = choices[0] if default == "" else default
        return cls(name, "choice", first, meaning, choices=choices)

    def valid(self) -> str:
        """A description of the valid values, for error messages and listings."""
        if self.kind == "knob":
            return "a number in [0, 1]"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "text":
            return "a string"
        high = self.high if self.high is not None else MAX_SIZE
        low = self.low if self.low is not None else -MAX_SIZE
        return f"an integer in [{low}, {high}]"

    def to_json(self) -> dict[str, ParamValue]:
        """The spec as a JSON object (for ``families --json``).

        >>> ParamSpec("r", "int", None, "fillers", low=0).to_json()["valid"]
        'an integer in [0, 10000000]'
        """
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "valid": self.valid(),
            "meaning": self.meaning,
            "drives": self.drives,
        }

    @property
    def annotation(self) -> Any:
        """The value's type for the family's parameter table (:mod:`twosat_formal.core.params`).

        >>> ParamSpec("shuffle", "bool", False, "order").annotation.__origin__
        <class 'bool'>
        """
        if self.kind == "knob":
            fraction = from_text(lambda t: float(Fraction(t)))  # "1/3"
            return Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), fraction]
        if self.kind == "int":
            low = -MAX_SIZE if self.low is None else self.low
            high = MAX_SIZE if self.high is None else self.high
            return Annotated[int, Field(ge=low, le=high), from_text(int), _INTEGRAL]
        if self.kind == "bool":
            return Annotated[bool, from_text(lambda t: _TRUTH.get(t.strip().lower(), t))]
        if self.kind == "choice":
            return Literal[self.choices]
        return str

    def _error(self, value: object) -> ConfigError:
        return ConfigError(
            f"parameter {self.name!r} got {value!r}; expected {self.valid()}",
            parameter=self.name,
            valid=self.valid(),
        )


#: An integral float (``3.0``) counts as its integer.
_INTEGRAL = BeforeValidator(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)


#: The ``filler_share`` knob of the families whose fillers use fresh variables (§5.2).
FILLER_SHARE = ParamSpec.knob(
    "filler_share",
    "r",
    "share of filler clauses over fresh variables: r = round(filler_share*N)",
    default=0.0,
)
#: The structural count ``r`` that :data:`FILLER_SHARE` drives.
FRESH_FILLERS = ParamSpec("r", "int", None, "filler clauses over fresh variables", low=0)


def validate_params(
    family: str, specs: Sequence[ParamSpec], params: Mapping[str, object]
) -> tuple[Checked, frozenset[str]]:
    """Check ``params`` against ``specs``; fill defaults; say which keys were given.

    A value of ``None`` counts as "not given".

    Returns
    -------
    values, given:
        Every parameter of ``specs`` (given value or default), and the names of the
        parameters that were given with a value.

    Raises
    ------
    ConfigError
        For an unknown key (``valid`` lists the known ones) or a bad value.

    Examples
    --------
    >>> specs = [ParamSpec("split", "knob", 0.5, "twist"), ParamSpec("k", "int", None, "k")]
    >>> values, given = validate_params("demo", specs, {"k": "3"})
    >>> values, sorted(given)
    ({'split': 0.5, 'k': 3}, ['k'])
    """
    by_name = {spec.name: spec for spec in specs}

    def problem(key: str, unknown: bool) -> ConfigError:
        if not unknown:
            return by_name[key]._error(params[key])
        known = ", ".join(by_name)
        return ConfigError(
            f"family {family!r} has no parameter {key!r}; its parameters are: {known}",
            parameter=key,
            valid=known,
        )

    given = {k: v for k, v in params.items() if v is not None or k not in by_name}
    checked = validate(table_of(family, specs), given, problem)
    values = {spec.name: checked.get(spec.name, spec.default) for spec in specs}
    return values, frozenset(checked)


def optional_int(value: ParamValue) -> int | None:
    """A structural parameter as an int, or ``None`` when it was not given.

    >>> optional_int(None), optional_int(3.0)
    (None, 3)
    """
    return None if value is None else int(value)


def round_half_up(x: float) -> int:
    """Round to the nearest integer, halves upwards (monotone, unlike ``round``).

    >>> round_half_up(2.5), round_half_up(3.5), round_half_up(0.49)
    (3, 4, 0)
    """
    return math.floor(x + 0.5 + 1e-9)


def knob_to_int(knob: float, low: int, high: int) -> int:
    """Map a knob in [0, 1] onto ``low..high``: 0 → ``low``, 1 → ``high``, monotone.

    >>> [knob_to_int(t, 1, 5) for t in (0.0, 0.2, 0.5, 0.8, 1.0)]
    [1, 2, 3, 4, 5]
    """
    if high < low:
        raise ConfigError(f"empty range {low}..{high}", parameter="range", valid="low <= high")
    return low + round_half_up(knob * (high - low))


def share_count(knob: float, total: int, most: int) -> int:
    """The number of items that make up share ``knob`` of ``total``, capped at ``most``.

    >>> share_count(0.5, 20, 17), share_count(1.0, 20, 17), share_count(0.0, 20, 17)
    (10, 17, 0)
    """
    return max(0, min(most, round_half_up(knob * total)))


def parse_settings(items: Sequence[str]) -> dict[str, str]:
    """Turn ``KEY=VALUE`` strings (``--set`` on the command line) into a dict.

    Raises
    ------
    ConfigError
        For an item without ``=`` or with an empty key, or a key given twice.

    Examples
    --------
    >>> parse_settings(["split=0.2", "base_file=a=b.cnf"])
    {'split': '0.2', 'base_file': 'a=b.cnf'}
    """
    settings: dict[str, str] = {}
    for item in items:
        key, value = split_setting(item)
        if key in settings:
            raise set_twice(key)
        settings[key] = value.strip()
    return settings
