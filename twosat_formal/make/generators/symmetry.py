"""``symmetry``: ``d`` disjoint renamed copies of a base formula (§3.5, App. F).

``Φ := Ψ ∧ ρ₂(Ψ) ∧ … ∧ ρ_d(Ψ)`` where copy ``c`` (0-based) uses the variables
``c·n + 1 .. (c + 1)·n`` of its own (copy 0 is ``Ψ`` itself). The base comes from any
other family (``base=backbone`` plus the base's own parameters, generated with a seed
drawn from this instance's random source) or from a formula file (``base_file=PATH``).

Options: ``layout`` ``grouped`` (copy after copy) or ``interleaved`` (a uniformly random
merge that keeps each copy's internal order); ``copy_shuffle`` (permute the clause order
inside each copy); ``copy_permute`` (rename the variables of copies 1.. by a random
permutation instead of the plain shift); ``trigger`` (``late-early``: the designated
clause goes last in even copies and first in odd ones; ``early-late``: the opposite).
The label equals the base's; a base with ``M`` models gives ``M^d``.

Examples
--------
>>> import random
>>> formula, structure = symmetry(random.Random(0), 20, base="mono-bridge", copies=2)
>>> formula.num_clauses, structure["copy_of_clause"][:3], structure["copies"]
(20, [0, 0, 0], 2)
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path, PurePath
from typing import Any

from twosat_formal.core.formula import MAX_SIZE, Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io import read_formula
from twosat_formal.make.generators.draw import generate
from twosat_formal.make.generators.family import FAMILIES, register_family
from twosat_formal.make.generators.knobs import (
    Checked,
    ParamSpec,
    optional_int,
    round_half_up,
    validate_params,
)

__all__ = ["BASE_FOLDER", "FAMILY", "PARAMS", "base_file_path", "build", "resolve", "symmetry"]

FAMILY = "symmetry"

PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("base", "text", "backbone", "family of the base formula (any but symmetry)"),
    ParamSpec("base_file", "text", None, "formula file (DIMACS or DSL) to copy instead"),
    ParamSpec("copies", "int", 2, "number d of disjoint copies", low=2),
    ParamSpec("base_clauses", "int", None, "clause target of the base (default N/d)", low=1),
    ParamSpec.choice(
        "layout",
        ("grouped", "interleaved"),
        "copies one after the other, or randomly interleaved (internal order kept)",
    ),
    ParamSpec("copy_shuffle", "bool", False, "shuffle the clause order inside each copy"),
    ParamSpec("copy_permute", "bool", False, "random variable permutation per copy"),
    ParamSpec.choice(
        "trigger",
        ("none", "late-early", "early-late"),
        "designated clause late in one copy and early in the next (or the opposite)",
    ),
    ParamSpec(
        "trigger_clause",
        "int",
        None,
        "0-based base clause that is the trigger (default: the base's own, else its last)",
        low=0,
    ),
)

_OWN = frozenset(spec.name for spec in PARAMS)


def _base_spec(name: str) -> Any:
    if name == FAMILY:
        raise ConfigError(
            "a symmetry base cannot itself be a symmetry instance",
            parameter="base",
            valid="one of " + ", ".join(n for n in FAMILIES.names() if n != FAMILY),
        )
    if name not in FAMILIES:
        raise ConfigError(
            f"unknown base family {name!r}",
            parameter="base",
            valid="one of " + ", ".join(n for n in FAMILIES.names() if n != FAMILY),
        )
    return FAMILIES.get(name)


#: While set, the folder a record's ``base_file`` is read in (``certify`` sets it to the
#: dataset's folder): the file must lie in it, see :func:`base_file_path`. Unset, the
#: path is read as given (``generate`` named on the command line).
BASE_FOLDER: ContextVar[Path | None] = ContextVar("base_folder", default=None)


def base_file_path(name: str, folder: str | os.PathLike[str]) -> Path:
    """The file a record's ``base_file`` ``name`` names, relative to ``folder``.

    A record is data: it names a file in its dataset's folder (or below), never
    elsewhere. Checked before anything is opened.

    Raises
    ------
    ConfigError
        An absolute path, one that leaves ``folder`` (``..``, a link out of it), a
        missing file, or one that is not a regular file (a FIFO, a device).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "base.cnf").write_text("p cnf 2 1\\n1 2 0\\n")
    >>> base_file_path("base.cnf", folder).name
    'base.cnf'
    >>> for name in ("/etc/shadow", "../base.cnf", "gone.cnf"):
    ...     try:
    ...         base_file_path(name, folder)
    ...     except ConfigError as error:
    ...         print(str(error).split(":")[0])
    the base file '/etc/shadow' is an absolute path
    the base file '../base.cnf' is outside the dataset's folder
    the base file 'gone.cnf' this root was drawn from is not here
    """
    if not name or PurePath(name).is_absolute():
        raise ConfigError(
            f"the base file {name!r} is an absolute path: a record names its base file "
            "relative to its dataset's folder",
            parameter="base_file",
            valid="a file in the dataset's folder",
        )
    root = Path(os.path.realpath(folder))
    real = Path(os.path.realpath(root / name))
    if root not in real.parents:
        raise ConfigError(
            f"the base file {name!r} is outside the dataset's folder: "
            "a record names files in its dataset's folder only",
            parameter="base_file",
            valid="a file in the dataset's folder",
        )
    if not os.path.lexists(real):
        raise ConfigError(
            f"the base file {name!r} this root was drawn from is not here: "
            f"it cannot be re-derived (it belongs in {root})",
            parameter="base_file",
        )
    if not real.is_file():
        raise ConfigError(
            f"the base file {name!r} is not a regular file: it is not read",
            parameter="base_file",
            valid="a regular file in the dataset's folder",
        )
    return real


def _read_base_file(path: str) -> tuple[Formula, str]:
    folder = BASE_FOLDER.get()
    where: str | Path = path if folder is None else base_file_path(path, folder)
    formula = read_formula(where)
    digest = hashlib.sha256(Path(where).read_bytes()).hexdigest()
    return formula, digest


def resolve(clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate the symmetry options and the base's parameters.

    Parameters other than those of :data:`PARAMS` go to the base family, whose
    resolved parameters are recorded alongside (flat).

    Examples
    --------
    >>> p = resolve(40, {"base": "backbone", "beta": 0.2})
    >>> p["copies"], p["base_clauses"], p["beta"], p["B"]
    (2, 20, 0.2, 2)
    """
    own = {k: v for k, v in params.items() if k in _OWN}
    rest = {k: v for k, v in params.items() if k not in _OWN}
    values, given = validate_params(FAMILY, PARAMS, own)
    base_clauses = values["base_clauses"]
    copies = int(values["copies"])
    if clauses is not None and clauses < 2:
        raise ConfigError(
            f"symmetry needs at least 2 clauses, got {clauses}", parameter="clauses", valid=">= 2"
        )
    base_resolved: Checked = {}
    base = None
    if values["base_file"] is not None:
        copies = _copies_of_file(values, given, rest, clauses, copies)
        base_clauses = None
    else:
        base = str(values["base"])
        copies, base_clauses, base_resolved = _resolve_family_base(
            base, base_clauses, given, rest, clauses, copies
        )
    return {
        "clauses": clauses,
        "base": base,
        "base_file": values["base_file"],
        "copies": copies,
        "base_clauses": base_clauses,
        "layout": values["layout"],
        "copy_shuffle": values["copy_shuffle"],
        "copy_permute": values["copy_permute"],
        "trigger": values["trigger"],
        "trigger_clause": values["trigger_clause"],
        **base_resolved,
    }


def _copies_of_file(
    values: Checked, given: frozenset[str], rest: Checked, clauses: int | None, copies: int
) -> int:
    """The copies of a base read from ``base_file``: ``clauses`` over its size, unless given."""
    if rest:
        raise ConfigError(
            f"base_file takes no base parameters, got {', '.join(sorted(rest))}",
            parameter=sorted(rest)[0],
            valid="only the symmetry parameters with base_file",
        )
    base_formula, _ = _read_base_file(str(values["base_file"]))
    size = base_formula.num_clauses
    if clauses is not None and "copies" not in given and size > 0:
        copies = max(2, round_half_up(clauses / size))
    if clauses is not None and abs(copies * size - clauses) > 1:
        raise ConfigError(
            f"{copies} copies of the {size} clauses of {values['base_file']} make"
            f" {copies * size} clauses, not {clauses}",
            parameter="clauses",
            valid=f"{copies * size - 1}..{copies * size + 1}",
        )
    return copies


def _resolve_family_base(
    base: str,
    base_clauses: Any,
    given: frozenset[str],
    rest: Checked,
    clauses: int | None,
    copies: int,
) -> tuple[int, Any, Checked]:
    """The copies, the base's clause count and its resolved parameters (``clauses`` left out)."""
    spec = _base_spec(base)
    if base_clauses is None and clauses is not None:
        base_clauses = max(1, round_half_up(clauses / copies))
    elif base_clauses is not None and clauses is not None and "copies" not in given:
        copies = max(2, round_half_up(clauses / int(base_clauses)))
    base_resolved = dict(spec.resolve(base_clauses, rest))
    base_resolved.pop("clauses", None)
    return copies, base_clauses, base_resolved


def _check_copies(clauses: int | None, copies: int, m: int) -> None:
    """Refuse ``copies`` of an ``m``-clause base that miss the target by more than one
    clause, or that make more clauses than a formula may have (before any is copied)."""
    if clauses is not None and abs(copies * m - clauses) > 1:
        raise ConfigError(
            f"{copies} copies of a {m}-clause base make {copies * m} clauses, not {clauses} (±1)",
            parameter="clauses",
            valid=f"{copies * m - 1}..{copies * m + 1} with this base",
        )
    if copies * m > MAX_SIZE:
        raise ConfigError(
            f"{copies} copies of a {m}-clause base make {copies * m} clauses, more than the "
            f"{MAX_SIZE} a formula may have",
            parameter="copies",
            valid=f"2..{max(2, MAX_SIZE // m)} with this base",
        )


def build(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any]]:
    """Draw the copies for resolved parameters ``p`` (:func:`resolve`'s result) from ``rng``.

    Returns
    -------
    formula, structure:
        ``structure`` holds ``copies``, ``copy_of_clause`` (the copy of each clause),
        ``base_clause_of`` (the base clause each clause copies), ``renamings`` (per copy,
        ``{base name: new name}``), ``trigger_clauses`` (per copy, the index of the
        designated clause, when ``trigger`` is set) and ``base`` (what the base is:
        family, seed, params, id, label, sizes and structure; or file and sha256).

    Examples
    --------
    >>> f, s = symmetry(random.Random(1), None, base="equivalence-core", n=3, f=1, copies=3)
    >>> f.num_clauses, f.num_vars, sorted(set(s["copy_of_clause"]))
    (12, 9, [0, 1, 2])
    """
    clauses = optional_int(p["clauses"])
    copies = int(p["copies"])
    base_formula, base_structure, base_info = _draw_base(rng, p)
    m, nb = base_formula.num_clauses, base_formula.num_vars
    _check_copies(clauses, copies, m)
    trigger = p["trigger"]
    t = _trigger_clause(p, base_structure, m)
    orders, maps = _copy_orders_and_maps(rng, p, copies, m, nb, t)
    labels = [c for c in range(copies) for _ in range(m)]
    if p["layout"] == "interleaved":
        rng.shuffle(labels)
    final, base_of = _place_copies(base_formula.clauses, labels, orders, maps)
    formula = Formula(final, num_vars=copies * nb)
    structure: dict[str, Any] = {
        "copies": copies,
        "base_clauses": m,
        "base_vars": nb,
        "copy_of_clause": labels,
        "base_clause_of": base_of,
        "renamings": [
            {base_formula.name(v): formula.name(maps[c][v - 1]) for v in range(1, nb + 1)}
            for c in range(copies)
        ],
        "base": base_info,
    }
    if trigger != "none" and m > 0:
        structure["trigger_clauses"] = _trigger_positions(labels, base_of, copies, t)
    return formula, structure


def _place_copies(
    base_clauses: Sequence[Sequence[int]],
    labels: list[int],
    orders: Sequence[Sequence[int]],
    maps: Sequence[Sequence[int]],
) -> tuple[list[tuple[int, ...]], list[int]]:
    """The clauses in the order of ``labels`` (each the next clause of its copy, renamed)
    and the base clause each copies."""
    taken = [0] * len(orders)
    final: list[tuple[int, ...]] = []
    base_of: list[int] = []
    for c in labels:
        j = orders[c][taken[c]]
        taken[c] += 1
        vmap = maps[c]
        final.append(
            tuple(vmap[lit - 1] if lit > 0 else -vmap[-lit - 1] for lit in base_clauses[j])
        )
        base_of.append(j)
    return final, base_of


def _trigger_positions(labels: list[int], base_of: list[int], copies: int, t: int) -> list[int]:
    """Per copy, the index of its copy of base clause ``t``."""
    return [
        next(i for i, (cc, j) in enumerate(zip(labels, base_of, strict=True)) if cc == c and j == t)
        for c in range(copies)
    ]


def _draw_base(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any], dict[str, Any]]:
    """The base formula, its structure and what the record says of it (read from its
    file, or drawn from its family with the next 63 bits of ``rng`` as seed)."""
    if p["base_file"] is not None:
        base_formula, digest = _read_base_file(str(p["base_file"]))
        return base_formula, {}, {"file": p["base_file"], "sha256": digest}
    base_seed = rng.getrandbits(63)
    base_params = {k: v for k, v in p.items() if k not in _OWN and k != "clauses"}
    base_instance = generate(
        str(p["base"]), clauses=optional_int(p["base_clauses"]), seed=base_seed, **base_params
    )
    info = {
        "family": base_instance.family,
        "seed": base_seed,
        "id": base_instance.id,
        "params": base_instance.params,
        "label": base_instance.label,
        "structure": base_instance.structure,
    }
    return base_instance.formula, base_instance.structure, info


def _trigger_clause(p: Checked, base_structure: Mapping[str, Any], m: int) -> int:
    """The base clause each copy moves to its start or end (``trigger_clause``, else the
    base's own trigger clause, else its last clause)."""
    t = optional_int(p["trigger_clause"])
    if t is None:
        return int(base_structure.get("trigger_clause", m - 1))
    if t >= m:
        raise ConfigError(
            f"trigger_clause={t} is beyond the {m} base clauses",
            parameter="trigger_clause",
            valid=f"0..{m - 1}",
        )
    return t


def _copy_orders_and_maps(
    rng: random.Random, p: Checked, copies: int, m: int, nb: int, t: int
) -> tuple[list[list[int]], list[list[int]]]:
    """Per copy, the order of the base clauses and the variables the base's map to."""
    trigger = p["trigger"]
    orders: list[list[int]] = []
    maps: list[list[int]] = []
    for c in range(copies):
        order = list(range(m))
        if p["copy_shuffle"]:
            rng.shuffle(order)
        if trigger != "none" and m > 0:
            late = (c % 2 == 0) == (trigger == "late-early")
            order.remove(t)
            order = [*order, t] if late else [t, *order]
        orders.append(order)
        shift = list(range(c * nb + 1, (c + 1) * nb + 1))
        if p["copy_permute"] and c > 0:
            rng.shuffle(shift)
        maps.append(shift)
    return orders, maps


#: ``symmetry(rng, clauses=None, **params)``: draw a symmetry/redundancy probe (App. F),
#: the request resolved by :func:`resolve`, then built by :func:`build`.
symmetry = register_family(
    FAMILY,
    build,
    resolve,
    PARAMS,
    summary="d disjoint renamed copies of a base formula (any family or a formula file)",
    section="§3.5, App. F",
    label="base",
).draw
