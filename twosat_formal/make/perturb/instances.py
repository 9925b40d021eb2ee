"""Perturbing instances and formula files: derived records with their transform chains.

A derived instance keeps its base's family, params, seed and label, gets a fresh id
(:func:`derived_id`), a new certificate from the solver, ``base_id`` = the id of the
*root* instance (the one with no transforms) and ``transforms`` = the root's chain
followed by the new steps, so every derived record replays from its root.

Its ``structure`` is ``{"base": <the root's structure>}`` (indices and names there
refer to the root), plus ``bridge`` / ``trigger_clause`` followed to their positions
in the derived formula when the root has them.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1, 2], [-1, 2]])
>>> doc = perturb_document(base, ["reorder"], seed=1, source="f.cnf")
>>> sorted(doc)
['base_dimacs', 'dimacs', 'num_clauses', 'num_vars', 'schema_version', 'source', 'transforms']
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal._util.executors import Executor, LocalExecutor
from twosat_formal.core.formula import Formula
from twosat_formal.core.provenance import tool_version
from twosat_formal.core.seeds import derive_seed
from twosat_formal.errors import ConfigError, ProofError
from twosat_formal.io.instance import (
    SCHEMA_VERSION,
    Instance,
    canonical_digest,
    first_of_each_id,
    refuse_edited,
)
from twosat_formal.io.jsonl import RawLine, is_dataset, parse_raw, raw_lines, read_text, rereadable
from twosat_formal.make.perturb.chain import Chain, StepSpec, apply_chain
from twosat_formal.make.perturb.transform import Transform

if TYPE_CHECKING:
    from twosat_formal.io.dsl import Conversion

__all__ = [
    "bridge_index",
    "derived_id",
    "derived_instance",
    "instance_seed",
    "perturb_document",
    "perturb_instance",
    "perturb_lines",
]


def derived_id(root_id: str, transforms: Sequence[Transform]) -> str:
    """The id of a derived instance: the root id and a sha256 of its transforms.

    >>> derived_id("backbone-1", []) == derived_id("backbone-1", [])
    True
    """
    steps = [t.to_json(with_proof=False) for t in transforms]
    digest = canonical_digest({"base_id": root_id, "transforms": steps}, 12)
    return f"{root_id}~{digest}"


def bridge_index(structure: dict[str, Any]) -> int | None:
    """The 0-based bridge index a mono-bridge structure records (``None`` if none).

    >>> bridge_index({"bridge": {"index": 4}}), bridge_index({})
    (4, None)
    """
    bridge = structure.get("bridge")
    if isinstance(bridge, dict) and isinstance(bridge.get("index"), int):
        return int(bridge["index"])
    return None


def _root_parts(instance: Instance) -> tuple[str, Chain, dict[str, Any]]:
    """The root id, the chain already applied to the root, and the root's structure."""
    if instance.base_id is None:
        return instance.id, Chain(), dict(instance.structure)
    previous = Chain.from_json(list(instance.transforms))
    root_structure = instance.structure.get("base", {})
    return instance.base_id, previous, dict(root_structure)


def perturb_instance(instance: Instance, steps: Sequence[StepSpec], *, seed: int = 0) -> Instance:
    """Apply a chain of operators to an instance; the derived instance, re-labelled.

    The bridge of a mono-bridge instance is the default clause of ``bridge-move``.

    Raises
    ------
    ProofError
        If a step cannot be proven, or the solver gives the derived formula another
        label (which a proven chain rules out).

    Examples
    --------
    >>> from twosat_formal.make.generators import generate
    >>> inst = generate("mono-bridge", clauses=10, seed=0)
    >>> moved = perturb_instance(inst, [("bridge-move", {"position": 9})], seed=3)
    >>> moved.base_id == inst.id, moved.label, moved.structure["bridge"]["index"]
    (True, 'SAT', 9)
    """
    _, previous, root_structure = _root_parts(instance)
    root_bridge = bridge_index(root_structure)
    bridge = previous.track_clause(root_bridge) if root_bridge is not None else None
    formula, chain = apply_chain(instance.formula, steps, seed=seed, bridge=bridge)
    return derived_instance(instance, previous.steps + chain.steps, formula, seed=seed)


def derived_instance(
    origin: Instance, transforms: Sequence[Transform], formula: Formula, *, seed: int
) -> Instance:
    """The derived record of ``formula``, made from ``origin`` by the chain ``transforms``.

    ``transforms`` is the whole chain from the root (``origin``'s own chain first);
    ``seed`` is the chain seed of the last run, recorded in ``provenance.perturb``.
    ``perturb`` builds its records with it, and ``certify`` re-derives them with it
    from a root and the replayed steps.

    Raises
    ------
    ProofError
        If the solver gives ``formula`` another label than ``origin``'s.
    """
    from twosat_formal.solve import solve
    from twosat_formal.solve.measures import instance_measures

    root_id, _, root_structure = _root_parts(origin)
    root_bridge = bridge_index(root_structure)
    result = solve(formula)
    if result.status != origin.label:
        raise ProofError(
            f"the perturbed formula is {result.status}, its base {origin.id} is {origin.label}"
        )
    full = Chain(tuple(transforms))
    structure: dict[str, Any] = {"base": root_structure}
    if root_bridge is not None:
        index = full.track_clause(root_bridge)
        structure["bridge"] = {"index": index, "position": index + 1}
    trigger = root_structure.get("trigger_clause")
    if isinstance(trigger, int) and not isinstance(trigger, bool):
        structure["trigger_clause"] = full.track_clause(trigger)
    provenance = dict(origin.provenance)
    provenance["perturb"] = {
        "tool_version": tool_version(),
        "operators": [t.operator for t in full.steps],
        "seed": seed,
    }
    return origin.derive(
        derived_id(root_id, full.steps),
        formula,
        result.status,
        result.to_json(formula),
        structure=structure,
        provenance=provenance,
        base_id=root_id,
        transforms=tuple(t.to_json() for t in full.steps),
        measures=instance_measures(formula),
    )


def _source_line(source: object) -> dict[str, object] | None:
    """The ``c source:`` line of a document's base text (none without a source)."""
    return None if source is None else {"source": source}


def perturb_document(
    formula: Formula,
    steps: Sequence[StepSpec],
    *,
    seed: int = 0,
    source: str | None = None,
    conversions: Sequence[Conversion] = (),
) -> dict[str, Any]:
    """Apply a chain to a formula; a JSON document with both formulas and the chain.

    The document holds ``base_dimacs`` (with a ``c source:`` line naming ``source``)
    and ``dimacs`` (with names), the result's variable and clause counts, and
    ``transforms``, so it can be re-checked alone; and ``formula_lines``, the proven
    conversions of the DSL formula lines the base was read from, when it has some.
    """
    from twosat_formal.io import write_dimacs

    if not steps:
        raise ConfigError("give at least one operator", parameter="op")
    result, chain = apply_chain(formula, steps, seed=seed)
    document = {
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "base_dimacs": write_dimacs(formula, provenance=_source_line(source)),
        "dimacs": write_dimacs(result),
        "num_vars": result.num_vars,
        "num_clauses": result.num_clauses,
        "transforms": chain.to_json(),
    }
    if conversions:
        document["formula_lines"] = [c.to_json() for c in conversions]
    return document


def instance_seed(seed: int, instance_id: str) -> int:
    """The chain seed used for one instance of a dataset (sha256 of seed and id, 63 bits).

    >>> instance_seed(0, "a") == instance_seed(0, "a") != instance_seed(0, "b")
    True
    """
    return derive_seed(seed, instance_id)


def _base_line(line: RawLine) -> tuple[str, str]:
    record = parse_raw(line).value
    inst = Instance.from_record(record, line=line.number, source=line.source)
    return inst.id, inst.to_json()


def _derived_line(steps: Sequence[StepSpec], seed: int, line: RawLine) -> tuple[str, str]:
    inst = Instance.from_record(parse_raw(line).value, line=line.number, source=line.source)
    refuse_edited(inst, "perturb", line=line.number, source=line.source)
    try:
        derived = perturb_instance(inst, steps, seed=instance_seed(seed, inst.id))
    except ConfigError as exc:
        raise ConfigError(
            f"instance {inst.id}: {exc}", parameter=exc.parameter, valid=exc.valid
        ) from None
    except ProofError as exc:
        raise ProofError(f"instance {inst.id}: {exc}", counterexample=exc.counterexample) from None
    return derived.id, derived.to_json()


def perturb_lines(
    path: str | Path,
    steps: Sequence[StepSpec],
    *,
    seed: int = 0,
    keep_base: bool = True,
    executor: Executor | None = None,
) -> Iterator[str]:
    """Perturb a formula file or a dataset; the lines to write, streamed.

    A formula file (DIMACS or DSL; ``"-"`` is stdin) gives one line of JSON, the
    :func:`perturb_document`. A dataset gives JSON Lines: its records first (unless
    ``keep_base`` is false), then one derived record per instance, instance ``i``
    perturbed with the chain seed :func:`instance_seed` of ``seed`` and its id. Each id
    is written once, at its first place (:func:`~twosat_formal.io.instance.first_of_each_id`):
    a derived record already in the input (a dataset ``perturb`` wrote, read again with
    the same chain and seed) is carried once, as an input record.

    The dataset is read twice, a line at a time (stdin is first copied to a temporary
    file), so memory does not grow with its size; ``executor`` does the per-record
    work, in input order.
    """
    from twosat_formal.io import parse_reading

    if not steps:
        raise ConfigError("give at least one operator", parameter="op")
    runner = executor or LocalExecutor()
    with rereadable(path) as (file, source):
        if not is_dataset(file, source=source):
            formula, conversions = parse_reading(read_text(file, source=source), source=source)
            document = perturb_document(
                formula, steps, seed=seed, source=source, conversions=conversions
            )
            yield json.dumps(document)
            return
        yield from first_of_each_id(_dataset_pairs(file, source, steps, seed, keep_base, runner))


def _dataset_pairs(
    file: Path,
    source: str,
    steps: Sequence[StepSpec],
    seed: int,
    keep_base: bool,
    runner: Executor,
) -> Iterator[tuple[str, str]]:
    """The ``(id, line)`` of each record of a perturbed dataset: its records, then derived ones."""
    if keep_base:
        yield from runner.map(_base_line, raw_lines(file, source=source))
    yield from runner.map(partial(_derived_line, steps, seed), raw_lines(file, source=source))
