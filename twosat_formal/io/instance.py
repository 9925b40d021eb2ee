"""Instances: a formula with its label, certificate, structure and provenance.

An :class:`Instance` is what generators emit and what every later stage reads. On disk
it is one JSON Lines record (:meth:`Instance.to_record`) whose ``dimacs`` field holds the
formula with ``c var`` name lines and a provenance header. Ids are stable: the sha256 of
the canonical JSON of family, params and seed (:func:`instance_id`).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> inst = Instance(
...     id=instance_id("demo", {"n": 1}, 0), family="demo", params={"n": 1}, seed=0,
...     formula=Formula([[1], [-1]]), label="UNSAT",
...     certificate={"status": "UNSAT", "backend": "scc", "checked": True,
...                  "cycle": ["x1", "~x1"]}, structure={},
...     provenance={"tool": "twosat-formal"},
... )
>>> inst.id
'demo-7612a264c9f2231c'
>>> record = inst.to_record()
>>> record["schema_version"], record["num_clauses"], record["label"]
(1, 2, 'UNSAT')
>>> Instance.from_record(record) == inst
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from twosat_formal.core.formula import Formula
from twosat_formal.core.records import InstanceRecord, read_record
from twosat_formal.errors import ParseError, RecordError
from twosat_formal.io import parse_dimacs, write_dimacs
from twosat_formal.io.jsonl import json_line, read_json_lines, write_lines

__all__ = [
    "LABELS",
    "SCHEMA_VERSION",
    "Instance",
    "canonical_digest",
    "canonical_json",
    "first_of_each_id",
    "instance_id",
    "read_instances",
    "refuse_edited",
    "write_instances",
]

#: Version of the JSON Lines instance record; readers refuse any other.
SCHEMA_VERSION = 1
#: The two labels an instance can carry.
LABELS = ("SAT", "UNSAT")

T = TypeVar("T")


def canonical_json(obj: object) -> str:
    """JSON with sorted keys and no spaces: the same bytes for equal data, anywhere.

    >>> canonical_json({"b": 1, "a": [True, None]})
    '{"a":[true,null],"b":1}'
    """
    return _canonical(obj)


#: ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
#: allow_nan=False)``, its encoder made once (``json.dumps`` builds one per call).
_canonical = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
).encode


def canonical_digest(obj: object, length: int) -> str:
    """The first ``length`` hex digits of the sha256 of :func:`canonical_json` of ``obj``:
    the content hash in every id that names its data.

    >>> canonical_digest({"b": 1, "a": None}, 8) == canonical_digest({"a": None, "b": 1}, 8)
    True
    >>> len(canonical_digest([1, 2], 12))
    12
    """
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()[:length]


def instance_id(family: str, params: Mapping[str, object], seed: int) -> str:
    """The stable id of an instance: the family and a sha256 of its canonical request.

    >>> instance_id("backbone", {"beta": 0.5}, 3) == instance_id("backbone", {"beta": 0.5}, 3)
    True
    >>> instance_id("backbone", {"beta": 0.5}, 3) != instance_id("backbone", {"beta": 0.5}, 4)
    True
    """
    request = {"family": family, "params": dict(params), "seed": seed}
    return f"{family}-{canonical_digest(request, 16)}"


@dataclass(frozen=True)
class Instance:
    """A labelled formula with its certificate, structure and provenance.

    Parameters
    ----------
    id:
        Stable id (see :func:`instance_id`).
    family:
        The generator family (or the family of the base for derived instances).
    params:
        Knobs and the structural parameters they produced, the clause target and the
        achieved clause count.
    seed:
        The seed the formula was drawn with.
    formula:
        The formula.
    label:
        ``"SAT"`` or ``"UNSAT"``, as computed by the solver.
    certificate:
        The solver's certificate, as ``solve --json`` writes it.
    structure:
        What the family knows about the formula (core clauses, backbone, bridge...).
    provenance:
        Tool version, generator, params and seed.
    base_id:
        For a derived instance, the id of the instance it was derived from.
    transforms:
        The transforms applied to the base, in order.
    twin_of:
        For a minimal twin (:mod:`twosat_formal.evaluate.diagnostics.twins`), the id of the
        instance it is the twin of.
    change:
        For a minimal twin, the one-clause change that turns its source into it.
    measures:
        The structural measures of the formula (shortest contradiction cycle, longest
        implication path, strong components, backbone, deepest forced literal, proof
        length), as the builders that make instances compute them
        (:func:`twosat_formal.solve.measures.instance_measures`); ``None`` makes no claim (a
        record written before records carried them). Written into the record as
        ``measures`` when set; ``certify`` derives them again.
    """

    id: str
    family: str
    params: dict[str, Any]
    seed: int
    formula: Formula
    label: str
    certificate: dict[str, Any]
    structure: dict[str, Any]
    provenance: dict[str, Any]
    base_id: str | None = None
    transforms: tuple[dict[str, Any], ...] = field(default=())
    twin_of: str | None = None
    change: dict[str, Any] | None = None
    measures: dict[str, Any] | None = None

    def derive(
        self,
        id: str,
        formula: Formula,
        label: str,
        certificate: dict[str, Any],
        structure: dict[str, Any],
        provenance: dict[str, Any],
        **more: Any,
    ) -> Instance:
        """An instance made from this one: its family, parameters (a copy) and seed kept.

        ``more`` sets the other fields (``base_id``, ``transforms``, ``twin_of``,
        ``change``, ``measures``: the origin's measures are not kept); a derived
        instance is written with its own id, formula, label, certificate, structure and
        provenance.

        >>> base = Instance("i", "f", {"n": 1}, 7, Formula([[1]]), "SAT", {}, {}, {})
        >>> twin = base.derive("j", Formula([[-1]]), "SAT", {}, {}, {}, base_id="i")
        >>> twin.seed, twin.params, twin.base_id
        (7, {'n': 1}, 'i')
        """
        return Instance(
            id,
            self.family,
            dict(self.params),
            self.seed,
            formula,
            label,
            certificate,
            structure,
            provenance,
            **more,
        )

    def dimacs_header(self) -> dict[str, object]:
        """The provenance lines written at the top of :attr:`dimacs`.

        The path a formula file was read from (``provenance["source"]``) is written
        too, so that ``certify``, which writes the text again, compares it.
        """
        header = {"id": self.id, "family": self.family, "seed": self.seed, "params": self.params}
        source = self.provenance.get("source")
        if source is not None:
            header["source"] = source
        return header

    @property
    def dimacs(self) -> str:
        """The formula in DIMACS, with name lines and the provenance header."""
        return write_dimacs(self.formula, provenance=self.dimacs_header())

    def to_record(self) -> dict[str, Any]:
        """The JSON Lines record (a plain dict of JSON values).

        ``measures`` follows ``structure`` when the instance holds them (every instance
        a builder makes does); ``twin_of`` and ``change`` are written only for a
        minimal twin.
        """
        record: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "id": self.id,
            "family": self.family,
            "params": self.params,
            "seed": self.seed,
            "dimacs": self.dimacs,
            "num_vars": self.formula.num_vars,
            "num_clauses": self.formula.num_clauses,
            "label": self.label,
            "certificate": self.certificate,
            "structure": self.structure,
        }
        if self.measures is not None:
            record["measures"] = self.measures
        record["base_id"] = self.base_id
        record["transforms"] = list(self.transforms)
        record["provenance"] = self.provenance
        if self.twin_of is not None:
            record["twin_of"] = self.twin_of
            record["change"] = self.change
        return record

    def to_json(self) -> str:
        """The record as one line of JSON (no trailing newline).

        Field order is fixed, so equal instances give equal bytes.
        """
        return json_line(self.to_record())

    @classmethod
    def from_record(
        cls, record: Mapping[str, Any], *, line: int | None = None, source: str | None = None
    ) -> Instance:
        """Rebuild an instance from its record; :class:`RecordError` if it is malformed.

        The record is read through its typed model
        (:class:`~twosat_formal.core.records.InstanceRecord`, with
        :func:`~twosat_formal.core.records.read_record`: certificate, transforms and twin
        change included). The formula comes from the ``dimacs`` field and must agree
        with ``num_vars`` and ``num_clauses``.
        """

        def bad(message: str) -> RecordError:
            return RecordError(message, line=line, source=source)

        if isinstance(record, Mapping) and record.get("schema_version", SCHEMA_VERSION) != (
            SCHEMA_VERSION
        ):
            raise bad(
                f"schema_version {record.get('schema_version')!r} is not supported"
                f" (this version reads {SCHEMA_VERSION})"
            )
        read_record(InstanceRecord, record, what="an instance record", line=line, source=source)
        try:
            formula = parse_dimacs(record["dimacs"], source=source)
        except ParseError as exc:
            raise bad(f"field 'dimacs': {exc}") from None
        if (formula.num_vars, formula.num_clauses) != (record["num_vars"], record["num_clauses"]):
            raise bad(
                f"dimacs has {formula.num_vars} variables and {formula.num_clauses} clauses,"
                f" the record says {record['num_vars']} and {record['num_clauses']}"
            )
        twin_of, change = record.get("twin_of"), record.get("change")
        if (twin_of is None) != (change is None):
            raise bad("a twin record has both 'twin_of' and a 'change' object")
        return cls(
            id=record["id"],
            family=record["family"],
            params=dict(record["params"]),
            seed=record["seed"],
            formula=formula,
            label=record["label"],
            certificate=dict(record["certificate"]),
            structure=dict(record["structure"]),
            provenance=dict(record["provenance"]),
            base_id=record.get("base_id"),
            transforms=tuple(record.get("transforms", [])),
            twin_of=twin_of,
            change=None if change is None else dict(change),
            measures=None if record.get("measures") is None else dict(record["measures"]),
        )


def read_instances(path: str | Path) -> Iterator[Instance]:
    """Read instances from a JSON Lines file (``"-"`` is stdin), lazily; blank lines skipped.

    Raises
    ------
    RecordError
        With the line number for bad JSON or a malformed record.
    """
    for line in read_json_lines(path):
        yield Instance.from_record(line.value, line=line.number, source=line.source)


def write_instances(instances: Iterable[Instance], path_or_stream: str | Path | TextIO) -> int:
    """Write instances as JSON Lines to a path (``"-"``: stdout) or an open text stream.

    Returns the number of records written.

    >>> import io
    >>> write_instances([], io.StringIO())
    0
    """
    return write_lines((instance.to_json() for instance in instances), path_or_stream)


def first_of_each_id(
    records: Iterable[tuple[str, T]], *, seen: set[str] | None = None
) -> Iterator[T]:
    """The lines of ``(id, line)`` pairs, each id once: at its first place, later ones left out.

    A command that reads a dataset and writes derived records (``perturb``, ``edit``,
    ``pairs``) can meet a record it derives already in its input, as when it reads its
    own output: ids are content hashes of the root id and the chain (with its seed), so
    the same id is the same derivation. Writing each id once, at its first place, keeps
    the ids of the output unique and the output a function of the input alone.

    ``seen`` (updated in place) holds the ids written before, when the output is
    written in several calls; a line may be any value carried with its id.

    >>> list(first_of_each_id([("a", "1"), ("b", "2"), ("a", "3")]))
    ['1', '2']
    """
    if seen is None:
        seen = set()
    for record_id, line in records:
        if record_id not in seen:
            seen.add(record_id)
            yield line


def refuse_edited(
    instance: Instance,
    command: str,
    *,
    modes: Collection[str] | None = None,
    line: int | None = None,
    source: str | None = None,
) -> Instance:
    """``instance``, unless it holds edit steps (of ``modes``): :class:`RecordError` then.

    A record's chain is its perturbation steps, then its edit steps (an ``edit`` run,
    mode ``cumulative`` or ``individual``, or a ``pairs`` twin, mode ``twin``).
    ``perturb`` starts a chain, so it takes no record with edit steps; ``edit`` goes on
    from an edited record but not from a twin (``modes=("twin",)``). A record refused
    is named at its line, with what to give instead.

    >>> from dataclasses import replace
    >>> from twosat_formal.make.generators import generate
    >>> root = generate("backbone", clauses=6, seed=1)
    >>> refuse_edited(root, "perturb") is root
    True
    >>> twin = replace(root, id="r~t1", base_id="r", transforms=({"kind": "edit", "mode": "twin"},))
    >>> refuse_edited(twin, "edit", modes=("twin",), line=2, source="pairs.jsonl")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: pairs.jsonl:2: instance r~t1 holds twin steps: edit \
does not take it; give the records it was made from (base r)
    """
    steps = [step for step in instance.transforms if step.get("kind") == "edit"]
    if modes is not None:
        steps = [step for step in steps if step.get("mode") in modes]
    if steps:
        what = "/".join(sorted({str(step.get("mode") or "edit") for step in steps}))
        raise RecordError(
            f"instance {instance.id} holds {what} steps: {command} does not take it; "
            f"give the records it was made from (base {instance.base_id})",
            line=line,
            source=source,
        )
    return instance
