"""Options that several commands share, declared once.

Options that are the same everywhere are Typer ``Annotated`` aliases
(:data:`ProgressOption`, ...); options that only differ by their help text, one
command to the next, come from small factories returning the ``typer.Option``
(:func:`out_option`, :func:`model_option`, ...), and so does a command's positional
input (:func:`input_argument`). Options that several commands take
together are one option group (:class:`RunnerOptions`, :class:`SamplingOptions`, ...),
a dataclass of aliases that a command declares as one parameter (:func:`option_groups`).

Examples
--------
>>> out_option("Write the dataset here.", "stdout").show_default
'stdout'
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from twosat_formal.core.model import DEFAULT_MAX_TOKENS, SamplingParams, extra_body

if TYPE_CHECKING:
    from twosat_formal._util.executors import Executor
    from twosat_formal.study.experiments.runner import ExperimentConfig

__all__ = [
    "ApiKeyEnvOption",
    "BaseUrlOption",
    "BodyOption",
    "ConcurrencyOption",
    "ExecutorOption",
    "ExperimentOptions",
    "ExperimentSeedOption",
    "FormulaFormat",
    "JobsOption",
    "JsonOption",
    "MaxCompletionTokensOption",
    "MaxTokensOption",
    "ModelConcurrencyOption",
    "NoVerifyOption",
    "ProgressOption",
    "RayAddressOption",
    "ReasoningEffortOption",
    "RequestModeOption",
    "RpmOption",
    "RunnerOptions",
    "SamplesOption",
    "SamplingOptions",
    "SamplingSeedOption",
    "ShardOption",
    "SummaryJsonOption",
    "TemperatureOption",
    "TemplatesOption",
    "TimeoutOption",
    "TopPOption",
    "TpmOption",
    "dataset_option",
    "executor_option",
    "input_argument",
    "jobs_option",
    "json_option",
    "model_option",
    "option_groups",
    "out_option",
    "seed_option",
    "store_option",
]


class FormulaFormat(StrEnum):
    """The formats a command prints a formula in (``parse --to``, ``backparse --to``)."""

    dsl = "dsl"
    dimacs = "dimacs"


BaseUrlOption = Annotated[
    str | None,
    typer.Option("--base-url", help="API root of openai/ models (default: $OPENAI_BASE_URL)."),
]
ApiKeyEnvOption = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        help="Environment variable that holds the API key (default: OPENAI_API_KEY). "
        "The key itself is never stored or printed.",
    ),
]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, help="Requests in flight at most.")
]
ProgressOption = Annotated[
    bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr.")
]
TemplatesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--template",
        metavar="NAME",
        help="Verbalization template, repeatable (default: the spec's).",
    ),
]


def executor_option(metavar: str, help: str, show_default: bool | str = True) -> Any:
    """``--executor``: the executors the command can run on, and what runs there."""
    return typer.Option("--executor", metavar=metavar, help=help, show_default=show_default)


def jobs_option(help: str, show_default: bool | str = True) -> Any:
    """``--jobs/-j``: how many workers the command's executor starts."""
    return typer.Option("--jobs", "-j", min=1, help=help, show_default=show_default)


ExecutorOption = Annotated[
    str | None,
    executor_option(
        "local|process|ray",
        "Where the per-record work runs (default: local, or process with --jobs > 1); "
        "the output is the same on each, but for measured times (proof seconds).",
        show_default=False,
    ),
]
JobsOption = Annotated[
    int | None,
    jobs_option("Workers of the process/ray executor (default: the CPUs here, or the cluster's)."),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        envvar="RAY_ADDRESS",
        help="Ray cluster to run on (default $RAY_ADDRESS; else a local Ray is started).",
    ),
]
NoVerifyOption = Annotated[
    bool,
    typer.Option(
        "--no-verify",
        help="Send the prompts without re-deriving each from its instance first "
        "(recorded in the store and manifest).",
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout instead of text.")
]
TemperatureOption = Annotated[
    float | None,
    typer.Option(
        "--temperature",
        help="Sampling temperature (not sent unless given).",
        show_default="server default",
    ),
]
TopPOption = Annotated[
    float | None,
    typer.Option(
        "--top-p",
        help="Nucleus sampling mass (not sent unless given).",
        show_default="server default",
    ),
]
MaxCompletionTokensOption = Annotated[
    int | None,
    typer.Option(
        "--max-completion-tokens",
        min=1,
        help="Token budget sent as max_completion_tokens instead of max_tokens "
        "(OpenAI's reasoning models refuse max_tokens).",
        show_default="not sent",
    ),
]
ReasoningEffortOption = Annotated[
    str | None,
    typer.Option(
        "--reasoning-effort",
        help="reasoning_effort of reasoning models: none, minimal, low, medium or high.",
        show_default="not sent",
    ),
]
BodyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--body",
        metavar="KEY=VALUE",
        help="One more field of every request body (repeatable); a VALUE that is JSON "
        "is sent as that JSON (top_k=20, chat_template_kwargs='{\"enable_thinking\": false}').",
        show_default=False,
    ),
]
SamplingSeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help="Sampling seed (sample k is sent with seed + k; not sent unless given).",
        show_default="server default",
    ),
]
ShardOption = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="I/N",
        help="Do only block I (0-based) of N contiguous blocks of the input records; "
        "the outputs of 0..N-1 concatenated (eval: the stores merged) are one run's.",
        show_default="all",
    ),
]


MaxTokensOption = Annotated[
    int,
    typer.Option(
        "--max-tokens",
        min=1,
        help=f"Token budget of each answer (the paper's {DEFAULT_MAX_TOKENS}; a model spec may "
        "set its own: "
        "openai/m?max_tokens=16384).",
    ),
]
SamplesOption = Annotated[
    int, typer.Option("--samples", min=1, help="Samples per prompt and model.")
]
StrategyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--strategy",
        metavar="NAME",
        help="Reasoning strategy: direct (the prompt as it is), cot, symbolic-cot or "
        "sample-k[:K] (K samples, majority vote; K=5 by default); repeat it to compare "
        "strategies. Recorded with every result and part of its store key.",
        show_default="direct",
    ),
]
ExperimentSeedOption = Annotated[
    int | None, typer.Option("--seed", help="Experiment seed (default: the spec's).")
]
SummaryJsonOption = Annotated[
    bool, typer.Option("--json", help="Print the summary as one JSON object.")
]
RequestModeOption = Annotated[
    str,
    typer.Option(
        "--mode",
        metavar="chat|completion",
        help="Request dialect: /v1/chat/completions (messages) or /v1/completions (raw prompt).",
    ),
]


def _limit_option(flag: str, low: float, what: str, query: str, unset: str = "no limit") -> Any:
    """A per-model limit of ``eval``; a model spec's own ``?query`` wins over it."""
    return typer.Option(flag, min=low, help=f"{what} (a spec's ?{query} wins).", show_default=unset)


ModelConcurrencyOption = Annotated[
    int | None,
    _limit_option(
        "--model-concurrency", 1, "Requests in flight per model", "concurrency=N", "--concurrency"
    ),
]
RpmOption = Annotated[
    float | None, _limit_option("--rpm", 0.001, "Requests per minute per model", "rpm=R")
]
TpmOption = Annotated[
    float | None,
    _limit_option("--tpm", 1, "Tokens per minute per model, prompt plus answer budget", "tpm=T"),
]
TimeoutOption = Annotated[
    float,
    typer.Option("--timeout", min=1.0, metavar="SECONDS", help="Seconds one request may take."),
]


def input_argument(help: str, metavar: str = "INPUT") -> Any:
    """The command's positional input, ``metavar``: what it reads (no default shown).

    >>> argument = input_argument("Run stores to merge.", "STORE.sqlite...")
    >>> argument.metavar, argument.help, argument.show_default
    ('STORE.sqlite...', 'Run stores to merge.', False)
    """
    return typer.Argument(metavar=metavar, help=help, show_default=False)


def out_option(help: str, show_default: bool | str = True, *, metavar: str | None = None) -> Any:
    """``--out/-o``: what the command writes there, and what it does without it
    (``metavar="DIR"`` where it is a folder; a path is ``FILE`` otherwise)."""
    return typer.Option("--out", "-o", help=help, show_default=show_default, metavar=metavar)


def model_option(help: str, *, metavar: str = "SPEC", show_default: bool | str = True) -> Any:
    """``--model/-m``: a model spec (or name), with what the command asks it."""
    return typer.Option("--model", "-m", metavar=metavar, help=help, show_default=show_default)


def seed_option(help: str) -> Any:
    """``--seed``: what the seed draws in this command."""
    return typer.Option("--seed", help=help)


def store_option(help: str, show_default: bool | str = True) -> Any:
    """``--store``: the run store, and what the command keeps there."""
    return typer.Option("--store", help=help, show_default=show_default)


def dataset_option(help: str) -> Any:
    """``--dataset``: the instances that prompts verbalize (none by default)."""
    return typer.Option("--dataset", help=help, show_default="none")


def json_option(help: str) -> Any:
    """``--json``: what the command prints as JSON instead of text."""
    return typer.Option("--json", help=help)


@dataclasses.dataclass(frozen=True)
class RunnerOptions:
    """How a command runs its records: --progress, --executor, --jobs and --ray-address.

    An option group: a command declares it as one parameter, with the group's defaults
    as its default (see :func:`option_groups`).

    Examples
    --------
    >>> with RunnerOptions(jobs=1).open() as runner:
    ...     type(runner).__name__
    'LocalExecutor'
    """

    progress: ProgressOption = True
    executor: ExecutorOption = None
    jobs: JobsOption = None
    ray_address: RayAddressOption = None

    def __post_init__(self) -> None:
        from twosat_formal._util.executors import check_jobs

        check_jobs(self.jobs)  # also where a small input runs here without workers

    def open(self) -> Executor:
        """The executor the options name (``--jobs`` above 1 alone selects ``process``)."""
        from twosat_formal._util.executors import make_executor

        kind = self.executor
        if kind is None:
            kind = "process" if self.jobs is not None and self.jobs > 1 else "local"
        return make_executor(kind, jobs=self.jobs, ray_address=self.ray_address)


@dataclasses.dataclass(frozen=True)
class ExperimentOptions:
    """How ``run-experiment`` and ``bench`` reach their models, and what they show and check.

    An option group (see :func:`option_groups`): --base-url, --api-key-env, --progress
    and --no-verify, which :meth:`config` turns into the fields of an experiment's
    configuration.

    Examples
    --------
    >>> ExperimentOptions(no_verify=True).config(samples=2).verify
    False
    """

    base_url: BaseUrlOption = None
    api_key_env: ApiKeyEnvOption = None
    progress: ProgressOption = True
    no_verify: NoVerifyOption = False

    def config(self, **fields: Any) -> ExperimentConfig:
        """The run's experiment configuration: ``fields`` and these options."""
        from twosat_formal.study.experiments.runner import ExperimentConfig

        return ExperimentConfig(
            verify=not self.no_verify,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            progress=self.progress,
            **fields,
        )


_Result = TypeVar("_Result")


def option_groups(command: Callable[..., _Result]) -> Callable[..., _Result]:
    """``command`` with each parameter typed as an option group spread into the group's options.

    Typer reads a command's options from its signature. An option group is a dataclass
    whose fields are option aliases with defaults (:class:`RunnerOptions`); in the
    signature Typer sees, a parameter of that type stands as the group's fields, in
    their order, and the command receives them as one value of the group.

    Examples
    --------
    >>> def run(name: str, runner: RunnerOptions = RunnerOptions()) -> str:
    ...     return f"{name} on {runner.executor or 'local'}"
    >>> command = option_groups(run)
    >>> list(inspect.signature(command).parameters)
    ['name', 'progress', 'executor', 'jobs', 'ray_address']
    >>> command(name="x", progress=False, executor="process", jobs=2, ray_address=None)
    'x on process'
    """
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, type[Any]] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        group = parameter.annotation
        if not (isinstance(group, type) and dataclasses.is_dataclass(group)):
            parameters.append(parameter)
            continue
        groups[parameter.name] = group
        hints = typing.get_type_hints(group, include_extras=True)
        parameters += [
            inspect.Parameter(
                field.name, parameter.kind, default=field.default, annotation=hints[field.name]
            )
            for field in dataclasses.fields(group)
        ]

    @functools.wraps(command)
    def grouped(**values: Any) -> _Result:
        for name, group in groups.items():
            fields = {field.name: values.pop(field.name) for field in dataclasses.fields(group)}
            values[name] = group(**fields)
        return command(**values)

    grouped.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return grouped


@dataclasses.dataclass(frozen=True)
class SamplingOptions:
    """What every request of ``eval`` and ``batch prepare`` samples with, beyond its token
    budget: --temperature, --top-p, --seed, --max-completion-tokens, --reasoning-effort
    and --body.

    An option group (see :func:`option_groups`); :meth:`params` builds (and so checks)
    the sampling parameters when the command asks for them.

    Examples
    --------
    >>> params = SamplingOptions(temperature=0.5, body=["top_k=20"]).params(100)
    >>> params.max_tokens, params.temperature, params.extra_body
    (100, 0.5, (('top_k', '20'),))
    """

    temperature: TemperatureOption = None
    top_p: TopPOption = None
    seed: SamplingSeedOption = None
    max_completion_tokens: MaxCompletionTokensOption = None
    reasoning_effort: ReasoningEffortOption = None
    body: BodyOption = None

    def params(self, max_tokens: int) -> SamplingParams:
        """The sampling parameters of these options and ``max_tokens`` (``--body
        KEY=VALUE`` texts read by :func:`~twosat_formal.core.model.extra_body`)."""
        return SamplingParams(
            max_tokens=max_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
            max_completion_tokens=self.max_completion_tokens,
            reasoning_effort=self.reasoning_effort,
            extra_body=extra_body(self.body or ()),
        )
