"""The shared knob→size resolver: each family declares its sizing as data, one function runs it.

A family's :class:`Sizing` names its parameters, its clause floor and default, its
*budget* (the structural path: how the clause count splits into the sizes of its core
and its fillers, honouring every size given directly) and its :class:`KnobRule` s (the
knob path: how each remaining knob maps onto the one structural parameter it drives; a
value given directly overrides the knob and is only checked). :func:`resolve_sizes`
runs them in one fixed order:

1. validate the request against the specs (:func:`~.knobs.validate_params`);
2. refuse a clause target below the floor;
3. the budget fixes the core sizes and the filler count ``r``;
4. each knob rule, in order, fixes its size (from its knob, unless given) and checks it;
5. the record: ``clauses``, then every parameter in the order of the specs, a knob
   with its value where it drove the draw and ``None`` otherwise.

A builder then takes the resolved sizes, never the request.

Examples
--------
>>> from twosat_formal.make.generators.knobs import ParamSpec, knob_to_int
>>> def budget(request: Request) -> None:
...     request.sizes["L"] = request.target
>>> demo = Sizing(
...     "demo",
...     (ParamSpec("split", "knob", 0.5, "k/L", drives="k"),
...      ParamSpec("L", "int", None, "length", low=1),
...      ParamSpec("k", "int", None, "twist", low=1)),
...     min_clauses=1,
...     default_clauses=10,
...     budget=budget,
...     rules=(KnobRule("k", "split", lambda t, s: knob_to_int(t, 1, s.size("L"))),),
... )
>>> resolve_sizes(demo, 5, {})
{'clauses': 5, 'split': 0.5, 'L': 5, 'k': 3}
>>> resolve_sizes(demo, 5, {"k": 2})
{'clauses': 5, 'split': None, 'L': 5, 'k': 2}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.knobs import (
    Checked,
    ParamSpec,
    ParamValue,
    optional_int,
    round_half_up,
    share_count,
    validate_params,
)

__all__ = ["DEFAULT_CLAUSES", "KnobRule", "Request", "Sizing", "resolve_sizes"]

#: Clause count used when neither a target nor the structural sizes are given.
DEFAULT_CLAUSES = 20


@dataclass
class Request:
    """A request while it is resolved: validated values, given keys, knobs used, sizes fixed.

    ``sizes`` holds the structural parameters fixed so far (a budget may also keep a
    helper value there, such as an adjusted clause total, under a name that is not a
    parameter: only parameters are recorded).
    """

    sizing: Sizing
    clauses: int | None
    values: Checked
    given: frozenset[str]
    used: set[str] = field(default_factory=set)
    sizes: Checked = field(default_factory=dict)

    @property
    def target(self) -> int:
        """The clause target, or the family's default without one."""
        return self.clauses if self.clauses is not None else self.sizing.default_clauses

    def knob(self, name: str) -> float:
        """The value of knob ``name`` (given or default)."""
        return float(self.values[name])

    def asked(self, name: str) -> int | None:
        """The structural parameter ``name`` as given directly, else ``None``."""
        return optional_int(self.values[name])

    def size(self, name: str) -> int:
        """A size fixed by the budget or an earlier rule."""
        return int(self.sizes[name])

    def use(self, *knobs: str) -> None:
        """Record that ``knobs`` drove the draw."""
        self.used.update(knobs)

    def fillers_in(self, target: int) -> int:
        """``r`` from ``filler_share`` within ``target`` clauses, leaving the core its floor."""
        self.use("filler_share")
        return share_count(self.knob("filler_share"), target, target - self.sizing.min_clauses)

    def fillers_beside(self, core: int, when: str = "without a clause target") -> int:
        """``r`` from ``filler_share`` beside a ``core`` of fixed size (no clause target)."""
        share = self.knob("filler_share")
        if share >= 1.0:
            raise ConfigError(
                f"filler_share must be below 1 {when}",
                parameter="filler_share",
                valid="a number in [0, 1)",
            )
        self.use("filler_share")
        return round_half_up(share * core / (1.0 - share))

    def fillers_for(self, r: int | None, core: int | None, most: int, room: str) -> int:
        """``r`` within the clause target.

        Given, it is refused above ``most`` (:meth:`refuse_fillers`); with the core's
        size ``core`` fixed, the fillers are the rest of the target when
        ``filler_share`` is given, else none; otherwise ``filler_share`` sets them.
        """
        if r is not None:
            self.refuse_fillers(r, most, room)
            return r
        if core is None:
            return self.fillers_in(self.target)
        return max(0, self.target - core) if "filler_share" in self.given else 0

    def refuse_fillers(self, r: int, most: int, room: str) -> None:
        """Refuse ``r`` fillers above ``most``: they leave no room for ``room``."""
        if r > most:
            raise ConfigError(
                f"r={r} fillers leave no room for {room}",
                parameter="r",
                valid=f"0..{most} for {self.target} clauses",
            )


@dataclass(frozen=True)
class KnobRule:
    """How one knob maps onto the structural parameter it drives.

    Parameters
    ----------
    size:
        The structural parameter (``"k"``, ...).
    knob:
        The knob that drives it (``"split"``, ...).
    derive:
        ``(knob value, request) -> size``, used when ``size`` was not given.
    check:
        ``(size, request) -> None``, raising :class:`ConfigError` when a size given
        directly does not fit the sizes fixed before it.
    """

    size: str
    knob: str
    derive: Callable[[float, Request], ParamValue]
    check: Callable[[int, Request], None] | None = None

    def apply(self, request: Request) -> None:
        """Fix ``size`` in ``request``: the given value (checked) or the knob's."""
        value = request.values[self.size]
        if value is None:
            request.sizes[self.size] = self.derive(request.knob(self.knob), request)
            request.use(self.knob)
            return
        if self.check is not None:
            self.check(int(value), request)
        request.sizes[self.size] = value


@dataclass(frozen=True)
class Sizing:
    """A family's sizing, as data: its parameters, clause floor and default, budget and rules.

    Parameters
    ----------
    family:
        The family's registry name (for error messages).
    params:
        Its parameter specs.
    min_clauses:
        The smallest clause target it can meet.
    budget:
        ``(request) -> None``: fixes the core sizes and ``r`` in ``request.sizes``.
    default_clauses:
        The clause count used when neither a target nor the sizes are given.
    rules:
        The knob rules applied after the budget, in order.
    count:
        ``(resolved sizes) -> clauses``: the number of clauses the sizes make, checked
        against the most a formula may have before anything is drawn.
    """

    family: str
    params: tuple[ParamSpec, ...]
    min_clauses: int
    budget: Callable[[Request], None]
    default_clauses: int = DEFAULT_CLAUSES
    rules: tuple[KnobRule, ...] = ()
    count: Callable[[Checked], int] | None = None


def resolve_sizes(sizing: Sizing, clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate a request and resolve every structural parameter of ``sizing``'s family.

    Raises
    ------
    ConfigError
        For a bad parameter, a target below the floor or sizes that do not fit.
    """
    values, given = validate_params(sizing.family, sizing.params, params)
    if clauses is not None and clauses > MAX_SIZE:
        raise ConfigError(
            f"{sizing.family}: {clauses} clauses is more than the {MAX_SIZE} a formula may have",
            parameter="clauses",
            valid=f"<= {MAX_SIZE}",
        )
    if clauses is not None and clauses < sizing.min_clauses:
        noun = "clause" if sizing.min_clauses == 1 else "clauses"
        raise ConfigError(
            f"{sizing.family} needs at least {sizing.min_clauses} {noun}, got {clauses}",
            parameter="clauses",
            valid=f">= {sizing.min_clauses}",
        )
    request = Request(sizing, clauses, values, given, used=set(given))
    sizing.budget(request)
    for rule in sizing.rules:
        rule.apply(request)
    record: dict[str, ParamValue] = {"clauses": clauses}
    for spec in sizing.params:
        if spec.kind == "knob":
            record[spec.name] = values[spec.name] if spec.name in request.used else None
        else:
            record[spec.name] = request.sizes.get(spec.name, values[spec.name])
    _check_total(sizing, record)
    return record


def _check_total(sizing: Sizing, record: Checked) -> None:
    """Refuse sizes that make more clauses than a formula may have, before any is drawn."""
    total = None if sizing.count is None else sizing.count(record)
    if total is not None and total > MAX_SIZE:
        raise ConfigError(
            f"{sizing.family}: these sizes make {total} clauses, more than the {MAX_SIZE} "
            "a formula may have",
            parameter="clauses",
            valid=f"<= {MAX_SIZE}",
        )
