"""The pipeline in a few names, for notebooks: ``import twosat_formal as tf``.

Each function is the library's own (no second implementation), with the arguments a
notebook has at hand: a formula or an instance, a prompt as :func:`verbalize` returns
it, an answer as a plain string.

* ``tf.parse``: text (DIMACS or DSL, detected) → :class:`~twosat_formal.core.formula.Formula`;
* ``tf.solve``: a formula (an instance's, or text) → its label and checked certificate;
* ``tf.generate``: family, clauses, seed, knobs → a labelled
  :class:`~twosat_formal.io.instance.Instance`;
* ``tf.perturb``: an instance (or formula) and operators → the derived instance, proven;
* ``tf.verbalize``: an instance (or formula) and a template → the prompt, whose
  ``.record()`` certifies;
* ``tf.certify``: records (instances, prompts) and files →
  :class:`~twosat_formal.certify.CertifyReport`;
* ``tf.evaluate``: models, prompts, a run store → the run's summary
  (``await tf.evaluate_async(...)`` where an event loop runs, as in Jupyter);
* ``tf.score``: an answer (a plain string), its prompt and instance →
  :class:`~twosat_formal.evaluate.scoring.Judgement`;
* ``tf.report``: a run store → the report folder (``report.md``, ``report.html``...).

Examples
--------
>>> import twosat_formal as tf
>>> inst = tf.generate("implication-cycle", clauses=8, seed=1)
>>> tf.solve(inst).status == inst.label
True
>>> prompt = tf.verbalize(inst, "door", seed=3)
>>> tf.certify(inst, prompt.record()).ok
True
>>> tf.score("The answer is: Yes", prompt, inst).decision
'SAT'
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal import _API
from twosat_formal.errors import ArgumentTypeError, ConfigError, expect_items, expect_type

if TYPE_CHECKING:
    from twosat_formal.certify import CertifyReport
    from twosat_formal.core.formula import Formula
    from twosat_formal.evaluate.models.base import Response
    from twosat_formal.evaluate.run import EvalItem, EvalSummary
    from twosat_formal.evaluate.scoring import Judgement
    from twosat_formal.evaluate.store import RunStore
    from twosat_formal.io.instance import Instance
    from twosat_formal.make.perturb.chain import StepSpec
    from twosat_formal.solve import SolveResult
    from twosat_formal.verbalize import Prompt

#: The names ``import twosat_formal as tf`` offers (``tf.<name>``), as the package lists them.
NAMES: tuple[str, ...] = _API
__all__ = ["NAMES", *NAMES]

PathLike = str | Path

#: What a path argument may be, as messages say it.
_PATH = "a path (a str or os.PathLike)"


def _path(value: object, parameter: str) -> Path:
    """``value`` as a path: a str or :class:`os.PathLike`, not empty.

    Raises
    ------
    ArgumentTypeError
        ``value`` is no str or path.
    ConfigError
        ``value`` is empty (``""`` would name the working folder).
    """
    expect_type(value, (str, os.PathLike), parameter=parameter, valid=_PATH)
    path = os.fspath(value)  # type: ignore[call-overload]
    expect_type(path, str, parameter=parameter, valid=_PATH)
    if not path:
        raise ConfigError(f"{parameter} is an empty path", parameter=parameter, valid=_PATH)
    return Path(path)


def _known_options(function: Any, options: Mapping[str, Any], given: int) -> None:
    """Refuse an option ``function`` does not take, before any work; its first ``given``
    parameters are those the calling function passes itself.

    Raises
    ------
    ArgumentTypeError
        An option ``function`` does not take (a :class:`TypeError`, as Python's is).
    """
    import inspect

    parameters = list(inspect.signature(function).parameters.values())[given:]
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
        return
    known = [parameter.name for parameter in parameters]
    for name in options:
        if name not in known:
            raise ArgumentTypeError(
                f"{function.__name__}() got an unexpected keyword argument {name!r}",
                parameter=name,
                valid=", ".join(known),
            )


def parse(text: str, *, format: str | None = None) -> Formula:
    """A formula from DIMACS or DSL text (the format detected unless ``format`` is given).

    >>> parse("a | ~b\\nb").num_clauses
    2

    Raises
    ------
    ArgumentTypeError
        ``text`` is no str, or ``format`` neither a str nor ``None``.
    ConfigError
        ``format`` is no format's name.
    ParseError
        With the line and column of the first problem.
    """
    from twosat_formal.io import parse_formula

    expect_type(text, str, parameter="text", valid="formula text (a str)")
    if format is not None:
        expect_type(format, str, parameter="format", valid="a format name (a str) or None")
    return parse_formula(text, format=format)


def _formula(source: Formula | Instance | str) -> Formula:
    from twosat_formal.core.formula import Formula

    if isinstance(source, Formula):
        return source
    if isinstance(source, str):
        return parse(source)
    formula = getattr(source, "formula", None)
    if not isinstance(formula, Formula):
        raise ArgumentTypeError(
            f"expected a formula, an instance or formula text, not {type(source).__name__}",
            parameter="formula",
            valid="a Formula, an Instance or formula text",
        )
    return formula


def solve(formula: Formula | Instance | str, *, backend: str = "scc") -> SolveResult:
    """Solve a formula (an instance's, or formula text); the certificate is checked.

    >>> solve("a\\n~a").status
    'UNSAT'

    Raises
    ------
    ArgumentTypeError
        ``formula`` is no formula, instance or text, or ``backend`` no str.
    ParseError
        Formula text that does not parse.
    UnknownNameError
        ``backend`` is no solver backend's name.
    """
    from twosat_formal.solve import solve as solve_formula

    return solve_formula(_formula(formula), backend)


def generate(family: str, *, clauses: int | None = None, seed: int = 0, **params: Any) -> Instance:
    """One labelled instance of ``family`` (see ``twosat-formal list families``).

    >>> generate("backbone", clauses=6, seed=2).family
    'backbone'

    Raises
    ------
    ArgumentTypeError
        ``family`` is no str.
    ConfigError
        ``clauses``, ``seed`` or a knob that is no int (a bool is none) or is out of its
        range, or a knob the family does not take.
    UnknownNameError
        ``family`` is no family's name.
    """
    from twosat_formal.make.generators import generate as draw

    expect_type(family, str, parameter="family", valid="a family name (a str)")
    return draw(family, clauses=clauses, seed=seed, **params)


def perturb(instance: Instance | Formula, *operators: StepSpec, seed: int = 0) -> Instance:
    """Apply operators in order (each a name, or ``(name, params)``); the derived instance.

    A bare formula is first made a root instance (family ``file``). Each step's relation
    is proven with Z3, as ``twosat-formal perturb`` does.

    >>> inst = generate("backbone", clauses=6, seed=2)
    >>> moved = perturb(inst, "reorder", "rename", seed=1)
    >>> moved.base_id == inst.id, moved.label == inst.label
    (True, True)

    Raises
    ------
    ArgumentTypeError
        ``instance`` is no Instance or Formula, or a step is neither a name nor
        ``(name, params)`` with params a mapping of str.
    ConfigError
        No operator, a ``seed`` that is no int, a parameter an operator does not take or
        out of its range (a step's own ``seed`` among them).
    UnknownNameError
        An operator's name that no operator has.
    ProofError
        A step whose relation Z3 does not prove.
    """
    from twosat_formal.core.formula import Formula
    from twosat_formal.io.instance import Instance
    from twosat_formal.make.edits import root_instance
    from twosat_formal.make.perturb.instances import perturb_instance

    expect_type(
        instance, (Instance, Formula), parameter="instance", valid="an Instance or a Formula"
    )
    if not operators:
        raise ConfigError("give at least one operator", parameter="operators")
    root = root_instance(instance) if isinstance(instance, Formula) else instance
    return perturb_instance(root, list(operators), seed=seed)


def verbalize(
    instance: Instance | Formula, template: str = "logic", *, seed: int = 0, **options: Any
) -> Prompt:
    """The evaluation prompt of an instance (or formula) in ``template``.

    ``prompt.text`` is what a model reads; ``prompt.record()`` is the prompt record
    with its round trip proven, which :func:`certify` accepts. ``options`` are those of
    :func:`twosat_formal.verbalize.verbalize`.

    Raises
    ------
    ArgumentTypeError
        ``instance`` is no Instance or Formula, ``template`` no str, an option one
        :func:`twosat_formal.verbalize.verbalize` does not take or of the wrong type.
    ConfigError
        A ``seed`` that is no int, entities the template's naming refuses, an unknown
        question type.
    UnknownNameError
        ``template`` is no template's name.
    """
    from twosat_formal.core.formula import Formula
    from twosat_formal.io.instance import Instance
    from twosat_formal.verbalize import verbalize as render

    expect_type(
        instance, (Instance, Formula), parameter="instance", valid="an Instance or a Formula"
    )
    expect_type(template, str, parameter="template", valid="a template name (a str)")
    _known_options(render, options, given=3)
    return render(instance, template, seed=seed, **options)


def _record(item: Any) -> Mapping[str, Any]:
    from twosat_formal.verbalize import Prompt

    if isinstance(item, Prompt):
        item = item.record()
    if isinstance(item, Mapping):
        return item
    to_record = getattr(item, "to_record", None)
    if to_record is None:
        raise ArgumentTypeError(
            f"certify takes records (instances, prompt records, dicts) or file paths, "
            f"not {type(item).__name__}",
            parameter="records",
            valid="instances, prompt records, dicts or file paths",
        )
    record: Mapping[str, Any] = to_record()
    return record


def certify(*records: Any, jobs: int = 1) -> CertifyReport:
    """Certify records and files as one dataset, with ``twosat-formal certify``'s checks.

    Parameters
    ----------
    *records:
        Instances, prompt records (or prompts of :func:`verbalize`, recorded with their
        round trip proven), story records, record dicts, or paths of JSON Lines files,
        mixed; a prompt's instance must be among them.
    jobs:
        Worker processes.

    Returns
    -------
    CertifyReport
        ``.ok``, ``.failures`` (each with its record, check and message).

    Raises
    ------
    ArgumentTypeError
        An item that is no record, prompt, dict or path.
    ConfigError
        ``jobs`` is no int of at least 1.
    RecordError
        A path that is a folder or no regular file, or a line that is no record.
    FileNotFoundError
        A path to no file (as :func:`open` raises it, naming the file).
    """
    from twosat_formal.certify import certify_files
    from twosat_formal.io.jsonl import json_line

    paths: list[PathLike] = []
    inline: list[str] = []
    for item in records:
        if isinstance(item, str | os.PathLike):
            paths.append(Path(item))
        else:
            inline.append(json_line(dict(_record(item))))
    if not inline:
        return certify_files(paths, jobs=jobs)
    with tempfile.TemporaryDirectory(prefix="twosat-certify-") as tmp:
        path = Path(tmp) / "records.jsonl"
        path.write_text("".join(line + "\n" for line in inline), encoding="utf-8")
        return certify_files([*paths, path], jobs=jobs)


def _items(prompts: Any, instances: Any) -> list[EvalItem]:
    """Evaluation items from prompt files or objects and their instances."""
    from twosat_formal.evaluate.run import EvalItem, load_items
    from twosat_formal.verbalize import Prompt

    if isinstance(prompts, str | os.PathLike):
        if instances is not None:
            expect_type(
                instances,
                (str, os.PathLike),
                parameter="instances",
                valid="the dataset file, with a prompt file",
            )
        dataset = _path(instances, "instances") if instances is not None else None
        return load_items(_path(prompts, "prompts"), dataset=dataset)
    known = _instances_by_id(instances)
    items: list[EvalItem] = []
    given = (
        [prompts]
        if isinstance(prompts, Prompt)
        else list(expect_items(prompts, parameter="prompts", valid=_PROMPTS))
    )
    for prompt in given:
        items.append(prompt if isinstance(prompt, EvalItem) else _item(prompt, known))
    return items


#: What ``prompts`` may be, as messages say it.
_PROMPTS = "a prompt file, or a list of prompts, prompt records or evaluation items"


def _instances_by_id(instances: Any) -> dict[str, Instance]:
    """The instances given (objects or a dataset file), by id."""
    from twosat_formal.io.instance import Instance, read_instances

    if isinstance(instances, str | os.PathLike):
        return {inst.id: inst for inst in read_instances(_path(instances, "instances"))}
    valid = "instances (an Instance, a list of them or the dataset file)"
    found = (
        []
        if instances is None
        else [instances]
        if isinstance(instances, Instance)
        else list(expect_items(instances, parameter="instances", valid=valid))
    )
    for inst in found:
        expect_type(inst, Instance, parameter="instances", valid=valid, what="an instance")
    return {inst.id: inst for inst in found}


def _item(prompt: Any, known: Mapping[str, Instance]) -> EvalItem:
    """The evaluation item of a prompt (or prompt record) and its instance among ``known``."""
    from twosat_formal.evaluate.run import EvalItem
    from twosat_formal.verbalize import Prompt
    from twosat_formal.verbalize.prompts import PromptRecord
    from twosat_formal.verbalize.story.record import StoryRecord

    expect_type(
        prompt,
        (Prompt, PromptRecord, StoryRecord),
        parameter="prompts",
        valid=_PROMPTS,
        what="a prompt",
    )
    record = prompt.record(roundtrip=None) if isinstance(prompt, Prompt) else prompt
    inst = known.get(record.instance_id)
    if inst is None:
        raise ConfigError(
            f"prompt {record.id} verbalizes instance {record.instance_id!r}, which is "
            "not among the instances given",
            parameter="instances",
        )
    return EvalItem(record, inst.formula, inst.label, inst.to_record())


async def evaluate_async(
    models: str | Sequence[str],
    prompts: Any,
    store: PathLike | RunStore,
    *,
    instances: Any = None,
    **options: Any,
) -> EvalSummary:
    """:func:`evaluate` for code that runs in an event loop: ``await tf.evaluate_async(...)``.

    It takes :func:`evaluate`'s arguments and raises its errors, except that it runs where
    an event loop runs.
    """
    from twosat_formal.evaluate.run import evaluate_async as run

    specs, items = _specs(models), _items(prompts, instances)
    with _opened(store) as opened:
        return await run(specs, items, opened, **options)


def evaluate(
    models: str | Sequence[str],
    prompts: Any,
    store: PathLike | RunStore,
    *,
    instances: Any = None,
    **options: Any,
) -> EvalSummary:
    """Ask models every prompt, score each answer and keep it in a run store.

    Parameters
    ----------
    models:
        Model specs (``ref/oracle``, ``openai/gpt-4o-mini``, ``llama/PATH.gguf``...).
    prompts:
        A prompt file, or prompts (of :func:`verbalize`, prompt records, evaluation
        items).
    store:
        The run store (a path, created if missing, or an open
        :class:`~twosat_formal.evaluate.store.RunStore`); a re-run skips what it holds.
    instances:
        The instances the prompts verbalize (objects, or the dataset file).
    **options:
        Those of :func:`twosat_formal.evaluate.run.evaluate`: how the models are reached
        (:class:`~twosat_formal.evaluate.run.ModelAccess`: ``base_url``, ``mode``...)
        and those of :func:`twosat_formal.evaluate.run.run_eval` (``samples``...).

    Raises
    ------
    ArgumentTypeError
        ``models``, ``prompts``, ``instances``, ``store`` or an option of the wrong type
        (a str of several model specs is one spec; a bool is no count), or an option
        :func:`twosat_formal.evaluate.run.evaluate` does not take.
    ConfigError
        Called where an event loop runs (Jupyter): ``await evaluate_async(...)`` there;
        no model spec; a prompt whose instance is not among ``instances``; an empty
        path; ``samples`` or another number out of range.
    UnknownNameError
        A model spec that names no model kind.
    RecordError
        A prompt or dataset file that is no file of records, a store that is no run
        store.
    EndpointError
        A model endpoint that cannot be reached or refuses every request.
    """
    from twosat_formal.evaluate.run import evaluate as run
    from twosat_formal.evaluate.run.runner import refuse_running_loop

    refuse_running_loop("tf.evaluate_async", "twosat_formal.evaluate_async")
    specs, items = _specs(models), _items(prompts, instances)
    with _opened(store) as opened:
        return run(specs, items, opened, **options)


def _specs(models: str | Sequence[str]) -> list[str]:
    """The model specs: one spec, or a non-empty list of them.

    Raises
    ------
    ArgumentTypeError
        ``models`` is no str nor a list of str.
    ConfigError
        ``models`` is empty.
    """
    valid = "a model spec (a str) or a list of them"
    specs = (
        [models]
        if isinstance(models, str)
        else list(expect_items(models, parameter="models", valid=valid))
    )
    for spec in specs:
        expect_type(spec, str, parameter="models", valid=valid, what="a model spec")
    if not specs:
        raise ConfigError("give at least one model spec", parameter="models", valid=valid)
    return specs


@contextmanager
def _opened(store: PathLike | RunStore) -> Iterator[RunStore]:
    """``store`` when it is an open store, else the store at that path, closed after."""
    from twosat_formal.evaluate.store import RunStore

    if isinstance(store, RunStore):
        yield store
        return
    with RunStore(_path(store, "store")) as opened:
        yield opened


def score(
    answer: str | Response,
    prompt: Any,
    instance: Instance | Formula | None = None,
    *,
    label: str | None = None,
    finish_reason: str | None = None,
) -> Judgement:
    """Judge an answer (a plain string) to a prompt, as ``eval`` does.

    Parameters
    ----------
    answer:
        The model's answer text (or a :class:`~twosat_formal.evaluate.models.base.Response`).
    prompt:
        A prompt of :func:`verbalize`, a prompt or story record, or an evaluation item.
    instance:
        The instance the prompt verbalizes (its formula and label), or a formula
        (labelled by the solver unless ``label`` is given); a prompt of
        :func:`verbalize` and an evaluation item carry their own.
    label:
        ``"SAT"`` or ``"UNSAT"``, when ``instance`` is a bare formula.
    finish_reason:
        ``"length"`` marks the answer truncated.

    Raises
    ------
    ArgumentTypeError
        ``answer``, ``prompt``, ``instance`` or ``finish_reason`` of the wrong type.
    ConfigError
        An ``instance`` (or formula) other than the one the prompt verbalizes, none
        where the prompt carries no formula, or a ``label`` other than ``"SAT"`` and
        ``"UNSAT"``.
    """
    from twosat_formal.core.formula import Formula
    from twosat_formal.evaluate.models.base import Response
    from twosat_formal.evaluate.scoring import score as judge
    from twosat_formal.io.instance import Instance

    expect_type(
        answer, (str, Response), parameter="answer", valid="the answer text (a str) or a Response"
    )
    expect_type(
        instance,
        (Instance, Formula, type(None)),
        parameter="instance",
        valid="an Instance, a Formula or None",
    )
    if finish_reason is not None:
        expect_type(finish_reason, str, parameter="finish_reason", valid="a str or None")
    response = answer if isinstance(answer, Response) else Response(answer, finish_reason)
    view, formula, label = _scored_prompt(prompt, label)
    _same_instance(view, formula, instance)
    if isinstance(instance, Formula):
        formula = instance
    elif instance is not None:
        formula, label = instance.formula, label or instance.label
    if formula is None:
        raise ConfigError(
            "score needs the formula the prompt verbalizes: give its instance",
            parameter="instance",
        )
    if label is None:
        label = solve(formula).status
    return judge(response, view, formula, label)


def _same_instance(view: Any, carried: Formula | None, instance: Instance | Formula | None) -> None:
    """Refuse an instance (or formula) other than the one the prompt verbalizes: its
    answer would be judged against another formula's label and entities.

    Raises
    ------
    ConfigError
        ``instance``'s id is not the prompt's ``instance_id``, or its formula is not the
        one the prompt carries.
    """
    from twosat_formal.core.formula import Formula

    if instance is None:
        return
    given = instance if isinstance(instance, Formula) else instance.formula
    known = view.instance_id not in (None, "(formula)")
    other_id = known and not isinstance(instance, Formula) and instance.id != view.instance_id
    if other_id or (carried is not None and given != carried):
        name = "that formula" if isinstance(instance, Formula) else f"instance {instance.id!r}"
        raise ConfigError(
            f"the prompt verbalizes {view.instance_id!r}, not {name}",
            parameter="instance",
            valid="the instance (or formula) the prompt verbalizes",
        )


def _scored_prompt(prompt: Any, label: str | None) -> tuple[Any, Formula | None, str | None]:
    """What :func:`score` reads of ``prompt``: the prompt record, and the formula and label
    an evaluation item or a prompt of :func:`verbalize` carries."""
    from twosat_formal.evaluate.run import EvalItem
    from twosat_formal.verbalize import Prompt

    if isinstance(prompt, EvalItem):
        return prompt.prompt, prompt.formula, label or prompt.label
    if isinstance(prompt, Prompt):
        return prompt.record(prompt.instance_id or "(formula)", None), prompt.formula, label
    from twosat_formal.verbalize.prompts import PromptRecord
    from twosat_formal.verbalize.story.record import StoryRecord

    expect_type(
        prompt,
        (PromptRecord, StoryRecord),
        parameter="prompt",
        valid="a Prompt, a prompt or story record, or an evaluation item",
    )
    return prompt, None, label


def report(store: PathLike, out: PathLike, **options: Any) -> Path:
    """The report of a run store (or experiment folder) in ``out``; ``report.md``'s path.

    ``options`` are those of :func:`twosat_formal.report.build_report` (``title``,
    ``method``, ``seed``, ``diagnostics``).

    Raises
    ------
    ArgumentTypeError
        ``store`` or ``out`` that is no path, a ``title`` that is no str, or an option
        :func:`twosat_formal.report.build_report` does not take.
    ConfigError
        An empty path, an ``out`` that is a file, a ``seed`` that is no int, an unknown
        interval ``method``.
    RecordError
        A ``store`` that is no run store or experiment folder.
    FileNotFoundError
        A ``store`` that does not exist (naming it).
    """
    from twosat_formal.report import build_report

    _known_options(build_report, options, given=2)
    return build_report(_path(store, "store"), _path(out, "out"), **options)
