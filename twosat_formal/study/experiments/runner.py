"""Run an experiment: generate → perturb → edit → verbalize → certify → evaluate → report.

:func:`run_experiment` writes into one folder:

==================  ================================================================
``dataset.jsonl``   every instance (bases, their perturbed variants and edited instances)
``design.jsonl``    the condition of each instance (experiment, arm, knob, level...)
``prompts.jsonl``   every prompt (one per instance and template), round trip proven
``stories.jsonl``   (``story`` experiments) every story, one per base and theme
``results.sqlite``  the run store (resumable: a re-run skips what is stored)
``results.jsonl``   the store exported, one row per sample
``manifest.json``   versions, git revision, seeds, spec, models, sampling, digests
``report.md``       the report (and ``report.html``, ``report.json``, ``figures/``)
==================  ================================================================

Everything but the model answers is deterministic: the same spec and seed give the
same records in ``dataset.jsonl``, ``design.jsonl`` and ``prompts.jsonl`` (only the
recorded durations of proofs differ), so a re-run finds its requests in the store and
only asks what is missing. Certification is skipped on a re-run whose dataset and
prompt files have the content digests (:func:`~twosat_formal.study.experiments.manifest.
content_digest`, durations left out) that a previous run certified.

In a ``pairs`` experiment every base that has a minimal twin is followed by it
(:func:`twosat_formal.evaluate.diagnostics.twins.twin_instance`), verbalized like an edited
instance with its source's entity map.

In a ``story`` experiment every base is also told as a story in each theme of the spec
by the story model (:mod:`twosat_formal.study.experiments.stories`); the evaluated models
answer the story prompts beside the template prompts of the same formulas.

In an ``edits`` experiment every base is followed by its edited instances
(:func:`twosat_formal.make.edits.edit_instances`, one run per mode), and an edited instance
is verbalized with the seed of its origin and its origin's example JSON: the same
entity map, so only the edited clauses' sentences differ from the origin's prompt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from twosat_formal.core.model import DEFAULT_MODE, Model, SamplingParams
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.export import export_results
from twosat_formal.evaluate.models import canonical_spec
from twosat_formal.evaluate.run import (
    EvalItem,
    EvalSummary,
    StoryPrompt,
    Verification,
    evaluate,
    verify_items,
)
from twosat_formal.evaluate.run.runner import DEFAULT_CONCURRENCY
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.make.edits import edit_instances
from twosat_formal.make.edits.classify import EDIT_KIND
from twosat_formal.make.generators import derive_seed, generate
from twosat_formal.make.perturb.instances import perturb_instance
from twosat_formal.report.files import (
    DATASET_FILE,
    DESIGN_FILE,
    MANIFEST_FILE,
    PROMPTS_FILE,
    RESULTS_FILE,
    STORE_FILE,
    STORIES_FILE,
)
from twosat_formal.study.experiments.design import Condition, expand, inert_knobs
from twosat_formal.study.experiments.manifest import (
    content_digest,
    environment,
    read_manifest,
    write_manifest,
)
from twosat_formal.study.experiments.spec import ExperimentSpec, load_spec
from twosat_formal.study.experiments.stories import (
    check_story_model,
    tell_experiment_stories,
)
from twosat_formal.verbalize.lines import instance_prompts
from twosat_formal.verbalize.prompts import PromptRecord, write_prompts
from twosat_formal.verbalize.strategies import parse_strategy

__all__ = [
    "ExperimentConfig",
    "ExperimentResult",
    "Reporter",
    "build_dataset",
    "quiet",
    "run_experiment",
]


#: A callback that reports progress: ``(stage, detail)``.
Reporter = Callable[[str, str], None]


@dataclass
class ExperimentResult:
    """What a run produced: the folder, counts, certification, evaluation and report."""

    name: str
    out_dir: Path
    instances: int
    prompts: int
    certified: dict[str, Any]
    evaluation: EvalSummary
    report: Path | None
    manifest: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def quiet(stage: str, detail: str) -> None:
    """Default reporter: say nothing."""


def _derive_instance(base: Instance, condition: Condition) -> Instance:
    """The perturbed variant of ``base`` that ``condition`` asks for (proven, re-labelled)."""
    steps = [(name, dict(params)) for name, params in condition.steps]
    return perturb_instance(base, steps, seed=condition.perturb_seed)


def _edited_instances(
    origin: Instance, condition: Condition
) -> list[tuple[Instance, dict[str, Any]]]:
    """The edit stage of ``condition`` on ``origin``: each edited instance and its design fields.

    Each mode runs as ``twosat-formal edit --mode MODE --seed S`` would on ``origin``
    (``--max-edits``: ``max_edits`` for cumulative chains, ``count`` per class for
    individual edits, both classes kept).
    """
    if not condition.edits:
        return []
    stage = dict(condition.edits)
    out: list[tuple[Instance, dict[str, Any]]] = []
    for mode in stage["modes"]:
        made = edit_instances(
            [origin],
            mode=mode,
            keep="both",
            max_edits=stage["max_edits"] if mode == "cumulative" else stage["count"],
            seed=stage["seed"],
            operators=stage["operators"],
            order=stage["order"],
            keep_base=False,
        )
        for edited in made.records:
            step = edited.transforms[-1]
            level, kind = int(step["level"]), str(step["class"])
            label = f"cumulative k={level}" if mode == "cumulative" else f"individual {kind}"
            fields = {
                "arm": mode,
                "arm_label": label,
                "edit": {"mode": mode, "level": level, "class": kind, "origin": origin.id},
            }
            out.append((edited, fields))
    return out


def _twin(origin: Instance) -> Instance | None:
    """The minimal twin of ``origin`` (as ``twosat-formal pairs`` makes it), if it has one."""
    from twosat_formal.evaluate.diagnostics.twins import NoTwinError, twin_instance

    try:
        return twin_instance(origin)
    except NoTwinError:
        return None


def build_dataset(
    conditions: Sequence[Condition], *, report: Reporter = quiet
) -> tuple[list[Instance], list[dict[str, Any]]]:
    """Generate every base formula once, every perturbed variant and every edit of it.

    Returns the instances (bases first, in order of first use, then variants right
    after their base, each followed by its edited instances) and one design record
    per condition and edited instance.

    >>> from twosat_formal.study.experiments.spec import load_spec
    >>> from twosat_formal.study.experiments.design import expand
    >>> spec = load_spec("order").with_formulas(1)
    >>> instances, design = build_dataset(expand(spec)[:2])
    >>> [i.base_id is None for i in instances], [d["arm"] for d in design]
    ([True, False], ['construction', 'shuffled'])
    """
    bases: dict[tuple[Any, ...], Instance] = {}
    instances: dict[str, Instance] = {}
    design: list[dict[str, Any]] = []
    for number, condition in enumerate(conditions, start=1):
        base = bases.get(condition.base_key)
        if base is None:
            base = generate(
                condition.family,
                clauses=condition.clauses,
                seed=condition.seed,
                **dict(condition.params),
            )
            bases[condition.base_key] = base
        instance = _derive_instance(base, condition) if condition.steps else base
        instances.setdefault(instance.id, instance)
        design.append(condition.design_record(instance.id))
        for edited, fields in _edited_instances(instance, condition):
            instances.setdefault(edited.id, edited)
            design.append({**condition.design_record(edited.id), **fields})
        twin = _twin(instance) if condition.twins else None
        if twin is not None:
            instances.setdefault(twin.id, twin)
            fields = {"arm": "twin", "arm_label": "twin", "twin_of": instance.id}
            design.append({**condition.design_record(twin.id), **fields})
        if number % 50 == 0:
            report("generate", f"{number}/{len(conditions)} formulas")
    return list(instances.values()), design


def _entity_key(instance: Instance) -> str:
    """What an instance's verbalization seed is drawn from: its id, or its edits' origin.

    >>> from twosat_formal.make.edits import apply_edit, root_instance
    >>> from twosat_formal.core.formula import Formula
    >>> base = root_instance(Formula([[1, 2], [-1, 2]]))
    >>> _entity_key(apply_edit(base, "split", position=0).instance) == base.id
    True
    """
    edits = [t for t in instance.transforms if t.get("kind") == EDIT_KIND]
    return str(edits[-1]["origin"]) if edits else instance.id


def _prompts(
    instances: Sequence[Instance],
    templates: Sequence[str],
    seed: int,
    *,
    report: Reporter = quiet,
    asks: Sequence[str] = ("decision",),
) -> list[PromptRecord]:
    records = []
    for number, instance in enumerate(instances, start=1):
        verbal_seed = derive_seed(seed, "verbalize", _entity_key(instance)) % (2**31)
        records += instance_prompts(instance, templates, verbal_seed, asks=asks)
        if number % 25 == 0:
            report("verbalize", f"{number}/{len(instances)} instances")
    return records


def _certify(files: Sequence[Path], jobs: int) -> dict[str, Any]:
    """Re-check every instance, prompt and story (``certify``); raise if any check fails."""
    from twosat_formal.certify import certify_files
    from twosat_formal.evaluate.gate import refusal

    outcome = certify_files(list(files), jobs=jobs)
    if not outcome.ok:  # the gate: nothing is asked of a dataset certify rejects (exit 2)
        raise refusal(outcome, "nothing was sent")
    summary = outcome.to_json()
    return {
        "ok": True,
        "records": summary["records"],
        "kinds": summary["kinds"],
        "checks": summary["checks"],
        "seconds": summary["seconds"],
        "z3_seconds": summary["z3_seconds"],
        "story_fields_attested": outcome.story_attested,
    }


def _design_text(design: Sequence[dict[str, Any]]) -> str:
    seen: set[str] = set()
    lines = []
    for record in design:
        if record["instance_id"] in seen:
            continue
        seen.add(record["instance_id"])
        lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ExperimentConfig:
    """The options of one run, grouped: what to run, how to sample, how to reach the models.

    Parameters
    ----------
    formulas, templates, seed, themes:
        Overrides of the spec: formulas per setting, verbalization templates, the
        experiment seed and the story themes (``None``: the spec's).
    story_model:
        The model that writes the stories of a ``story`` experiment (a spec, or a
        model); required there and refused elsewhere. Its calls are cached in the
        run store.
    samples, max_tokens, temperature, top_p:
        Sampling: samples per prompt and model, and the request parameters
        (defaults: the spec's ``sampling``). A model the spec's ``sampling.models``
        names gets its own parameters as options of its spec, and options in a model
        spec (``openai/m?max_tokens=16384``) win over both.
    strategies:
        The reasoning strategies every prompt is asked under (``direct``, ``cot``,
        ``symbolic-cot``, ``sample-k:K``: :mod:`twosat_formal.verbalize.strategies`); recorded in
        the manifest and with every result.
    concurrency:
        Requests in flight.
    jobs:
        Worker processes of ``certify``.
    certify:
        Re-check every instance and prompt before asking any model (the default).
    verify:
        Re-derive every prompt from its instance just before it is sent, and refuse
        the run if one differs (the default; recorded in the manifest either way).
    make_report:
        Write the report into the experiment folder.
    base_url, api_key_env, mode:
        For ``openai/`` models (see :func:`twosat_formal.evaluate.models.load_model`).
    timeout_s:
        Seconds one request may take (default: the client's, 300 s).
    progress:
        Show the evaluation progress bar.

    Examples
    --------
    >>> from twosat_formal.study.experiments.spec import load_spec
    >>> config = ExperimentConfig(formulas=1, max_tokens=64)
    >>> config.apply(load_spec("order")).formulas, config.sampling(load_spec("order")).max_tokens
    (1, 64)
    """

    formulas: int | None = None
    templates: Sequence[str] | None = None
    seed: int | None = None
    story_model: str | Model | None = None
    themes: Sequence[str] | None = None
    samples: int = 1
    strategies: Sequence[str] = ("direct",)
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    jobs: int = 1
    certify: bool = True
    verify: bool = True
    make_report: bool = True
    base_url: str | None = None
    api_key_env: str | None = None
    mode: str = DEFAULT_MODE
    timeout_s: float | None = None
    progress: bool = False

    def __post_init__(self) -> None:
        for strategy in self.strategies:  # an unknown strategy is refused before any work
            parse_strategy(strategy)

    def apply(self, spec: ExperimentSpec) -> ExperimentSpec:
        """``spec`` with this run's overrides (formulas, templates, seed, themes)."""
        if self.formulas is not None:
            spec = spec.with_formulas(self.formulas)
        if self.templates is not None:
            spec = spec.with_templates(tuple(self.templates))
        if self.seed is not None:
            spec = spec.model_copy(update={"seed": self.seed})
        if self.themes is not None:
            spec = spec.with_themes(tuple(self.themes))
        return spec

    def sampling(self, spec: ExperimentSpec) -> SamplingParams:
        """The request parameters: this run's where given, else the spec's ``sampling``."""
        return SamplingParams(
            max_tokens=int(
                self.max_tokens
                if self.max_tokens is not None
                else spec.sampling.get("max_tokens", SamplingParams().max_tokens)
            ),
            temperature=(
                self.temperature
                if self.temperature is not None
                else spec.sampling.get("temperature")
            ),
            top_p=self.top_p if self.top_p is not None else spec.sampling.get("top_p"),
            seed=spec.sampling.get("seed"),
            max_completion_tokens=spec.sampling.get("max_completion_tokens"),
            reasoning_effort=spec.sampling.get("reasoning_effort"),
        )

    def connection(self) -> dict[str, Any]:
        """How ``openai/`` models are reached (the keywords of the model loaders)."""
        return {"base_url": self.base_url, "api_key_env": self.api_key_env, "mode": self.mode}


class _Clock:
    """Times the stages of a run and reports each one's duration when it ends."""

    def __init__(self, report: Reporter) -> None:
        self.report = report
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.seconds[name] = round(time.perf_counter() - started, 3)
        self.report(name, f"done in {self.seconds[name]:.1f} s")


@dataclass
class _Built:
    """What the generate, verbalize and story stages wrote (the files to certify)."""

    conditions: int
    instances: list[Instance]
    prompts: list[PromptRecord]
    stories: list[Any] = field(default_factory=list)
    story_info: dict[str, Any] | None = None
    files: list[Path] = field(default_factory=list)


def run_experiment(
    name: str | ExperimentSpec,
    models: Sequence[str],
    *,
    out_dir: str | Path,
    config: ExperimentConfig | None = None,
    console: Console | None = None,
    report: Reporter = quiet,
    **options: Any,
) -> ExperimentResult:
    """Run experiment ``name`` (a shipped spec, a spec file, or a spec) on ``models``.

    The stages, each its own function: plan (the spec with the run's overrides, the
    model specs checked), build (generate, verbalize, tell stories: the files),
    certify, manifest, evaluate, report.

    Parameters
    ----------
    name:
        ``table1``, ``sweep``, ``fillers``, ``order``, ``duplication``,
        ``verbalization``, ``edits``, a path to a spec file, or an
        :class:`ExperimentSpec`.
    models:
        Model specs (``ref/oracle``, ``openai/<id>``...); at least one.
    out_dir:
        The experiment folder (created; reused on a re-run).
    config:
        The run's options (:class:`ExperimentConfig`; default: all defaults).
    console:
        The rich console of the progress bar (default stderr).
    report:
        ``(stage, detail)`` callback for progress messages.
    **options:
        Fields of :class:`ExperimentConfig` (``formulas=1``, ``samples=3``...), which
        win over ``config``'s.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError, UnknownNameError
        For a bad spec, parameter, template or model spec.
    UnverifiedPromptError
        If any instance, prompt or story fails certification (nothing is evaluated
        then; exit code 2), naming the first failing record and check.
    ProofError, SolverDisagreementError
        If a check could not be made.
    """
    config = replace(config or ExperimentConfig(), **options)
    spec, models = _plan(name, models, config)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    clock = _Clock(report)
    built = _build(spec, folder, config, clock)
    digests = {path.name: content_digest(path) for path in built.files}
    certified = _certify_stage(built.files, digests, folder, config, clock)
    params = config.sampling(spec)
    manifest = _manifest(spec, models, config, params, built, digests, certified)
    write_manifest(folder / MANIFEST_FILE, manifest)
    summary = _evaluate_stage(spec, models, config, params, built, folder, manifest, clock, console)
    manifest["evaluation"] = summary.to_dict()
    manifest["seconds"] = dict(clock.seconds)
    write_manifest(folder / MANIFEST_FILE, manifest)
    report_path = _report_stage(folder, config, clock)
    return ExperimentResult(
        name=spec.name,
        out_dir=folder,
        instances=len(built.instances),
        prompts=len(built.prompts),
        certified=certified,
        evaluation=summary,
        report=report_path,
        manifest=manifest,
        seconds=clock.seconds,
    )


def _report_stage(folder: Path, config: ExperimentConfig, clock: _Clock) -> Path | None:
    """Write the experiment's report into its folder (unless the run makes none); where."""
    if not config.make_report:
        return None
    from twosat_formal.report import build_report

    with clock.stage("report"):
        return build_report(folder, folder)


def _plan(
    name: str | ExperimentSpec, models: Sequence[str], config: ExperimentConfig
) -> tuple[ExperimentSpec, list[str]]:
    """The spec with the run's overrides, and the model specs with the spec's own budgets,
    each in its canonical form (the name the run store and the report give it).

    Everything is checked here, before anything is generated.
    """
    spec = config.apply(name if isinstance(name, ExperimentSpec) else load_spec(name))
    check_story_model(spec, config.story_model)
    if not models:
        raise ConfigError("give at least one model", parameter="models", valid="a model spec")
    return spec, [canonical_spec(spec.model_spec(model)) for model in models]


def _build(spec: ExperimentSpec, folder: Path, config: ExperimentConfig, clock: _Clock) -> _Built:
    """Generate the dataset and its design, verbalize it, and tell the stories (if any)."""
    report = clock.report
    with clock.stage("generate"):
        conditions = expand(spec)
        report("generate", f"{len(conditions)} formulas ({spec.name})")
        instances, design = build_dataset(conditions, report=report)
        write_instances(instances, folder / DATASET_FILE)
        (folder / DESIGN_FILE).write_text(_design_text(design), encoding="utf-8")
    with clock.stage("verbalize"):
        prompts = _prompts(instances, spec.templates, spec.seed, report=report, asks=spec.asks)
        write_prompts(prompts, folder / PROMPTS_FILE)
    built = _Built(
        len(conditions), instances, prompts, files=[folder / DATASET_FILE, folder / PROMPTS_FILE]
    )
    if config.story_model is not None:
        with clock.stage("stories"):
            built.stories, built.story_info = tell_experiment_stories(
                instances,
                spec,
                config.story_model,
                folder,
                concurrency=config.concurrency,
                **config.connection(),
                report=report,
            )
            built.files.append(folder / STORIES_FILE)
    return built


def _certify_stage(
    files: Sequence[Path],
    digests: dict[str, str],
    folder: Path,
    config: ExperimentConfig,
    clock: _Clock,
) -> dict[str, Any]:
    """Certify ``files``, unless asked not to or a previous run certified these digests."""
    if not config.certify:
        return {"ok": False, "skipped": True}
    previous = read_manifest(folder / MANIFEST_FILE) or {}
    prior = previous.get("certified") or {}
    if prior.get("ok") and previous.get("digests") == digests:
        clock.report("certify", "unchanged files, certified by a previous run")
        return {**prior, "reused": True}
    with clock.stage("certify"):
        certified = _certify(files, config.jobs)
    return certified


def _manifest(
    spec: ExperimentSpec,
    models: Sequence[str],
    config: ExperimentConfig,
    params: SamplingParams,
    built: _Built,
    digests: dict[str, str],
    certified: dict[str, Any],
) -> dict[str, Any]:
    """The manifest before evaluation: versions, spec, models, sampling, counts, digests."""
    story = built.story_info is not None
    return {
        "experiment": spec.name,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **environment(),
        "spec": spec.to_json(),
        "inert_knobs": inert_knobs(spec),
        "seed": spec.seed,
        "formulas": spec.formulas,
        "templates": list(spec.templates),
        "models": list(models),
        "sampling": {**json.loads(params.key()), "samples": config.samples},
        "strategies": list(config.strategies),
        **({"story": built.story_info} if story else {}),
        "counts": {
            "conditions": built.conditions,
            "instances": len(built.instances),
            "prompts": len(built.prompts),
            **({"stories": len(built.stories)} if story else {}),
            "requests": (len(built.prompts) + len(built.stories))
            * len(models)
            * config.samples
            * sum(parse_strategy(s).samples_per_vote for s in config.strategies),
        },
        "digests": digests,
        "certified": certified,
        "files": {
            "dataset": DATASET_FILE,
            "design": DESIGN_FILE,
            "prompts": PROMPTS_FILE,
            **({"stories": STORIES_FILE} if story else {}),
            "store": STORE_FILE,
            "results": RESULTS_FILE,
        },
    }


def _evaluate_stage(
    spec: ExperimentSpec,
    models: Sequence[str],
    config: ExperimentConfig,
    params: SamplingParams,
    built: _Built,
    folder: Path,
    manifest: dict[str, Any],
    clock: _Clock,
    console: Console | None,
) -> EvalSummary:
    """Verify the prompts, ask every model, store and export the answers."""
    with clock.stage("evaluate"):
        by_id = {inst.id: inst for inst in built.instances}
        stories = [StoryPrompt.from_story(record) for record in built.stories]
        prompts: list[PromptRecord | StoryPrompt] = [*built.prompts, *stories]
        items = [
            EvalItem(
                prompt,
                by_id[prompt.instance_id].formula,
                by_id[prompt.instance_id].label,
                by_id[prompt.instance_id].to_record(),
            )
            for prompt in prompts
        ]
        verification = verify_items(items) if config.verify else Verification(0, skipped=True)
        manifest["verification"] = verification.to_json()
        write_manifest(folder / MANIFEST_FILE, manifest)
        clock.report(
            "evaluate", f"{len(items)} prompts x {len(models)} models x {config.samples} samples"
        )
        with RunStore(folder / STORE_FILE) as store:
            summary = evaluate(
                list(models),
                items,
                store,
                **config.connection(),
                timeout_s=config.timeout_s,
                params=params,
                samples=config.samples,
                strategies=list(config.strategies),
                concurrency=config.concurrency,
                progress=config.progress,
                console=console,
                run_info={"experiment": spec.name, "verification": verification.to_json()},
            )
            export_results(store, folder / RESULTS_FILE)
    return summary
