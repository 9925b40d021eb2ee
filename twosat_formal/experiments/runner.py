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
prompt files have the content digests (:func:`~twosat_formal.experiments.manifest.
content_digest`, durations left out) that a previous run certified.

In a ``pairs`` experiment every base that has a minimal twin is followed by it
(:func:`twosat_formal.diagnostics.twins.twin_instance`), verbalized like an edited
instance with its source's entity map.

In a ``story`` experiment every base is also told as a story in each theme of the spec
by the story model (:mod:`twosat_formal.experiments.stories`); the evaluated models
answer the story prompts beside the template prompts of the same formulas.

In an ``edits`` experiment every base is followed by its edited instances
(:func:`twosat_formal.edits.edit_instances`, one run per mode), and an edited instance
is verbalized with the seed of its origin and its origin's example JSON: the same
entity map, so only the edited clauses' sentences differ from the origin's prompt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from twosat_formal.edits import edit_instances
from twosat_formal.edits.classify import EDIT_KIND
from twosat_formal.errors import CertificateError, ConfigError
from twosat_formal.evaluate import EvalItem, EvalSummary, Verification, evaluate, verify_items
from twosat_formal.experiments.design import Condition, expand
from twosat_formal.experiments.manifest import (
    content_digest,
    environment,
    read_manifest,
    write_manifest,
)
from twosat_formal.experiments.spec import ExperimentSpec, load_spec
from twosat_formal.experiments.stories import (
    check_story_model,
    story_items,
    tell_experiment_stories,
)
from twosat_formal.export import export_results
from twosat_formal.generators import derive_seed, generate
from twosat_formal.instance import Instance, write_instances
from twosat_formal.model import Model, SamplingParams
from twosat_formal.models import parse_spec as parse_model_spec
from twosat_formal.perturb.instances import perturb_instance
from twosat_formal.prompts import PromptRecord, write_prompts
from twosat_formal.report.files import (
    DATASET_FILE,
    DESIGN_FILE,
    MANIFEST_FILE,
    PROMPTS_FILE,
    RESULTS_FILE,
    STORE_FILE,
    STORIES_FILE,
)
from twosat_formal.store import RunStore
from twosat_formal.verbalize import example_formula, prompt_record

__all__ = [
    "PROMPTS_FILE",
    "RESULTS_FILE",
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
    from twosat_formal.diagnostics.twins import NoTwinError, twin_instance

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

    >>> from twosat_formal.experiments.spec import load_spec
    >>> from twosat_formal.experiments.design import expand
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

    >>> from twosat_formal.edits import apply_edit, root_instance
    >>> from twosat_formal.formula import Formula
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
    ask_cycle: bool = False,
) -> list[PromptRecord]:
    records = []
    for number, instance in enumerate(instances, start=1):
        example = example_formula(instance.formula, instance.transforms)
        for template in templates:
            verbal_seed = derive_seed(seed, "verbalize", _entity_key(instance)) % (2**31)
            records.append(
                prompt_record(
                    instance.formula,
                    template,
                    instance_id=instance.id,
                    seed=verbal_seed,
                    ask_cycle=ask_cycle,
                    example_from=example,
                )
            )
        if number % 25 == 0:
            report("verbalize", f"{number}/{len(instances)} instances")
    return records


def _certify(files: Sequence[Path], jobs: int) -> dict[str, Any]:
    """Re-check every instance, prompt and story (``certify``); raise if any check fails."""
    from twosat_formal.certify import certify_files

    outcome = certify_files(list(files), jobs=jobs)
    if not outcome.ok:
        shown = "; ".join(str(f) for f in outcome.failures[:5])
        more = len(outcome.failures) - 5
        raise CertificateError(
            f"certify found {len(outcome.failures)} failed checks: {shown}"
            + (f" (and {more} more)" if more > 0 else "")
        )
    summary = outcome.to_json()
    return {
        "ok": True,
        "records": summary["records"],
        "kinds": summary["kinds"],
        "checks": summary["checks"],
        "seconds": summary["seconds"],
        "z3_seconds": summary["z3_seconds"],
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


def run_experiment(
    name: str | ExperimentSpec,
    models: Sequence[str],
    *,
    out_dir: str | Path,
    formulas: int | None = None,
    templates: Sequence[str] | None = None,
    seed: int | None = None,
    story_model: str | Model | None = None,
    themes: Sequence[str] | None = None,
    samples: int = 1,
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    concurrency: int = 8,
    jobs: int = 1,
    certify: bool = True,
    verify: bool = True,
    make_report: bool = True,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: str = "chat",
    timeout_s: float | None = None,
    progress: bool = False,
    console: Console | None = None,
    report: Reporter = quiet,
) -> ExperimentResult:
    """Run experiment ``name`` (a shipped spec, a spec file, or a spec) on ``models``.

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
    formulas:
        Formulas per setting instead of the spec's.
    templates:
        Verbalization templates instead of the spec's.
    seed:
        The experiment seed instead of the spec's.
    story_model:
        The model that writes the stories of a ``story`` experiment (a spec, or a
        model); required there and refused elsewhere. Its calls are cached in the
        run store.
    themes:
        Story themes instead of the spec's (``story`` experiments).
    samples, max_tokens, temperature, top_p:
        Sampling: samples per prompt and model, and the request parameters
        (defaults: the spec's ``sampling``). A model the spec's ``sampling.models``
        names gets its own parameters as options of its spec, and options in a model
        spec (``openai/m?max_tokens=16384``) win over both.
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
        Write the report into ``out_dir``.
    base_url, api_key_env, mode:
        For ``openai/`` models (see :func:`twosat_formal.models.load_model`).
    timeout_s:
        Seconds one request may take (default: the client's, 300 s).
    progress:
        Show the evaluation progress bar (on ``console``, default stderr).
    console:
        The rich console of the progress bar.
    report:
        ``(stage, detail)`` callback for progress messages.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ConfigError, UnknownNameError
        For a bad spec, parameter, template or model spec.
    CertificateError, ProofError, SolverDisagreementError
        If any instance or prompt fails certification (nothing is evaluated then).
    """
    spec = name if isinstance(name, ExperimentSpec) else load_spec(name)
    if formulas is not None:
        spec = spec.with_formulas(formulas)
    if templates is not None:
        spec = spec.with_templates(tuple(templates))
    if seed is not None:
        spec = replace(spec, seed=seed)
    if themes is not None:
        spec = spec.with_themes(tuple(themes))
    check_story_model(spec, story_model)
    if not models:
        raise ConfigError("give at least one model", parameter="models", valid="a model spec")
    models = [spec.model_spec(model) for model in models]  # the spec's own budgets
    for model in models:  # refuse a bad spec before generating anything
        parse_model_spec(model)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}

    def timed(stage: str, started: float) -> None:
        seconds[stage] = round(time.perf_counter() - started, 3)
        report(stage, f"done in {seconds[stage]:.1f} s")

    started = time.perf_counter()
    conditions = expand(spec)
    report("generate", f"{len(conditions)} formulas ({spec.name})")
    instances, design = build_dataset(conditions, report=report)
    dataset_path = folder / DATASET_FILE
    write_instances(instances, dataset_path)
    (folder / DESIGN_FILE).write_text(_design_text(design), encoding="utf-8")
    timed("generate", started)

    started = time.perf_counter()
    prompts = _prompts(
        instances, spec.templates, spec.seed, report=report, ask_cycle=spec.ask_cycle
    )
    prompts_path = folder / PROMPTS_FILE
    write_prompts(prompts, prompts_path)
    timed("verbalize", started)

    checked = [dataset_path, prompts_path]
    stories: list[Any] = []
    story_info: dict[str, Any] | None = None
    if story_model is not None:
        started = time.perf_counter()
        stories, story_info = tell_experiment_stories(
            instances,
            spec,
            story_model,
            folder,
            concurrency=concurrency,
            base_url=base_url,
            api_key_env=api_key_env,
            mode=mode,
            report=report,
        )
        checked.append(folder / STORIES_FILE)
        timed("stories", started)
    digests = {path.name: content_digest(path) for path in checked}
    previous = read_manifest(folder / MANIFEST_FILE) or {}
    certified: dict[str, Any] = {"ok": False, "skipped": True}
    if certify:
        prior = previous.get("certified") or {}
        if prior.get("ok") and previous.get("digests") == digests:
            certified = {**prior, "reused": True}
            report("certify", "unchanged files, certified by a previous run")
        else:
            started = time.perf_counter()
            certified = _certify(checked, jobs)
            timed("certify", started)

    params = SamplingParams(
        max_tokens=int(
            max_tokens
            if max_tokens is not None
            else spec.sampling.get("max_tokens", SamplingParams().max_tokens)
        ),
        temperature=temperature if temperature is not None else spec.sampling.get("temperature"),
        top_p=top_p if top_p is not None else spec.sampling.get("top_p"),
        seed=spec.sampling.get("seed"),
    )
    manifest: dict[str, Any] = {
        "experiment": spec.name,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **environment(),
        "spec": spec.to_json(),
        "seed": spec.seed,
        "formulas": spec.formulas,
        "templates": list(spec.templates),
        "models": list(models),
        "sampling": {**json.loads(params.key()), "samples": samples},
        **({"story": story_info} if story_info is not None else {}),
        "counts": {
            "conditions": len(conditions),
            "instances": len(instances),
            "prompts": len(prompts),
            **({"stories": len(stories)} if story_info is not None else {}),
            "requests": (len(prompts) + len(stories)) * len(models) * samples,
        },
        "digests": digests,
        "certified": certified,
        "files": {
            "dataset": DATASET_FILE,
            "design": DESIGN_FILE,
            "prompts": PROMPTS_FILE,
            **({"stories": STORIES_FILE} if story_info is not None else {}),
            "store": STORE_FILE,
            "results": RESULTS_FILE,
        },
    }
    write_manifest(folder / MANIFEST_FILE, manifest)

    started = time.perf_counter()
    formulas_by_id = {inst.id: inst for inst in instances}
    items = [
        EvalItem(
            record,
            formulas_by_id[record.instance_id].formula,
            formulas_by_id[record.instance_id].label,
            formulas_by_id[record.instance_id].to_record(),
        )
        for record in prompts
    ] + story_items(stories, instances)
    verification = verify_items(items) if verify else Verification(0, skipped=True)
    manifest["verification"] = verification.to_json()
    write_manifest(folder / MANIFEST_FILE, manifest)
    report("evaluate", f"{len(items)} prompts x {len(models)} models x {samples} samples")
    with RunStore(folder / STORE_FILE) as store:
        summary = evaluate(
            list(models),
            items,
            store,
            base_url=base_url,
            api_key_env=api_key_env,
            mode=mode,
            timeout_s=timeout_s,
            params=params,
            samples=samples,
            concurrency=concurrency,
            progress=progress,
            console=console,
            run_info={"experiment": spec.name, "verification": verification.to_json()},
        )
        export_results(store, folder / RESULTS_FILE)
    timed("evaluate", started)
    manifest["evaluation"] = summary.to_dict()
    manifest["seconds"] = dict(seconds)
    write_manifest(folder / MANIFEST_FILE, manifest)

    report_path = None
    if make_report:
        from twosat_formal.report import build_report

        started = time.perf_counter()
        report_path = build_report(folder, folder)
        timed("report", started)
    return ExperimentResult(
        name=spec.name,
        out_dir=folder,
        instances=len(instances),
        prompts=len(prompts),
        certified=certified,
        evaluation=summary,
        report=report_path,
        manifest=manifest,
        seconds=seconds,
    )
