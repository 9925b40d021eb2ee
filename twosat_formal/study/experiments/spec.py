"""Experiment specs: declarative JSON files shipped in ``twosat_formal/study/experiments/specs``.

A spec names the protocol of one of the paper's experiments. Its fields:

``name``, ``title``, ``paper``, ``description``
    What it is and which part of the paper it reproduces.
``kind``
    How its cells expand into conditions (see :mod:`twosat_formal.study.experiments.design`):
    ``grid``, ``sweep``, ``fillers``, ``order``, ``duplication``, ``edits``, ``pairs`` or
    ``story``.
``formulas``
    Formulas per setting (the paper uses 10).
``seed``
    The experiment's seed; each formula's seed is derived from it.
``knob_level``
    The value of every difficulty knob that the setting does not vary (0.5). Filler
    knobs (``filler_share``) keep their family default: fillers are studied apart.
``templates``
    The verbalization templates; every formula is verbalized with each of them.
``sampling``
    Default sampling parameters (``max_tokens``, ``temperature``, ``top_p``, ``seed``,
    ``max_completion_tokens``, ``reasoning_effort``),
    and under ``models`` the parameters of single models, by spec
    (``{"max_tokens": 32768, "models": {"openai/phi-4-reasoning": {"max_tokens":
    16384}}}``, Table 4's budgets). A model's own parameters travel in its spec's
    options (:meth:`ExperimentSpec.model_spec`), where options the spec already has win.
``cells``
    The settings, in the form the ``kind`` reads.
``ask_cycle`` (optional, default false)
    Verbalize as ``verbalize --ask-cycle`` does: every prompt also asks for a
    contradiction chain when the answer is "No" (see ``docs/diagnostics.md``).
``questions`` (optional, default ``["decision"]``)
    The question types every formula is asked (``verbalize --ask``; see
    ``docs/verbalization.md``), each where the instance allows it; the ``questions``
    experiment asks them all, and its report gives the accuracy per type and family
    beside the decision accuracy of the same formulas.
``themes`` (``story`` only; default: every registered story theme)
    The story themes each formula is told in by the LLM story verbalizer, beside its
    template verbalizations.

Examples
--------
>>> sorted(spec_names())  # doctest: +NORMALIZE_WHITESPACE
['duplication', 'edits', 'fillers', 'order', 'pairs', 'questions', 'story', 'sweep', 'table1',
 'table6', 'verbalization']
>>> spec = load_spec("table1")
>>> spec.kind, spec.formulas, len(spec.templates)
('grid', 10, 6)
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from twosat_formal.core.jsonread import loads
from twosat_formal.core.params import check
from twosat_formal.core.records import read_record
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.evaluate.models.base import (
    OPTION_RULES,
    SAMPLING_OPTIONS,
    SAMPLING_TEXT,
)
from twosat_formal.io.jsonl import read_text
from twosat_formal.solve.questions import parse_ask

__all__ = ["KINDS", "ExperimentSpec", "load_spec", "parse_spec", "spec_names"]

#: How a spec's cells expand into conditions (:mod:`twosat_formal.study.experiments.design`).
Kind = Literal["grid", "sweep", "fillers", "order", "duplication", "edits", "pairs", "story"]
#: The kinds of experiment a spec can describe.
KINDS: tuple[str, ...] = get_args(Kind)

#: A JSON list is read as the spec's tuple.
_AS_TUPLE = BeforeValidator(lambda v: tuple(v) if isinstance(v, list) else v)


def _cell(cell: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(cell.get("family"), str):
        raise ValueError("a cell names its generator 'family' (a string)")
    return cell


def _sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    """``sampling`` as it is, once its parameters and each model's passed :data:`SAMPLING_TEXT`."""
    per_model = sampling.get("models", {})
    if not isinstance(per_model, dict) or not all(isinstance(v, dict) for v in per_model.values()):
        raise ValueError("'models' must map model specs to objects")
    _sampling_options("", {k: v for k, v in sampling.items() if k != "models"})
    for model, options in per_model.items():
        _sampling_options(f"models[{model!r}]: ", options)
    return sampling


def _sampling_options(where: str, options: dict[str, Any]) -> None:
    def unknown(key: str) -> ValueError:
        known = ", ".join(SAMPLING_OPTIONS)
        return ValueError(f"{where}unknown sampling parameter {key!r} (known: {known})")

    try:
        check(SAMPLING_TEXT, OPTION_RULES, options, unknown)
    except ConfigError as exc:
        raise ValueError(f"{where}{exc}") from None


def _questions(questions: tuple[str, ...]) -> tuple[str, ...]:
    try:
        return parse_ask(questions)
    except ConfigError as exc:
        raise ValueError(f"{exc} (valid: {exc.valid})") from None


class ExperimentSpec(BaseModel):
    """A checked experiment spec (see the module docstring for the fields).

    Read strictly, as records are (:func:`~twosat_formal.core.records.read_record`): a field
    of the wrong type, out of its range or unknown to its table is named in the error.
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    name: str
    title: str
    paper: str = ""
    description: str = ""
    kind: Kind
    formulas: Annotated[int, Field(ge=1)]
    seed: int = 0
    knob_level: Annotated[float, Field(ge=0, le=1)] = 0.5
    templates: Annotated[tuple[str, ...], _AS_TUPLE, Field(min_length=1)]
    sampling: Annotated[dict[str, Any], AfterValidator(_sampling)] = Field(default_factory=dict)
    cells: Annotated[
        tuple[Annotated[dict[str, Any], AfterValidator(_cell)], ...], _AS_TUPLE, Field(min_length=1)
    ]
    ask_cycle: bool = False
    themes: Annotated[tuple[str, ...], _AS_TUPLE] = ()
    questions: Annotated[
        tuple[str, ...], _AS_TUPLE, Field(min_length=1), AfterValidator(_questions)
    ] = ("decision",)

    @model_validator(mode="before")
    @classmethod
    def _story_default(cls, data: Any) -> Any:
        """A story without themes is told in every registered one."""
        if isinstance(data, dict) and data.get("kind") == "story" and "themes" not in data:
            return {**data, "themes": None}
        return data

    @field_validator("themes", mode="before")
    @classmethod
    def _story_themes(cls, themes: Any, info: ValidationInfo) -> Any:
        """A story's themes, checked; no other kind has any."""
        if info.data.get("kind") != "story":
            raise ValueError("only a story experiment has themes")
        try:
            return _check_themes(themes)
        except UnknownNameError as exc:
            raise ValueError(str(exc)) from None

    @property
    def asks(self) -> tuple[str, ...]:
        """The question types prompts ask: ``questions``, ``chain`` in place of
        ``decision`` when ``ask_cycle`` is set.

        >>> load_spec("questions").asks
        ('decision', 'forced', 'entails', 'core', 'repair', 'maxsat')
        """
        if not self.ask_cycle:
            return self.questions
        return tuple("chain" if q == "decision" else q for q in self.questions)

    def model_spec(self, model: str) -> str:
        """``model`` with the spec's own sampling parameters for it as ``?`` options.

        Options ``model`` already carries win; a model the spec does not name is
        returned as it is.

        >>> spec = parse_spec({"name": "x", "title": "x", "kind": "grid", "formulas": 1,
        ...     "templates": ["logic"], "cells": [{"family": "backbone"}],
        ...     "sampling": {"models": {"openai/phi-4": {"max_tokens": 16384}}}})
        >>> spec.model_spec("openai/phi-4"), spec.model_spec("openai/phi-4?max_tokens=9")
        ('openai/phi-4?max_tokens=16384', 'openai/phi-4?max_tokens=9')
        >>> spec.model_spec("ref/oracle")
        'ref/oracle'
        """
        from urllib.parse import parse_qsl, urlencode

        base, _, query = model.partition("?")
        own = (self.sampling.get("models") or {}).get(base) or {}
        given = dict(parse_qsl(query, keep_blank_values=True))
        added = {k: _option_text(v) for k, v in sorted(own.items()) if k not in given}
        if not added:
            return model
        return f"{model}{'&' if query else '?'}{urlencode(added)}"

    def to_json(self) -> dict[str, Any]:
        """The spec as a JSON object (what a manifest records), its fields in order;
        ``ask_cycle``, ``themes`` and ``questions`` only when they are not the defaults.

        >>> load_spec("order").to_json()["kind"]
        'order'
        """
        unset = {"ask_cycle": False, "themes": (), "questions": ("decision",)}
        return self.model_dump(
            mode="json", exclude={k for k, v in unset.items() if getattr(self, k) == v}
        )

    def with_formulas(self, formulas: int) -> ExperimentSpec:
        """This spec with another number of formulas per setting.

        >>> load_spec("table1").with_formulas(2).formulas
        2
        """
        if isinstance(formulas, bool) or not isinstance(formulas, int) or formulas < 1:
            raise ConfigError(
                f"formulas must be a positive integer, got {formulas!r}",
                parameter="formulas",
                valid=">= 1",
            )
        return self.model_copy(update={"formulas": formulas})

    def with_templates(self, templates: list[str] | tuple[str, ...]) -> ExperimentSpec:
        """This spec with other verbalization templates.

        >>> load_spec("table1").with_templates(["logic"]).templates
        ('logic',)
        """
        if not templates:
            raise ConfigError("at least one template is needed", parameter="templates")
        return self.model_copy(update={"templates": tuple(templates)})

    def with_themes(self, themes: list[str] | tuple[str, ...]) -> ExperimentSpec:
        """This ``story`` spec with other story themes.

        >>> load_spec("story").with_themes(["spy"]).themes
        ('spy',)
        """
        if self.kind != "story":
            raise ConfigError(
                f"only a story experiment has themes; {self.name} is a {self.kind} experiment",
                parameter="themes",
            )
        return self.model_copy(update={"themes": _check_themes(list(themes))})

    def with_max_clauses(self, max_clauses: int) -> ExperimentSpec:
        """This spec without the clause counts above ``max_clauses`` (grid-like cells).

        Cells left without a clause count are dropped.

        >>> small = load_spec("table1").with_max_clauses(10)
        >>> [(c["family"], c["clauses"]) for c in small.cells]
        [('implication-cycle', [5, 10]), ('equivalence-core', [10]), ('mono-bridge', [10])]
        """
        cells = []
        for cell in self.cells:
            sizes = cell.get("clauses")
            if isinstance(sizes, list):
                kept = [c for c in sizes if isinstance(c, int) and c <= max_clauses]
                if kept:
                    cells.append({**cell, "clauses": kept})
            elif isinstance(sizes, int) and sizes <= max_clauses:
                cells.append(dict(cell))
        if not cells:
            raise ConfigError(
                f"no setting of {self.name} has at most {max_clauses} clauses",
                parameter="max_clauses",
            )
        return self.model_copy(update={"cells": tuple(cells)})


def _specs_dir() -> Path:
    return Path(str(resources.files("twosat_formal.study.experiments") / "specs"))


def spec_names() -> list[str]:
    """Names of the specs shipped with the package, sorted.

    >>> "sweep" in spec_names()
    True
    """
    return sorted(p.stem for p in _specs_dir().glob("*.json"))


def parse_spec(
    data: object, *, source: str | None = None, text: str | None = None
) -> ExperimentSpec:
    """Check a spec's JSON object and build the :class:`ExperimentSpec`.

    Raises :class:`RecordError` naming the field that is missing or malformed (and its
    line, given the spec's JSON ``text``).

    >>> parse_spec({"name": "x", "title": "X", "kind": "grid", "formulas": 1,
    ...             "templates": ["logic"], "cells": [{"family": "backbone",
    ...             "clauses": [20]}]}).cells[0]["family"]
    'backbone'
    >>> parse_spec({"name": "x"})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: missing field 'title'
    >>> parse_spec({"name": "x", "title": "X", "kind": "grid", "formulas": 0,
    ...             "templates": ["logic"], "cells": [{"family": "backbone"}]})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: field 'formulas' must be >= 1, not 0
    """
    return read_record(ExperimentSpec, data, what="a spec", source=source, text=text)


def _check_themes(themes: object) -> tuple[str, ...]:
    """Distinct registered story themes (``None``: every registered one).

    >>> _check_themes(None)
    ('detective', 'spy', 'heist')
    """
    from twosat_formal.verbalize.story.themes import THEMES

    if themes is None:
        return tuple(THEMES.names())
    if (
        not isinstance(themes, list)
        or not themes
        or not all(isinstance(t, str) for t in themes)
        or len(set(themes)) != len(themes)
    ):
        raise ConfigError(
            "themes must be a non-empty list of distinct story themes",
            parameter="themes",
            valid=", ".join(THEMES.names()),
        )
    for theme in themes:
        THEMES.get(theme)  # UnknownNameError for a theme nobody registered
    return tuple(themes)


def _option_text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def load_spec(name_or_path: str | os.PathLike[str]) -> ExperimentSpec:
    """A shipped spec by name (``table1``...), or a spec file by path.

    >>> load_spec("nope")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.UnknownNameError: unknown experiment 'nope'; choose one of: \
duplication, edits, fillers, order, pairs, questions, story, sweep, table1, table6, verbalization
    """
    text_name = os.fspath(name_or_path)
    path = Path(text_name)
    if not path.suffix:
        if text_name not in spec_names():
            raise UnknownNameError("experiment", text_name, spec_names())
        path = _specs_dir() / f"{text_name}.json"
    text = read_text(path, source=str(path))
    return parse_spec(loads(text, source=str(path)), source=str(path), text=text)
