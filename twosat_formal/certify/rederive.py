"""Re-derive a record from what it says, for ``certify`` to compare byte for byte.

Each function takes a stored record (and the records it refers to) and returns the
record the tool would write again: a root from its family, params and seed; a derived
record from its root and its replayed, re-proven steps; an edited record from its
origin and its edits; a prompt from its instance, template and seed; a story from
its instance and the model's attested text. :func:`twosat_formal.core.fieldclass.compare_record`
then compares the two. Every function is pure (record in, record out) and raises a
:class:`~twosat_formal.errors.TwoSatFormalError` when a record cannot be re-derived.

An instance is re-derived without its structural measures
(:func:`twosat_formal.solve.measures.unmeasured`): the re-derived record holds the measures
the stored one claims, which ``certify`` checks on its own, by an algorithm apart from
the engine's (:func:`twosat_formal.solve.measures_check.check_measures`), so that they are
computed once per record. A record without ``measures`` (written before records carried
them) re-derives to a record without them.

Examples
--------
>>> from twosat_formal.make.generators import generate
>>> record = generate("backbone", clauses=8, seed=2).to_record()
>>> rederive_root(record) == record
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal._util.recent import Recent
from twosat_formal.core.formula import Formula
from twosat_formal.core.provenance import tool_version
from twosat_formal.errors import CertificateError, ConfigError, RecordError
from twosat_formal.io.instance import SCHEMA_VERSION, Instance, canonical_json
from twosat_formal.solve.measures import unmeasured

if TYPE_CHECKING:  # the edits are imported by the functions that replay them
    from twosat_formal.make.edits.classify import EditOutcome
    from twosat_formal.make.edits.operators import Edit

__all__ = [
    "origin_ids",
    "rederive_derived",
    "rederive_document",
    "rederive_prompt",
    "rederive_root",
    "rederive_story",
    "rederive_twin",
    "regenerable",
]


def regenerable(family: str, params: Mapping[str, Any]) -> bool:
    """Whether a root of ``family`` with ``params`` can be drawn again from its seed.

    >>> regenerable("backbone", {}), regenerable("file", {})
    (True, False)
    """
    from twosat_formal.make.generators import FAMILIES

    return family in FAMILIES and params.get("base_file") is None


@lru_cache(maxsize=256)
def _generate(family: str, params_json: str, seed: int) -> Instance:
    import json

    from twosat_formal.make.generators import generate

    return generate(family, seed=seed, **json.loads(params_json))


def _root_instance(record: Mapping[str, Any]) -> Instance:
    """The root a root record re-derives to (its family's draw, or its formula file's)."""
    from twosat_formal.make.edits.classify import root_instance

    family, params, seed = record["family"], record["params"], record["seed"]
    if regenerable(family, params):
        return _generate(family, canonical_json(params), seed)
    if family == "file":
        from twosat_formal.io.dsl import check_conversions

        inst = Instance.from_record(record)
        source = inst.provenance.get("source")
        lines = inst.provenance.get("formula_lines")
        conversions = () if lines is None else check_conversions(lines, inst.formula)
        return root_instance(
            inst.formula,
            source=source if isinstance(source, str) else None,
            conversions=conversions,
        )
    if params.get("base_file") is not None:
        return _from_base_file(family, params, seed)
    raise ConfigError(
        f"family {family!r} is not registered: the record cannot be re-derived",
        parameter="family",
    )


def _from_base_file(family: str, params: Mapping[str, Any], seed: int) -> Instance:
    """A root drawn from its base file, read in the dataset's folder only.

    The folder is :data:`~twosat_formal.make.generators.symmetry.BASE_FOLDER` (``certify``
    sets it to the dataset's), else the working folder; the file must lie in it
    (:func:`~twosat_formal.make.generators.symmetry.base_file_path`).
    """
    import os

    from twosat_formal.make.generators.symmetry import BASE_FOLDER, base_file_path

    folder = BASE_FOLDER.get() or Path(os.getcwd())
    path = base_file_path(str(params["base_file"]), folder)  # refused before any read
    token = BASE_FOLDER.set(folder)
    try:
        return _generate_in(family, canonical_json(params), seed, str(path.parent), _stamp(path))
    finally:
        BASE_FOLDER.reset(token)


def _stamp(path: Path) -> tuple[int, int, int]:
    """What tells one state of a file from another (inode, size, modification time)."""
    info = path.stat()
    return info.st_ino, info.st_size, info.st_mtime_ns


@lru_cache(maxsize=64)
def _generate_in(
    family: str, params_json: str, seed: int, folder: str, stamp: tuple[int, int, int]
) -> Instance:
    """:func:`_generate` of a root read from a base file (cached per file and its state)."""
    return _generate.__wrapped__(family, params_json, seed)


def rederive_root(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record of a root (no ``base_id``) drawn again from what it says.

    Raises
    ------
    ConfigError
        For a family that is not registered, or a base file that is not here.
    """
    with unmeasured():
        return _claimed(_root_instance(record), record)


def _claimed(instance: Instance, record: Mapping[str, Any]) -> dict[str, Any]:
    """The record of a re-derived ``instance``, with the measures ``record`` claims."""
    return replace(instance, measures=record.get("measures")).to_record()


def _root_for(record: Mapping[str, Any], root_record: Mapping[str, Any] | None) -> Instance:
    """The root of a derived record: drawn again when it can be, else the dataset's."""
    base_id = record["base_id"]
    if regenerable(record["family"], record["params"]):
        root = _generate(record["family"], canonical_json(record["params"]), record["seed"])
        if root.id != base_id:
            raise ConfigError(
                f"family, params and seed draw the root {root.id}, not base_id {base_id}"
            )
        return root
    if root_record is None:
        raise ConfigError(f"the base {base_id} is not in the dataset")
    if root_record.get("base_id") is not None:
        raise ConfigError(f"the base {base_id} is itself derived; base_id names the root")
    again = _root_instance(root_record)
    if again.id != base_id:
        raise ConfigError(f"the base record re-derives to {again.id}, not base_id {base_id}")
    return again


def _chain_seed(provenance: Mapping[str, Any], transforms: Sequence[Any]) -> int:
    """The chain seed in ``provenance.perturb``; it must draw the seeds of the last steps."""
    from twosat_formal.make.perturb import step_seeds

    info = provenance.get("perturb")
    seed = info.get("seed") if isinstance(info, Mapping) else None
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError("provenance.perturb.seed must be an integer")
    seeds = [t.seed for t in transforms]
    for k in range(1, len(seeds) + 1):
        if step_seeds(seed, k) == seeds[-k:]:
            return seed
    raise CertificateError(
        f"provenance.perturb.seed {seed} does not draw the seeds of the chain's last steps"
    )


def _replay_perturbations(
    root: Formula, steps: Sequence[Mapping[str, Any]]
) -> tuple[Formula, list[Any]]:
    """The formula and the transforms of ``steps`` replayed from ``root``, each proven.

    The steps' Z3 queries are asked as one at the end
    (:meth:`~twosat_formal.make.perturb.proofs.Z3Session.deferred`: unsat exactly when
    each is), and the Z3 time of that query is the last step's; when that query, or
    any step, fails, the steps are replayed again query by query, so that the failure
    is the first failing step's, with its message and counterexample, as always.
    """
    from twosat_formal.make.perturb.proofs import session

    z3 = session()
    start = z3.seconds
    try:
        with z3.deferred():
            current, replayed = _replay_steps(root, steps)
    except Exception:  # replayed again below, query by query: the first failure is raised
        return _replay_steps(root, steps)
    if replayed and replayed[-1].proof is not None:  # the one query's time, with the last step
        proof = replayed[-1].proof
        asked = replace(proof, seconds=proof.seconds + z3.seconds - start)
        replayed[-1] = replayed[-1].with_proof(asked)
    return current, replayed


def _replay_steps(root: Formula, steps: Sequence[Mapping[str, Any]]) -> tuple[Formula, list[Any]]:
    """:func:`_replay_perturbations`, each step's proof asked as its prover asks it."""
    from twosat_formal.errors import ProofError
    from twosat_formal.make.perturb import Transform, replay_step

    current, replayed = root, []
    for i, step in enumerate(steps, 1):
        try:
            current, fresh = replay_step(current, Transform.from_json(step))
        except (ProofError, RecordError, ConfigError) as exc:
            raise _at_step(exc, i, str(step.get("operator"))) from None
        replayed.append(fresh)
    return current, replayed


def _at_step(exc: Exception, number: int, operator: str) -> Exception:
    """``exc``, marked with the step (1-based) and operator it failed at."""
    setattr(exc, "step", (number, operator))  # noqa: B010  (read by certify)
    return exc


def _split_chain(
    transforms: Sequence[Any],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The perturbation steps, then the edit steps, of a chain (edits come last)."""
    from twosat_formal.make.edits.classify import EDIT_KIND

    if not isinstance(transforms, list) or not all(isinstance(t, Mapping) for t in transforms):
        raise RecordError("field 'transforms' must be a list of objects")
    kinds = [t.get("kind") == EDIT_KIND for t in transforms]
    first_edit = kinds.index(True) if True in kinds else len(kinds)
    if not all(kinds[first_edit:]):
        raise RecordError("a perturbation step follows an edit step")
    return list(transforms[:first_edit]), list(transforms[first_edit:])


def origin_ids(record: Mapping[str, Any]) -> str:
    """The id of the instance a derived record's edits start from.

    >>> origin_ids({"base_id": "r", "transforms": [{"kind": "edit"}]})
    'r'
    """
    from twosat_formal.make.perturb import Transform
    from twosat_formal.make.perturb.instances import derived_id

    perturbations, _ = _split_chain(record.get("transforms", []))
    if not perturbations:
        return str(record["base_id"])
    return derived_id(str(record["base_id"]), [Transform.from_json(t) for t in perturbations])


def rederive_derived(
    record: Mapping[str, Any], root_record: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The record of a derived instance built again from its root and its steps.

    Perturbation steps are re-run from their parameters and seeds and proven again
    (:func:`~twosat_formal.make.perturb.replay_step`); edit steps must each be one of their
    operator's own options at their clause, are solved again, and rebuilt with
    :func:`~twosat_formal.make.edits.classify.build_edited` from the origin, mode and seed.

    Raises
    ------
    TwoSatFormalError
        When the root cannot be found or drawn, a step does not replay or prove, or an
        edit is not one its operator makes.
    """
    with unmeasured():
        return _claimed(_derived(record, root_record), record)


def _derived(record: Mapping[str, Any], root_record: Mapping[str, Any] | None) -> Instance:
    """The derived instance of :func:`rederive_derived`."""
    from twosat_formal.make.perturb.instances import derived_instance

    root = _root_for(record, root_record)
    perturbations, edits = _split_chain(record["transforms"])
    provenance = record.get("provenance")
    if not isinstance(provenance, Mapping):
        raise RecordError("field 'provenance' must be an object")
    origin = root
    if perturbations:
        formula, replayed = _replay_perturbations(root.formula, perturbations)
        origin = derived_instance(root, replayed, formula, seed=_chain_seed(provenance, replayed))
    if not edits:
        if not perturbations:
            raise RecordError("a record with a base_id needs transforms")
        return origin
    return _rederive_edits(origin, edits)


def _is_option(formula: Formula, edit: Any) -> bool:
    """Whether ``edit`` is one of its operator's own options at its clause."""
    from twosat_formal.make.edits.operators import EDITS

    return EDITS.get(edit.operator).is_option(formula, edit)


def _rederive_edits(origin: Instance, steps: Sequence[Mapping[str, Any]]) -> Instance:
    """The edited instance of ``steps`` on ``origin``: one run of ``edit`` per level 1."""
    groups: list[list[Mapping[str, Any]]] = []
    for step in steps:
        if step.get("level") == 1 or not groups:
            groups.append([])
        groups[-1].append(step)
    done = len(origin.transforms)
    for group in groups:
        try:
            origin = _rederive_edit_run(origin, group)
        except (CertificateError, ConfigError, RecordError) as exc:
            raise _at_step(exc, done + getattr(exc, "level", 1), "edit") from None
        done += len(group)
    return origin


def _rederive_edit_run(origin: Instance, steps: Sequence[Mapping[str, Any]]) -> Instance:
    """One run of ``edit`` (steps numbered from level 1) rebuilt on ``origin``."""
    from twosat_formal.make.edits.classify import build_edited

    first = steps[0]
    mode, seed = first.get("mode"), first.get("seed")
    if not isinstance(mode, str) or not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError("an edit step needs a string mode and an integer seed")
    if mode != "cumulative" and len(steps) != 1:
        raise CertificateError(f"a {mode} edit record holds one edit, not {len(steps)}")
    outcomes = []
    current = origin.formula
    for level, step in enumerate(steps, 1):
        try:
            outcome = _replayed(current, origin.label, step, level, mode)
        except (CertificateError, ConfigError, RecordError) as exc:
            setattr(exc, "level", level)  # noqa: B010  (the step's level, read by the caller)
            raise
        outcomes.append(outcome)
        current = outcome.formula
    return build_edited(origin, outcomes, mode=mode, seed=seed).instance


def _replayed(
    formula: Formula, label: str, step: Mapping[str, Any], level: int, mode: str
) -> EditOutcome:
    """The outcome of edit ``level`` of a run, proven one of its operator's changes (and,
    in a cumulative run, keeping the label)."""
    from twosat_formal.make.edits.classify import CHANGING
    from twosat_formal.make.edits.operators import Edit

    edit = Edit.from_json(step)
    if not _is_option(formula, edit):
        raise CertificateError(
            f"edit {level} ({edit.operator} at clause {edit.position + 1}) is not one "
            "of the changes its operator makes there"
        )
    outcome = _classified(formula, label, edit)
    if mode == "cumulative" and outcome.kind == CHANGING:
        raise CertificateError(f"cumulative edit {level} changes the label")
    return outcome


#: The last edits classified while re-deriving: ``(id of the formula, label, repr of
#: the edit) -> (formula, edit, outcome)``. The records of a cumulative chain (levels
#: 1, 2, ...) come one after another and each replays the chain's edits from the same
#: root, so all but the last edit of a record were classified for the record before it.
_CLASSIFIED: Recent[tuple[int, str, str], tuple[Formula, Edit, EditOutcome]] = Recent(64)


def _classified(formula: Formula, label: str, edit: Edit) -> EditOutcome:
    """``classify_edit(formula, label, edit)``, remembered for this very formula object.

    An entry holds its formula, so no other object can take its ``id`` while it is
    kept; it is used only for an equal edit of the same ``repr`` (the same fields,
    types and order). ``classify_edit`` is a pure function of the three, and an edit it
    refuses (an exception) is never remembered.
    """
    key = (id(formula), label, repr(edit))
    found = _CLASSIFIED.get(key)
    if found is not None and found[0] is formula and found[1] == edit:
        return found[2]
    from twosat_formal.make.edits.classify import classify_edit

    outcome = classify_edit(formula, label, edit)
    _CLASSIFIED.put(key, (formula, edit, outcome))
    return outcome


def rederive_document(record: Mapping[str, Any]) -> dict[str, Any]:
    """A ``perturb`` document of a formula file, built again from its base and steps.

    Its ``source`` is written again into the base text's ``c source:`` line, and the
    conversions of its DSL formula lines (``formula_lines``) are derived and proven
    again (:func:`~twosat_formal.io.dsl.check_conversions`).
    """
    from twosat_formal.io import parse_formula, write_dimacs
    from twosat_formal.make.perturb import Chain

    base = parse_formula(record["base_dimacs"], format="dimacs")
    result, replayed = _replay_perturbations(base, record["transforms"])
    source = record.get("source")
    header = None if source is None else {"source": source}
    document = {
        "schema_version": SCHEMA_VERSION,
        "source": source,
        "base_dimacs": write_dimacs(base, provenance=header),
        "dimacs": write_dimacs(result),
        "num_vars": result.num_vars,
        "num_clauses": result.num_clauses,
        "transforms": Chain(tuple(replayed)).to_json(),
    }
    if "formula_lines" in record:
        from twosat_formal.io.dsl import check_conversions

        lines = check_conversions(record["formula_lines"], base)
        document["formula_lines"] = [c.to_json() for c in lines]
    return document


def rederive_prompt(
    record: Mapping[str, Any],
    formula: Formula,
    transforms: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """A prompt record rendered again from its instance's formula, template and seed.

    The whole text (preamble, sentences, question, instructions, example JSON, and
    the contradiction-chain instruction when the record says ``ask_cycle``, the
    question block of its ``ask``), the entity map, the value words and the
    round-trip proof are re-made. A question type's reference answer is derived again
    by PySAT (:func:`~twosat_formal.certify.questions.recheck_reference`), a path apart
    from the one that wrote it. ``transforms``
    are the instance's: an edited instance's example JSON shows the entities of the
    formula its edits started from (:func:`~twosat_formal.verbalize.example_formula`).
    ``record`` is one that :meth:`~twosat_formal.verbalize.prompts.PromptRecord.from_record`
    has read (as ``certify`` reads it first): its fields' types are the model's
    (:class:`~twosat_formal.core.records.PromptRecordModel`), checked there once.
    """
    from twosat_formal.verbalize import example_formula, prompt_record

    if transforms is not None and not isinstance(transforms, list | tuple):
        raise RecordError("its instance's transforms must be a list")
    ask = record.get("ask", "decision")
    again = prompt_record(
        formula,
        record["template"],
        instance_id=record["instance_id"],
        seed=record["seed"],
        ask_cycle=record.get("ask_cycle", False),
        example_from=example_formula(formula, transforms),
        ask=ask,
    ).to_record()
    if ask != "decision":
        # the reference answer on a path of its own (PySAT), not the one that wrote it
        from twosat_formal.certify.questions import recheck_reference

        again["reference"] = recheck_reference(
            ask,
            formula,
            record.get("reference"),
            list(again["entities"]),
            again["true_value"],
            again["false_value"],
        )
    return again


def rederive_story(record: Mapping[str, Any], formula: Formula) -> dict[str, Any]:
    """A story record re-made from its instance's formula and the model's attested text.

    The attested parts (introduction, each attempt's clue and replies, the run's
    provenance but for its tool version, which is the running tool's) are taken as
    stored; everything else is derived from them: the entity map from theme and seed,
    each attempt's reading and outcome, the accepted clue or the fallback sentence,
    the recovered formula, the story, the prompt, the proof, and the id, which binds
    the attested parts by their content hash.
    """
    from twosat_formal.verbalize.story.proof import rebuild_story
    from twosat_formal.verbalize.story.record import StoryRecord

    story = StoryRecord.from_record(record)
    again = rebuild_story(story, formula).to_record()
    again["provenance"] = {**again["provenance"], "tool_version": tool_version()}
    return again


def rederive_twin(
    record: Mapping[str, Any], source_record: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A minimal twin made again from its source (``twin_of``) with the change's seed."""
    from twosat_formal.evaluate.diagnostics.twins import twin_instance

    if source_record is None:
        raise ConfigError(f"its source {record.get('twin_of')} is not in the dataset")
    change = record.get("change")
    seed = change.get("seed") if isinstance(change, Mapping) else None
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError("field 'change' must be an object with an integer seed")
    with unmeasured():
        return _claimed(twin_instance(Instance.from_record(source_record), seed=seed), record)
