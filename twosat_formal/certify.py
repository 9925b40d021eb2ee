"""``certify``: re-check every record of a dataset, the CI gate for certified data.

For each instance record (one JSON object per line):

``record``
    The line is JSON, the fields are present and typed, the schema version is known,
    the DIMACS parses and agrees with ``num_vars`` / ``num_clauses``.
``solve:scc``, ``solve:pysat``, ``solve:z3``
    Each of the three backends solves the formula and agrees with the stored label
    (the ``scc`` backend once per record: when the re-derived record below holds
    exactly the stored DIMACS text, re-deriving solved that very formula with it, and
    its label is the backend's answer).
``certificate``
    The stored certificate (model or contradiction cycle) is re-checked by the
    certificate checker and certifies the stored label.
``regenerate``
    A root record of a registered family is drawn again from its family, params and
    seed, and must give the same id, formula and label (a root built from a formula
    file, ``base_file``, is drawn again from that file, which must be a regular file
    in the dataset's own folder: a record makes certify read no other file).
``transform[i]:<operator>``
    A derived record (``base_id`` set) starts from its root, found in the dataset or
    regenerated; each step is re-run from its recorded parameters and seed, must
    reproduce every recorded field, and its relation is proven again with Z3.
``transforms``
    The replayed chain gives exactly the record's formula.
``twin``
    A minimal twin (``twin_of`` set): its source is in the dataset, the recorded change
    is the one the source's structure gives, it turns the source into the twin, the two
    are one clause apart, and PySAT gives them opposite labels (see
    :func:`twosat_formal.diagnostics.twins.check_twin`).
``measures``
    The record's structural measures (shortest contradiction cycle, longest implication
    path, strong components, backbone, deepest forced literal, proof length) equal those
    derived again from its formula by code that shares nothing with the engine's
    (:func:`twosat_formal.measures_check.check_measures`). This is the one place they
    are computed: the record is re-derived without them
    (:func:`twosat_formal.measures.unmeasured`), holding the values checked here. A
    record without ``measures`` (written before records carried them) makes no claim,
    and the check is not run.

A prompt record (``instance_id`` and ``text``) is checked by ``record`` and
``roundtrip``: its text must parse back to its instance's formula (the instance must be
in the dataset), see :func:`twosat_formal.verbalize.check_roundtrip`. A story record
of the LLM story verbalizer (``"kind": "story"``) is checked by ``record`` and
``roundtrip``: its stored proof must say ``proved`` and its recovered formula must be
proven again to equal its instance's formula (the instance must be in the dataset),
see :func:`twosat_formal.verbalize.story.check_story_record`. A one-line
``perturb`` document (``base_dimacs``, ``dimacs``, ``transforms``) is checked by
``record`` and the transform checks.

Examples
--------
>>> import json, tempfile, os
>>> from twosat_formal.generators import generate
>>> inst = generate("implication-cycle", clauses=10, seed=1)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "data.jsonl")
...     with open(path, "w") as out:
...         _ = out.write(inst.to_json() + "\\n" + "{oops\\n")
...     report = certify_file(path)
>>> report.records, report.ok, [(f.line, f.check) for f in report.failures]
(2, False, [(2, 'record')])
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from twosat_formal.errors import ConfigError, RecordError, TwoSatFormalError
from twosat_formal.executors import Executor, LocalExecutor, ProcessExecutor
from twosat_formal.fieldclass import ATTESTED, CLASSES
from twosat_formal.formula import Formula
from twosat_formal.inputs import bounded_lines
from twosat_formal.jsonl import parse_line, refuse_empty
from twosat_formal.jsonread import loads
from twosat_formal.recent import Recent

if TYPE_CHECKING:
    from twosat_formal.certify_cache import CertifyCache

__all__ = [
    "BACKENDS",
    "CertifyReport",
    "CheckFailure",
    "RecordLog",
    "RecordResult",
    "certify_file",
    "certify_files",
    "certify_record",
    "revalidate_stories",
]

#: The solver backends that must agree with every stored label.
BACKENDS = ("scc", "pysat", "z3")


@dataclass(frozen=True)
class CheckFailure:
    """One failed check: the record (id and line), the check's name and what went wrong."""

    id: str | None
    line: int | None
    check: str
    message: str
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The failure as a JSON object."""
        return {
            "id": self.id,
            "line": self.line,
            "source": self.source,
            "check": self.check,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.source, self.line) if p is not None)
        who = self.id if self.id is not None else "(no id)"
        return f"{where} {who} [{self.check}] {self.message}".strip()


@dataclass(frozen=True)
class RecordResult:
    """The outcome of certifying one record."""

    id: str | None
    line: int | None
    source: str | None
    kind: str
    checks: int
    failures: tuple[CheckFailure, ...]
    seconds: float
    z3_seconds: float
    fields: Mapping[str, int] = field(default_factory=dict)
    #: Passed on an earlier run with these exact bytes and dependencies (``--cache``):
    #: no check ran (see :mod:`twosat_formal.certify_cache`).
    cached: bool = False


@dataclass(frozen=True)
class CertifyReport:
    """The outcome of certifying a dataset."""

    sources: tuple[str, ...]
    records: int
    checks: int
    failures: tuple[CheckFailure, ...]
    seconds: float
    z3_seconds: float
    kinds: Mapping[str, int] = field(default_factory=dict)
    fields: Mapping[str, int] = field(default_factory=dict)
    #: Fields of story records that are attested (what the story model wrote, bound
    #: into the record's id by a hash), not checked: only ``--revalidate`` asks about them.
    story_attested: int = 0
    #: Records that passed on an earlier run and were not checked again (``--cache``).
    cached: int = 0

    @property
    def attested_line(self) -> str:
        """One plain sentence on the story fields taken on trust ("" without stories).

        >>> CertifyReport((), 1, 1, (), 0.0, 0.0, story_attested=6).attested_line
        '6 story fields are attested, not checked: bound to the record id by a hash; \
--revalidate asks a validator about them again'
        """
        if not self.story_attested:
            return ""
        return (
            f"{self.story_attested} story fields are attested, not checked: bound to the "
            "record id by a hash; --revalidate asks a validator about them again"
        )

    @property
    def ok(self) -> bool:
        """Whether every check of every record passed (and there was a record)."""
        return not self.failures and self.records > 0

    @property
    def failing_ids(self) -> list[str | None]:
        """The ids of the failing records, in file order, each once."""
        seen: dict[str | None, None] = {}
        for failure in self.failures:
            seen.setdefault(failure.id, None)
        return list(seen)

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object (``certify --json``)."""
        return {
            "ok": self.ok,
            "sources": list(self.sources),
            "records": self.records,
            "kinds": dict(self.kinds),
            "fields": dict(self.fields),
            "story_fields_attested": self.story_attested,
            "checks": self.checks,
            "cached": self.cached,
            "failed_records": len(self.failing_ids),
            "failures": [f.to_json() for f in self.failures],
            "seconds": round(self.seconds, 6),
            "z3_seconds": round(self.z3_seconds, 6),
        }


class RecordLog(Protocol):
    """Where :func:`certify_files` hands each record's result, in file order, as it comes
    (a report that lists every record, such as JUnit's test cases, writes from it)."""

    def add(self, result: RecordResult) -> None:
        """Keep one record's result."""

    def restart(self) -> None:
        """Forget every result kept: the dataset is certified again from its first record."""


# -- the checks of one record ------------------------------------------------------------------


class _Stop(Exception):
    """A check failed in a way that makes the remaining checks meaningless."""


class _Checker:
    def __init__(self, record_id: str | None, line: int | None, source: str | None) -> None:
        self.id = record_id
        self.line = line
        self.source = source
        self.checks = 0
        self.failures: list[CheckFailure] = []
        self.z3_seconds = 0.0
        self.fields: dict[str, int] = {}

    def fail(self, check: str, message: str) -> None:
        self.failures.append(CheckFailure(self.id, self.line, check, message, self.source))

    def run(self, check: str, action: Callable[[], Any], *, stop: bool = False) -> Any:
        """Run one check; record a failure instead of raising. ``stop``: abort on failure."""
        self.checks += 1
        try:
            return action()
        except TwoSatFormalError as exc:
            self.fail(check, str(exc))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            self.fail(check, f"{type(exc).__name__}: {exc}")
        if stop:
            raise _Stop
        return None


@dataclass(frozen=True)
class _Task:
    source: str | None
    line: int | None
    record: Any
    base: Any = None
    instance: Any = None
    twin_source: Any = None
    #: The lines ``record`` and ``instance`` were parsed from, when read from a file.
    raw: bytes | None = None
    instance_raw: bytes | None = None
    #: Whether a prompt or story of the dataset names ``record`` as its instance.
    verbalized: bool = False


def _kind(record: Any) -> str:
    from twosat_formal.verbalize.story.record import is_story_record

    if isinstance(record, Mapping):
        if is_story_record(record):
            return "story"
        if "instance_id" in record and "text" in record:
            return "prompt"
        if "base_dimacs" in record and "id" not in record:
            return "document"
    return "instance"


def _compare(c: _Checker, check: str, kind: str, record: Any, expected: Any) -> None:
    """Compare a record with its re-derived form; one failure listing the differences."""
    from twosat_formal.fieldclass import compare_record

    result = compare_record(kind, record, expected)
    for cls, n in result.counts.items():
        c.fields[cls] = c.fields.get(cls, 0) + n
    if result.differences:
        c.fail(check, "does not re-derive: " + "; ".join(result.differences))


@dataclass(frozen=True)
class _Derived:
    """The outcome of one re-derivation, run before its check is counted.

    An instance is re-derived before its solver checks so that the ``scc`` backend's
    answer can be read off the re-derived record (:func:`_scc_label`); its failures
    are still reported after those checks, in the order they always were.
    """

    value: Any = None
    error: Exception | None = None

    @classmethod
    def of(cls, derive: Callable[[], Any]) -> _Derived:
        try:
            return cls(value=derive())
        except Exception as exc:  # a re-derivation that cannot run is a failure, never a pass
            return cls(error=exc)


def _rederive(c: _Checker, check: str, kind: str, record: Any, derived: _Derived) -> None:
    """Report one re-derivation as a check; a failing step is named ``transform[i]:<op>``."""
    c.checks += 1
    exc = derived.error
    if isinstance(exc, TwoSatFormalError):
        step = getattr(exc, "step", None)
        c.fail(f"transform[{step[0]}]:{step[1]}" if step else check, str(exc))
        return
    if exc is not None:
        c.fail(check, f"{type(exc).__name__}: {exc}")
        return
    expected = derived.value
    c.z3_seconds += _proof_seconds(expected)
    _compare(c, check, kind, record, expected)


def _scc_label(record: Any, derived: _Derived | None) -> str | None:
    """The ``scc`` backend's label of ``record``'s formula, when the re-derivation has it.

    Re-deriving an instance solves its formula with the ``scc`` backend (and checks
    the certificate) to write the label. When the re-derived record has exactly the
    stored DIMACS text, that is the same formula (parsing inverts writing), so its
    label is what the backend answers for the stored formula, and it is not solved
    twice. Otherwise (no re-derivation, another text, another backend): ``None``.
    """
    again = None if derived is None else derived.value
    if not isinstance(again, Mapping) or not isinstance(record, Mapping):
        return None
    dimacs = record.get("dimacs")
    if not isinstance(dimacs, str) or again.get("dimacs") != dimacs:
        return None
    certificate = again.get("certificate")
    if not isinstance(certificate, Mapping) or certificate.get("backend") != "scc":
        return None
    label = again.get("label")
    if certificate.get("checked") is not True or certificate.get("status") != label:
        return None
    return label if label in ("SAT", "UNSAT") else None


def _proof_seconds(expected: Any) -> float:
    """The seconds the re-derivation spent proving (steps' proofs, round trips)."""
    total = 0.0
    if not isinstance(expected, Mapping):
        return total
    for step in expected.get("transforms") or ():
        proof = step.get("proof") if isinstance(step, Mapping) else None
        if isinstance(proof, Mapping) and isinstance(proof.get("seconds"), int | float):
            total += float(proof["seconds"])
    roundtrip = expected.get("roundtrip")
    if isinstance(roundtrip, Mapping) and isinstance(roundtrip.get("time_s"), int | float):
        total += float(roundtrip["time_s"])
    return total


def _check_instance(c: _Checker, task: _Task) -> None:
    from twosat_formal.instance import Instance
    from twosat_formal.measures_check import check_measures
    from twosat_formal.solve import check_certificate_json, decide

    inst = c.run(
        "record",
        lambda: Instance.from_record(task.record, line=task.line, source=task.source),
        stop=True,
    )
    c.id = inst.id
    formula = inst.formula
    if task.raw is not None and task.verbalized:  # for its prompts and stories
        _formulas_by_line.put(task.raw, formula)

    def two_sat() -> None:
        if formula.is_2cnf:  # cached: the solver backends ask it again
            return
        wide = next((i for i, cl in enumerate(formula.clauses) if len(cl) > 2), None)
        if wide is not None:
            raise ConfigError(
                f"clause {wide + 1} has {len(formula.clauses[wide])} literals: "
                "the benchmark is 2-SAT"
            )

    c.run("2-sat", two_sat, stop=True)
    record = task.record
    check, derived = _derivation(inst, task)
    known = _scc_label(record, derived)
    for backend in BACKENDS:

        def agree(backend: str = backend) -> None:
            start = time.perf_counter()
            status = known if backend == "scc" and known is not None else decide(formula, backend)
            if backend == "z3":
                c.z3_seconds += time.perf_counter() - start
            if status != inst.label:
                raise ConfigError(
                    f"the {backend} backend finds {status}, the record says {inst.label}"
                )

        c.run(f"solve:{backend}", agree)

    def certificate() -> None:
        status = inst.certificate.get("status")
        if status != inst.label:
            raise ConfigError(f"the certificate is for {status!r}, the label is {inst.label!r}")
        check_certificate_json(formula, inst.certificate)

    c.run("certificate", certificate)
    if "measures" in task.record:  # absent: no claim (a record older than the measures)
        c.run("measures", lambda: check_measures(formula, task.record["measures"]))
    if inst.twin_of is not None:
        c.run("twin", lambda: _check_twin(inst, task.twin_source))
    if derived is None:
        c.run("transforms", _raise("a record with transforms needs a base_id"))
        return
    _rederive(c, check, "instance", record, derived)


def _derivation(inst: Any, task: _Task) -> tuple[str, _Derived | None]:
    """The check that re-derives an instance and its outcome (``None``: it cannot be)."""
    from twosat_formal.rederive import rederive_derived, rederive_root, rederive_twin

    record = task.record
    if inst.twin_of is not None:
        return "twin", _Derived.of(lambda: rederive_twin(record, task.twin_source))
    if inst.base_id is None:
        if inst.transforms:
            return "transforms", None
        return "regenerate", _Derived.of(lambda: rederive_root(record))
    return "transforms", _Derived.of(lambda: rederive_derived(record, task.base))


def _check_twin(twin: Any, source_record: Any) -> None:
    from twosat_formal.diagnostics.twins import check_twin
    from twosat_formal.instance import Instance

    source = None if source_record is None else Instance.from_record(source_record)
    check_twin(twin, source)


def _raise(message: str) -> Callable[[], None]:
    def action() -> None:
        raise ConfigError(message)

    return action


def _instance_formula(task: _Task, instance_id: str) -> Formula:
    if task.instance is None:
        raise ConfigError(f"its instance {instance_id} is not in the dataset")
    line = task.instance_raw
    found = None if line is None else _formulas_by_line.get(line)
    if found is None:
        found = _instance_formulas.get(task.instance)
        if line is not None:
            _formulas_by_line.put(line, found)
    return found


#: The formulas of the last instance records read, by the exact bytes of their line:
#: an instance record's ``record`` check reads its formula, and the prompts and stories
#: of that instance, which usually come after all the instances, find it here by their
#: instance's line instead of reading the record again. Only a formula that was read is
#: kept, and only for an instance that some prompt or story of the dataset names (the
#: index knows which: :attr:`_Line.verbalized`), so the instances no record asks for
#: (edits, fillers, roots) do not push out those that are asked for; as many as a
#: dataset's verbalized instances, typically (a few MB at most).
_formulas_by_line: Recent[bytes, Formula] = Recent(512)


def _record_formula(record: Any) -> Formula:
    """The formula of the instance record ``record``, read once per text (:func:`_formula_of`)."""
    from twosat_formal.instance import Instance

    try:
        text = json.dumps(record, allow_nan=False)
    except (TypeError, ValueError):
        return Instance.from_record(record).formula
    return _formula_of(text)


class _FormulaByRecord:
    """The formulas of the last instance records asked for, by the record object itself.

    The prompts and stories of one instance come together and, read in one process,
    share one record object (:func:`_reference`), so its formula is found without
    writing the record as text again. An entry holds its record, so no other object
    can take its ``id`` while it is kept; the records are never changed.
    """

    def __init__(self, size: int) -> None:
        self.recent: Recent[int, tuple[Any, Formula]] = Recent(size)

    @property
    def entries(self) -> OrderedDict[int, tuple[Any, Formula]]:
        """The entries kept, least recently used first."""
        return self.recent.entries

    def get(self, record: Any) -> Formula:
        """The formula of ``record`` (raises as :func:`_record_formula` does)."""
        entry = self.recent.get(id(record))
        if entry is not None and entry[0] is record:
            return entry[1]
        formula = _record_formula(record)
        self.recent.put(id(record), (record, formula))
        return formula

    def cache_clear(self) -> None:
        """Forget every entry."""
        self.recent.cache_clear()


_instance_formulas = _FormulaByRecord(64)


@lru_cache(maxsize=64)
def _formula_of(text: str) -> Formula:
    """The formula of the instance record ``text`` (JSON), read once per process.

    The prompts and stories of one instance usually come together; a pure function of
    the record's text, so a prompt is checked against exactly its instance's formula.
    """
    from twosat_formal.instance import Instance

    return Instance.from_record(loads(text, source="<record>")).formula


def _check_verbalization(c: _Checker, task: _Task, kind: str) -> None:
    """A prompt or story record: read it, then re-derive it from its instance's formula."""
    from twosat_formal.prompts import PromptRecord
    from twosat_formal.rederive import rederive_prompt, rederive_story
    from twosat_formal.verbalize.story.record import StoryRecord

    reader = PromptRecord.from_record if kind == "prompt" else StoryRecord.from_record
    record = c.run(
        "record",
        lambda: reader(task.record, line=task.line, source=task.source),
        stop=True,
    )
    c.id = record.id

    def again() -> dict[str, Any]:
        formula = _instance_formula(task, record.instance_id)
        if kind == "story":
            return rederive_story(task.record, formula)
        # an edited instance's example JSON shows the entities of its unedited formula
        instance = task.instance if isinstance(task.instance, Mapping) else {}
        return rederive_prompt(task.record, formula, instance.get("transforms"))

    _rederive(c, "roundtrip", kind, task.record, _Derived.of(again))


def _check_prompt(c: _Checker, task: _Task) -> None:
    _check_verbalization(c, task, "prompt")


def _check_story(c: _Checker, task: _Task) -> None:
    _check_verbalization(c, task, "story")


def _check_document(c: _Checker, task: _Task) -> None:
    from twosat_formal.rederive import rederive_document

    record = task.record
    _rederive(c, "transforms", "document", record, _Derived.of(lambda: rederive_document(record)))


def _dataset_folder(source: str | None) -> Path:
    """The folder of the dataset file ``source`` (the working folder for stdin or none)."""
    if source is None or source.startswith("<"):
        return Path.cwd()
    return Path(source).parent


def _certify(task: _Task) -> RecordResult:
    from twosat_formal.generators.symmetry import BASE_FOLDER

    token = BASE_FOLDER.set(_dataset_folder(task.source))  # base files: the dataset's only
    try:
        return _certify_in_folder(task)
    finally:
        BASE_FOLDER.reset(token)


def _certify_in_folder(task: _Task) -> RecordResult:
    start = time.perf_counter()
    record = task.record
    record_id = record.get("id") if isinstance(record, Mapping) else None
    c = _Checker(record_id if isinstance(record_id, str) else None, task.line, task.source)
    kind = _kind(record)
    try:
        if isinstance(record, RecordError):

            def malformed() -> None:
                raise record

            c.run("record", malformed, stop=True)
        if not isinstance(record, Mapping):
            c.run("record", _raise("a record must be a JSON object"), stop=True)
        checks = {
            "prompt": _check_prompt,
            "story": _check_story,
            "document": _check_document,
            "instance": _check_instance,
        }
        checks[kind](c, task)
    except _Stop:
        pass
    return RecordResult(
        id=c.id,
        line=task.line,
        source=task.source,
        kind=kind if not isinstance(record, RecordError) else "malformed",
        checks=c.checks,
        failures=tuple(c.failures),
        seconds=time.perf_counter() - start,
        z3_seconds=c.z3_seconds,
        fields=dict(c.fields),
    )


def certify_record(
    record: Mapping[str, Any],
    *,
    line: int | None = None,
    source: str | None = None,
    base: Mapping[str, Any] | None = None,
    instance: Mapping[str, Any] | None = None,
) -> list[CheckFailure]:
    """Certify one record; the failed checks (empty when it passes).

    Parameters
    ----------
    record:
        An instance record, a prompt record, a story record or a ``perturb`` document.
    line, source:
        Where the record was read (shown in failures).
    base:
        For a derived instance, its root's record (else the root is regenerated).
    instance:
        For a prompt or story record, its instance's record.

    Examples
    --------
    >>> from twosat_formal.generators import generate
    >>> record = generate("backbone", clauses=8, seed=2).to_record()
    >>> certify_record(record)
    []
    >>> record["label"] = "UNSAT"
    >>> sorted({f.check for f in certify_record(record)})
    ['certificate', 'regenerate', 'solve:pysat', 'solve:scc', 'solve:z3']
    """
    return list(_certify(_Task(source, line, record, base, instance)).failures)


# -- datasets ------------------------------------------------------------------------------------


class _Line(NamedTuple):
    """One record as read, for a worker to parse and check (raw bytes travel cheaply).

    ``refs`` are the ids the record refers to (its root, its instance, its twin's
    source), as the reader found them by a quick scan of the text (:func:`_scan`), and
    ``found`` the raw lines of the records with those ids (``None``: no such record).
    ``verbalized``: some prompt or story names the record (by its id) as its instance.
    """

    source: str
    line: int
    raw: bytes
    refs: tuple[str | None, ...]
    found: tuple[bytes | None, ...]
    verbalized: bool = False
    #: The id and instance id the index filed the line under when it read them without
    #: parsing (:func:`_filing`), for the worker to confirm; ``None``: read exactly.
    filed: tuple[str | None, str | None] | None = None
    #: Whether the index read some lines without parsing them: the worker then also
    #: confirms that each line found for a reference has that id.
    quick: bool = False


class _Misread(NamedTuple):
    """A worker's answer when the scan misread a record's references: the true ones."""

    item: _Line
    refs: tuple[str | None, ...]


class _Misfiled(NamedTuple):
    """A worker's answer when the index misread a record's id or instance id."""

    item: _Line


class _Reindex(Exception):
    """The quick index misread a line: the dataset is certified again on an exact one."""


#: Referenced records kept in memory (raw by the reader, parsed by each worker).
_CACHE_SIZE = 256

#: Byte offsets in a dataset file are below this (256 TiB): :class:`_Index` packs a
#: record's file, offset and line into one int.
_OFFSETS = 1 << 48

#: The fields that name another record: a derived instance's root, a prompt's
#: instance, a twin's source (the order of :class:`_Task`'s fields).
_REFERENCES = ("base_id", "instance_id", "twin_of")

#: How :func:`~twosat_formal.jsonl.json_line` writes each of them with a string value.
_MARKS = tuple(f'"{key}": "'.encode() for key in _REFERENCES)


def _scan(raw: bytes) -> tuple[str | None, ...]:
    """The references a record's line appears to hold, read without parsing it.

    A guess, as fast as a byte search: the first ``"base_id": "`` and so on, up to the
    next quote. The worker that parses the line compares it with the record's true
    references (:func:`_references`) and a record it misread is checked again with
    those (:class:`_Misread`), so a wrong guess costs time, never a wrong check.

    >>> _scan(b'{"id": "p", "instance_id": "i-1", "text": "..."}')
    (None, 'i-1', None)
    """
    refs: list[str | None] = []
    for mark in _MARKS:
        at = raw.find(mark)
        if at < 0:
            refs.append(None)
            continue
        start = at + len(mark)
        try:
            refs.append(raw[start : raw.find(b'"', start)].decode("utf-8"))
        except UnicodeDecodeError:
            refs.append(None)
    return tuple(refs)


#: How :func:`~twosat_formal.jsonl.json_line` writes a record's id with a string value.
_ID_MARK = b'"id": "'
#: The bytes of a line in which :func:`_filing` looks for the id and the instance id.
_OPENING = 512


def _filing(raw: bytes) -> tuple[str | None, str | None] | None:
    """The id and instance id a record's line appears to hold, read without parsing it.

    ``None`` (parse the line) unless the line opens as the tool writes a record: its
    first :data:`_OPENING` bytes hold ``"id": "`` and its value, without escapes, and
    it ends with a closing brace; the instance id is the value after the first
    ``"instance_id": "`` there, if any. The marks' quotes cannot lie inside a JSON
    string (a quote there is escaped), so each is a key of some object; the worker
    confirms the guess against the parsed record (:func:`_filed`), and a dataset with
    a misread line (a nested ``id`` before the record's, a repeated key, a line that
    is not JSON) is certified again on an index that parses every line.

    >>> _filing(b'{"schema_version": 1, "id": "p", "instance_id": "i-1", "text": "..."}')
    ('p', 'i-1')
    >>> _filing(b'{"id":"p"}') is None, _filing(b'{"id": "a\\\\"b"}') is None
    (True, True)
    """
    if not raw.rstrip().endswith(b"}"):
        return None
    found: list[str | None] = []
    for mark in (_ID_MARK, _MARKS[1]):
        at = raw.find(mark, 0, _OPENING)
        end = raw.find(b'"', at + len(mark), _OPENING) if at >= 0 else -1
        if end < 0:
            if mark is _ID_MARK:
                return None
            found.append(None)
            continue
        value = raw[at + len(mark) : end]
        if b"\\" in value:
            return None
        try:
            found.append(value.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return found[0], found[1]


def _filed(record: Any) -> tuple[str | None, str | None]:
    """The id and instance id under which the exact index files ``record``."""
    if not isinstance(record, Mapping):
        return None, None
    key, instance = record.get("id"), record.get("instance_id")
    return (key if isinstance(key, str) else None), (
        instance if isinstance(instance, str) else None
    )


def _references(record: Any) -> tuple[str | None, ...]:
    """The ids ``record`` refers to (``None`` where a field is absent or not a string)."""
    if not isinstance(record, Mapping):
        return (None,) * len(_REFERENCES)
    values = (record.get(key) for key in _REFERENCES)
    return tuple(value if isinstance(value, str) else None for value in values)


def _value(raw: bytes, number: int, path: str) -> Any:
    """The JSON value of one line, or a :class:`RecordError` saying why it has none."""
    try:
        return parse_line(raw.decode("utf-8"), path, number)
    except UnicodeDecodeError as exc:
        return RecordError(f"not UTF-8 text (byte {exc.start})", line=number, source=path)
    except RecordError as exc:
        return exc


@lru_cache(maxsize=_CACHE_SIZE)
def _reference(raw: bytes) -> Any:
    """A referenced record, parsed once per process (many records share one root)."""
    return parse_line(raw.decode("utf-8"), "<record>", 0)


def _task(item: _Line, record: Any) -> _Task:
    base, instance, twin_source = (None if raw is None else _reference(raw) for raw in item.found)
    return _Task(
        item.source,
        item.line,
        record,
        base,
        instance,
        twin_source,
        item.raw,
        item.found[1],
        item.verbalized,
    )


def _check_line(item: _Line | RecordResult) -> RecordResult | _Misread | _Misfiled:
    """Parse one record and certify it: the work each worker does (a result already
    known, a record that passed before as it is, ``--cache``, is answered as it is)."""
    if isinstance(item, RecordResult):
        return item
    record = _value(item.raw, item.line, item.source)
    refs = _references(record)
    if refs != item.refs:
        return _Misread(item, refs)
    if _misfiled(item, record):
        return _Misfiled(item)
    return _certify(_task(item, record))


def _misfiled(item: _Line, record: Any) -> bool:
    """Whether the quick index misread ``item``'s line (``record`` is its parsed value)
    or filed a line found for one of its references under an id its record does not
    have. ``item`` holds its true references; from an exact index, never."""
    if not item.quick:
        return False
    if item.filed is not None and _filed(record) != item.filed:
        return True
    for key, raw in zip(item.refs, item.found, strict=True):
        if raw is None:
            continue
        try:
            found = _reference(raw)
        except ValueError:  # not JSON, or not UTF-8
            return True
        if _filed(found)[0] != key:
            return True
    return False


#: What the checks import, imported by each worker as it starts (beside the reading).
_PRELOAD = (
    "twosat_formal.instance",
    "twosat_formal.solve",
    "twosat_formal.measures_check",
    "twosat_formal.rederive",
    "twosat_formal.prompts",
    "twosat_formal.verbalize.roundtrip",
    "twosat_formal.verbalize.story.record",
    "twosat_formal.perturb",
    "twosat_formal.edits",
    "twosat_formal.generators",
    "pysat.solvers",
    "z3",
)


def _preload() -> None:
    """Import what the checks need (a worker's start-up; a module missing is no error here)."""
    import importlib
    from contextlib import suppress

    for name in _PRELOAD:
        with suppress(ImportError):  # the check that needs it reports it
            importlib.import_module(name)


class _Index:
    """Where the record of each id is: ``id -> (file, byte offset, line)``.

    The first pass over the files keeps only this, never the records, so memory grows
    by the id and one int per record (about 150 bytes with the dict's slot: measured in
    ``docs/performance.md``); the second pass (:meth:`items`) reads each line
    again, unparsed, with the raw lines of the records it refers to (a derived
    instance's root, a prompt's instance, a twin's source) read back from their
    offsets through a small cache, since many records share one root.

    The first pass reads the id and instance id of a line written as the tool writes
    it without parsing the line (:func:`_filing`), unless ``exact``; such a line then
    tells its worker what it was filed under, and the worker confirms it from the
    parsed record (or answers :class:`_Misfiled`, and :func:`certify_files` starts
    again on an exact index). An index asked for ``only`` some records parses every
    line: it is a gate, and what it checks must not rest on a shortcut.
    """

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        exact: bool = False,
        only: Collection[str] | None = None,
    ) -> None:
        self.paths = [str(p) for p in paths]
        self.exact = exact or only is not None
        #: Where each id's record is, packed in one int (:meth:`place`): an int costs
        #: less than a tuple of three, and this dict is what grows with the records.
        self.where: dict[str, int] = {}
        self.duplicates: list[CheckFailure] = []
        self.records = 0
        self._files = max(1, len(self.paths))
        self._cache: Recent[int, bytes] = Recent(_CACHE_SIZE)
        _refuse_empty(self.paths)
        instances: set[str] = set()  # the ids that prompts and stories name as instance
        for number, path in enumerate(self.paths):
            for line, offset, raw in _raw_lines(path):
                self.records += 1
                filed = None if self.exact else _filing(raw)
                key, instance = _filed(_value(raw, line, path)) if filed is None else filed
                if instance is not None:
                    instances.add(instance)
                if key is None:
                    continue
                first = self.where.get(key)
                if first is None:
                    self.where[key] = self._pack(number, offset, line)
                    continue
                first_number, _, first_line = self.place(first)
                self.duplicates.append(
                    CheckFailure(
                        key,
                        line,
                        "record",
                        f"the id is used again (first on line {first_line} of "
                        f"{self.paths[first_number]})",
                        path,
                    )
                )
        #: Where the records named as instances are: the line of :meth:`spot`.
        self.verbalized = {self.spot(self.where[key]) for key in instances if key in self.where}
        #: The ids of the records to check (``None``: every record).
        self.wanted: set[str] | None = None
        if only is not None:
            wanted = self.wanted = self._named(only)
            self.duplicates = [d for d in self.duplicates if d.id in wanted]
            where = ", ".join(self.paths)
            self.duplicates += [  # an id asked for that no record has
                CheckFailure(key, None, "record", "no record has this id", where)
                for key in sorted(set(only) - set(self.where))
            ]
            self.records = sum(1 for key in wanted if key in self.where)

    def _pack(self, number: int, offset: int, line: int) -> int:
        """``(file number, byte offset, line)`` as one int, read back by :meth:`place`."""
        if offset >= _OFFSETS:
            raise ConfigError(f"{self.paths[number]}: a file over {_OFFSETS} bytes is too large")
        return (line * self._files + number) * _OFFSETS + offset

    def place(self, packed: int) -> tuple[int, int, int]:
        """``(file number, byte offset, line)`` of a value of :attr:`where`.

        >>> index = _Index.__new__(_Index); index._files = 3
        >>> index.place(index._pack(2, 12345, 7))
        (2, 12345, 7)
        """
        rest, offset = divmod(packed, _OFFSETS)
        line, number = divmod(rest, self._files)
        return number, offset, line

    def spot(self, packed: int) -> int:
        """The file number and byte offset of a value of :attr:`where` as one int, without
        its line (what :meth:`items` finds in :attr:`verbalized` for that line)."""
        return packed % (self._files * _OFFSETS)

    def _named(self, ids: Collection[str]) -> set[str]:
        """``ids`` and the ids of every record they name, and those name, and so on."""
        found: set[str] = set()
        todo = list(ids)
        while todo:
            key = todo.pop()
            if key in found:
                continue
            found.add(key)
            raw = self.raw(key)
            if raw is not None:
                refs = _references(_value(raw, 0, self.paths[self.place(self.where[key])[0]]))
                todo.extend(ref for ref in refs if ref is not None)
        return found

    def raw(self, key: str | None) -> bytes | None:
        """The raw line of the record whose id is ``key`` (``None`` if no record has it)."""
        if key is None or key not in self.where:
            return None
        packed = self.where[key]
        number, offset, _ = self.place(packed)
        found = self._cache.get(self.spot(packed))
        if found is not None:
            return found
        with open(self.paths[number], "rb") as stream:
            stream.seek(offset)
            found = stream.readline()
        self._cache.put(self.spot(packed), found)
        return found

    def line(self, item: _Line, refs: tuple[str | None, ...]) -> _Line:
        """``item`` with the references ``refs`` and the raw lines of their records."""
        return item._replace(refs=refs, found=tuple(self.raw(key) for key in refs))

    def items(self) -> Iterator[_Line]:
        """The lines of every file in order, unparsed, with the records they refer to
        (only those of the wanted ids, when the index was given some)."""
        for number, path in enumerate(self.paths):
            for line, offset, raw in _raw_lines(path):
                if self.wanted is not None and not self._wanted(raw, line, path):
                    continue
                verbalized = number * _OFFSETS + offset in self.verbalized
                filed = None if self.exact else _filing(raw)
                item = _Line(path, line, raw, (), (), verbalized, filed, not self.exact)
                yield self.line(item, _scan(raw))

    def _wanted(self, raw: bytes, line: int, path: str) -> bool:
        key = _filed(_value(raw, line, path))[0]
        return key is not None and self.wanted is not None and key in self.wanted

    def tasks(self) -> Iterator[_Task]:
        """The records of every file in order, parsed here, each with the records it refers to.

        Raises :class:`_Reindex` if the index misread a line (only when not exact).
        """
        for item in self.items():
            record = _value(item.raw, item.line, item.source)
            item = self.line(item, _references(record))
            if _misfiled(item, record):
                raise _Reindex
            yield _task(item, record)

    def certify(
        self, runner: Executor, cache: CertifyCache | None = None
    ) -> Iterator[RecordResult]:
        """Each record's result, in file order, the records checked on ``runner``
        (``cache``: the lines that passed before are marked, and this run's passes kept).

        Raises :class:`_Reindex` when a worker finds that the index misread a line.
        """
        items = self.items()
        results = (
            runner.map(_check_line, items)
            if cache is None
            else cache.map(runner, _check_line, items)
        )
        for result in results:
            if isinstance(result, _Misfiled):
                raise _Reindex
            if isinstance(result, _Misread):  # checked again here, with its true references
                item = self.line(result.item, result.refs)
                record = _value(item.raw, item.line, item.source)
                if _misfiled(item, record):
                    raise _Reindex
                result = _certify(_task(item, record))
            yield result


#: Below this many records ``jobs`` alone does not start worker processes: starting
#: them (each imports the solvers) costs more than checking a small dataset.
SMALL_DATASET = 64


def _refuse_empty(paths: Sequence[str]) -> None:
    for path in paths:
        refuse_empty(path, path)  # one rule for every command


def _raw_lines(path: str) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, bytes)`` of each non-blank line (bounded in length)."""
    offset = 0
    with open(path, "rb") as stream:
        for number, raw in enumerate(bounded_lines(stream, path, RecordError), 1):
            start, offset = offset, offset + len(raw)
            if raw.strip():
                yield number, start, raw


def _count_records(paths: Sequence[str]) -> int:
    """The non-blank lines of the files (a quick count, nothing parsed)."""
    _refuse_empty(paths)
    return sum(1 for path in paths for _ in _raw_lines(path))


def revalidate_stories(paths: Sequence[str | Path], model: Any) -> list[CheckFailure]:
    """Ask ``model`` again about every story record of the dataset (``--revalidate``).

    Each story whose instance is in the dataset is checked by
    :func:`twosat_formal.verbalize.story.revalidate.revalidate_story`; every problem is a
    failure of the check ``revalidate``, naming the record. The model is closed after.
    """
    import asyncio

    from twosat_formal.instance import Instance
    from twosat_formal.verbalize.story.record import StoryRecord, is_story_record
    from twosat_formal.verbalize.story.revalidate import revalidate_story

    index = _Index(paths, exact=True)

    async def run() -> list[CheckFailure]:
        failures: list[CheckFailure] = []
        try:
            for task in index.tasks():
                if not is_story_record(task.record) or task.instance is None:
                    continue
                try:
                    story = StoryRecord.from_record(task.record)
                    formula = Instance.from_record(task.instance).formula
                except TwoSatFormalError:
                    continue  # the ordinary checks report it
                for problem in await revalidate_story(story, formula, model):
                    failures.append(
                        CheckFailure(story.id, task.line, "revalidate", problem, task.source)
                    )
        finally:
            await model.aclose()
        return failures

    return asyncio.run(run())


def certify_files(
    paths: Sequence[str | Path],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[str] | None = None,
    cache: CertifyCache | None = None,
    records: RecordLog | None = None,
) -> CertifyReport:
    """Certify the records of several JSON Lines files as one dataset.

    Records may refer to each other across the files (a prompt to its instance, a
    derived instance to its root). The files are read twice, a line at a time: once
    to index where each id is, once to check each record, so memory does not grow
    with the records. The checks run on ``executor`` (default: ``jobs`` worker
    processes, or this process when ``jobs`` is 1 or the dataset has fewer than
    :data:`SMALL_DATASET` records), in file order; ``progress`` is
    called with ``(records done, records in all)`` after each record, and
    each record's result is added to ``records`` (a report writer's log of the records).
    With ``cache`` (:class:`~twosat_formal.certify_cache.CertifyCache`), a record that
    passed before with the same bytes, dependencies and tool is not checked again, and
    the cache is saved with this run's passes at the end.

    ``only`` restricts the checks to the records with these ids and every record they
    name (a prompt's instance, a derived instance's root, a twin's source), and so on:
    the records a judgement about them depends on. An id of ``only`` that no record
    has, or that two records have, is a failure.

    Raises
    ------
    ConfigError
        If ``jobs`` is below 1.
    OSError
        If a file cannot be read.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs!r}", parameter="jobs", valid=">= 1")
    start = time.perf_counter()
    owned = executor is None
    if executor is None:
        parallel = jobs > 1 and _count_records([str(p) for p in paths]) >= SMALL_DATASET
        executor = ProcessExecutor(jobs) if parallel else LocalExecutor()
    try:
        executor.start(_preload)  # the workers start up while the index is read
        try:
            tally = _tally(_Index(paths, only=only), executor, progress, cache, records)
        except _Reindex:  # a line the quick index misread: every record again, exactly
            if records is not None:
                records.restart()
            tally = _tally(_Index(paths, exact=True, only=only), executor, progress, cache, records)
    finally:
        if owned:
            executor.close()
    failures = tally.failures
    failures.sort(key=lambda f: (f.source or "", f.line or 0))
    if not tally.records:
        failures.append(
            CheckFailure(
                None,
                None,
                "dataset",
                "the dataset holds no record: an empty dataset certifies nothing",
                ", ".join(str(p) for p in paths),
            )
        )
    report = CertifyReport(
        sources=tuple(str(p) for p in paths),
        records=tally.records,
        checks=tally.checks,
        failures=tuple(failures),
        seconds=time.perf_counter() - start,
        z3_seconds=tally.z3_seconds,
        kinds=tally.kinds,
        fields=tally.fields,
        story_attested=tally.story_attested,
        cached=tally.cached,
    )
    if cache is not None:
        cache.save()
    return report


@dataclass
class _Tally:
    """What the records' results add up to, as they come."""

    failures: list[CheckFailure] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    fields: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    #: The records whose results came (a count: nothing is kept per record).
    records: int = 0
    checks: int = 0
    z3_seconds: float = 0.0
    story_attested: int = 0
    cached: int = 0


def _tally(
    index: _Index,
    executor: Executor,
    progress: Callable[[int, int], None] | None,
    cache: CertifyCache | None = None,
    records: RecordLog | None = None,
) -> _Tally:
    """Certify the records of ``index`` on ``executor`` and add up their results.

    Raises :class:`_Reindex` if the index misread a line (from the quick index only).
    """
    tally = _Tally()
    tally.failures.extend(index.duplicates)
    tally.checks += len(index.duplicates)
    for result in index.certify(executor, cache):
        if records is not None:
            records.add(result)
        tally.cached += result.cached
        tally.failures.extend(result.failures)
        tally.kinds[result.kind] = tally.kinds.get(result.kind, 0) + 1
        for cls, n in result.fields.items():
            tally.fields[cls] += n
        if result.kind == "story":
            tally.story_attested += result.fields.get(ATTESTED, 0)
        tally.records += 1
        tally.checks += result.checks
        tally.z3_seconds += result.z3_seconds
        if progress is not None:
            progress(tally.records, index.records)
    return tally


def certify_file(path: str | Path, *, jobs: int = 1) -> CertifyReport:
    """Certify every record of a JSON Lines dataset (see the module docstring).

    Parameters
    ----------
    path:
        The dataset file.
    jobs:
        Number of worker processes (1: check in this process).

    Returns
    -------
    CertifyReport
        Records, checks, failures (each naming the record's id, line and check),
        total seconds and the seconds spent in Z3.
    """
    return certify_files([path], jobs=jobs)
