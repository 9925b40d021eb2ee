"""Procedural datasets and a verifiable reward for training reasoners (reasoning-gym style).

:func:`create_dataset` returns an indexable dataset of ``{"question", "answer",
"metadata"}`` items. Item ``i`` is drawn from its own seed, ``derive_seed(seed, i)``,
so it is the same in every process, whatever the dataset's size and whichever items
were drawn before. Each item draws a family, a clause count, the family's difficulty
knobs, a template and a seed, generates a labelled instance (its label from the
solver) and verbalizes it with the evaluation prompt of App. G.2. ``answer`` is the
complete answer that earns the full reward (:func:`gold_answer`: the solver's model as
the JSON assignment, or its contradiction cycle as a chain, then the answer line), as in
every reasoning-gym dataset; ``metadata`` holds the family, the knobs and the resolved
parameters, the label, the entity map and value words, and the formula as DIMACS:
everything :func:`score_answer` needs, so an item scores without this package's data.

By default (``balance``) even items are SAT and odd items UNSAT, so no constant answer
earns more than half the reward; ``require_chain`` asks for a contradiction chain after
a "No" and rewards a "No" only with a valid one.

Datasets: ``twosat`` (a mix of the families) and ``twosat-<family>`` for each family
(``twosat-implication-cycle``, ``twosat-equivalence-core``, ``twosat-backbone``,
``twosat-mono-bridge``, ``twosat-symmetry``); :data:`DATASET_NAMES` lists them.

:func:`score_answer` is the reward: 1.0 for the right decision with its certificate
(on a SAT instance a valid witness; on an UNSAT one, with ``require_chain``, a valid
chain); 0.0 otherwise. It reads the model's whole answer with the
scorer ``eval`` uses (the strict answer line by default; ``lenient=True`` for the
lenient reading). Answers in ``<answer>...</answer>`` tags are read (:func:`read_answer`).
The one partial-credit option, ``partial_credit=x``, gives ``x`` to a right decision
whose certificate is missing or invalid. On a balanced dataset a constant answer earns
at most 0.5; an answer with the right decision and never a certificate earns
``(1 + x) / 2`` (``x`` with ``require_chain``).

:class:`Curriculum` raises the difficulty level by level: more clauses, a larger
share of filler clauses, and difficulty knobs spread further from the middle of
``[0, 1]`` towards their extremes.

When reasoning-gym is installed, importing this module registers every dataset
there (with its curriculum), so ``reasoning_gym.create_dataset("twosat", seed=3,
size=2)`` works and its ``score_answer`` is this one.

Examples
--------
>>> data = create_dataset("twosat", seed=3, size=4, min_clauses=6, max_clauses=8)
>>> [item["metadata"]["label"] for item in data]
['SAT', 'UNSAT', 'SAT', 'UNSAT']
>>> item = data[2]
>>> item["answer"].splitlines()[-1], score_answer(item["answer"], item)
('The answer is: Yes', 1.0)
>>> item == create_dataset("twosat", seed=3, size=99, min_clauses=6, max_clauses=8)[2]
True
>>> score_answer("The answer is: No", item), score_answer("<answer>No</answer>", data[3])
(0.0, 1.0)
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, overload

from pydantic import Field

from twosat_formal.core.formula import Formula
from twosat_formal.core.params import COUNT, Rule, check, rules_table
from twosat_formal.core.seeds import seeded_rng
from twosat_formal.errors import ConfigError, TwoSatFormalError, UnknownNameError
from twosat_formal.evaluate.diagnostics.chains import chain_object, closed_walk
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import AnyPrompt, Judgement, PromptView, score
from twosat_formal.integrations.rows import row_formula, row_prompt
from twosat_formal.io.instance import LABELS, Instance
from twosat_formal.make.generators import FAMILIES, generate
from twosat_formal.solve import solve
from twosat_formal.solve.questions import ASKED
from twosat_formal.verbalize import TEMPLATES, Prompt, verbalize

__all__ = [
    "CONFIG_RULES",
    "CURRICULUM_LEVELS",
    "DATASET_NAMES",
    "DEFAULT_SIZE",
    "Curriculum",
    "CurriculumLevel",
    "TwoSatConfig",
    "TwoSatDataset",
    "config_class",
    "create_dataset",
    "gold_answer",
    "read_answer",
    "score_answer",
]

#: The mixed dataset's name; ``twosat-<family>`` names one family.
MIXED = "twosat"
#: Knobs whose range is the filler share's, not the structural knobs' spread.
_FILLER = "filler_share"
#: Draws of an item's parameters before giving up (a family may refuse a combination).
_ATTEMPTS = 16
#: The number of items of a dataset unless a config asks for another.
DEFAULT_SIZE = 500


@dataclass
class TwoSatConfig:
    """What a dataset draws (also reasoning-gym's config class for these datasets).

    Attributes
    ----------
    families:
        The families to draw from, uniformly (default: every family).
    min_clauses, max_clauses:
        The clause target is drawn uniformly from this range; every item's formula has
        a clause count in it (a family meets its target within one clause: a formula
        outside the range is drawn again).
    knob_spread:
        Every difficulty knob but the filler share is drawn uniformly from
        ``[0.5 - knob_spread, 0.5 + knob_spread]`` (``0.5``: all of ``[0, 1]``).
    min_filler_share, max_filler_share:
        The range of the filler share, for families that have one.
    templates:
        The verbalization templates to draw from (default: every registered one, the six
        schemes and the four formats).
    balance:
        Equal numbers of SAT and UNSAT items: item ``i`` is UNSAT exactly when ``i`` is
        odd, and its family is drawn among those that give that label (``symmetry``
        copies a base of that label). The default wherever the families give both
        labels (the mixed dataset and ``twosat-symmetry``); a family that gives one
        label (``twosat-backbone``...) cannot be balanced.
    require_chain:
        The prompts ask for a contradiction chain after a "No" (the prompt of
        ``verbalize --ask-cycle``), and a right "No" earns the full reward only with a
        valid chain (as ``eval`` judges ``cycle_valid``).
    lenient:
        Reward the lenient reading of answers instead of the strict one.
    partial_credit:
        Reward of a right decision whose certificate is missing or invalid: the witness
        of a "Yes"; with ``require_chain``, also the chain of a "No".
    types:
        Question types to ask besides the decision (``verbalize --ask``: ``forced``,
        ``entails``, ``core``, ``repair``, ``maxsat``; ``decision`` too): each item asks
        one, drawn among those its instance allows (the decision when it allows none of
        them). Empty (the default): every item asks the decision. An item of another
        type earns 1.0 for a right answer (as ``eval`` judges it) and 0.0 otherwise;
        its ``answer`` is the exact reference reasoner's closing line, and its metadata
        carries ``question_type`` and ``reference``.
    seed, size:
        The dataset's seed and number of items.
    """

    families: tuple[str, ...] = ()
    min_clauses: int = 6
    max_clauses: int = 16
    knob_spread: float = 0.5
    min_filler_share: float = 0.0
    max_filler_share: float = 0.0
    templates: tuple[str, ...] = ()
    balance: bool = True
    require_chain: bool = False
    lenient: bool = False
    partial_credit: float = 0.0
    seed: int | None = 0
    size: int = DEFAULT_SIZE
    types: tuple[str, ...] = ()

    #: The dataset name items report as ``source_dataset``.
    dataset_name: ClassVar[str] = MIXED

    def __post_init__(self) -> None:
        if not self.families:
            self.families = tuple(FAMILIES.names())
        if not self.templates:
            self.templates = tuple(TEMPLATES.names())
        self.families, self.templates = _names(self.families), _names(self.templates)
        self.types = _names(self.types)

    def validate(self) -> None:
        """Raise :class:`ConfigError` (or :class:`UnknownNameError`) for a bad config.

        Each field's type and range is checked first (:data:`CONFIG_RULES`, one
        :mod:`~twosat_formal.core.params` table; the first faulty field in field order
        is reported), then the family and template names, then the rules across fields.

        >>> TwoSatConfig(min_clauses=9, max_clauses=3).validate()
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ConfigError: min_clauses 9 is above max_clauses 3
        >>> TwoSatConfig(knob_spread=0.9).validate()
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ConfigError: knob_spread must be a number in [0, 0.5], got 0.9
        """
        check(_CONFIG_TABLE, CONFIG_RULES, {name: getattr(self, name) for name in CONFIG_RULES})
        for family in self.families:
            FAMILIES.get(family)
        for template in self.templates:
            TEMPLATES.get(template)
        for kind in self.types:
            if kind not in _QUESTION_TYPES:
                raise ConfigError(
                    f"unknown question type {kind!r} in types",
                    parameter="types",
                    valid=", ".join(_QUESTION_TYPES),
                )
        _check_across(self)


def _names(value: Any) -> Any:
    """A collection of names as a tuple; a single string (or a non-collection) stays as it
    is, for the table to refuse, rather than being split into letters."""
    return value if isinstance(value, str) or not isinstance(value, Iterable) else tuple(value)


def _unit(high: float) -> Rule:
    """A finite number in ``[0, high]``."""
    number = Annotated[float, Field(ge=0, le=high, allow_inf_nan=False)]
    says = f"{{key}} must be a number in [0, {high:g}], got {{value!r}}"
    return Rule(number, f"[0, {high:g}]", says)


_SIZE = Rule(Annotated[int, Field(ge=0)], "an integer >= 0")
_FLAG = Rule(bool, "true or false")
_NAMES = Rule(tuple[str, ...], "a sequence of names")
#: The question types an item may ask (``chain`` is ``require_chain``'s).
_QUESTION_TYPES = ("decision", *ASKED)
#: Every field's rule (:class:`~twosat_formal.core.params.Rule`), in field order (the
#: names of families, templates and question types are then looked up).
CONFIG_RULES: dict[str, Rule] = {
    "families": _NAMES,
    "min_clauses": COUNT,
    "max_clauses": COUNT,
    "knob_spread": _unit(0.5),
    "min_filler_share": _unit(1.0),
    "max_filler_share": _unit(1.0),
    "templates": _NAMES,
    "balance": _FLAG,
    "require_chain": _FLAG,
    "lenient": _FLAG,
    "partial_credit": _unit(1.0),
    "seed": Rule(int | None, "an integer"),
    "size": _SIZE,
    "types": _NAMES,
}
_CONFIG_TABLE = rules_table("TwoSatConfig", CONFIG_RULES)


def _check_across(config: TwoSatConfig) -> None:
    """The rules that tie fields together (each field is valid on its own)."""
    if config.min_clauses > config.max_clauses:
        raise ConfigError(
            f"min_clauses {config.min_clauses} is above max_clauses {config.max_clauses}",
            parameter="min_clauses",
            valid=f"<= {config.max_clauses}",
        )
    if config.types and config.require_chain:
        raise ConfigError("types and require_chain do not mix", parameter="types")
    if config.balance:
        for label in LABELS:
            if not _families_giving(config.families, label):
                raise ConfigError(
                    f"balance needs families that give {label} items, and none of "
                    f"{', '.join(config.families)} does (set balance to false)",
                    parameter="balance",
                    valid="false for these families",
                )
    if config.min_filler_share > config.max_filler_share:
        raise ConfigError(
            "min_filler_share is above max_filler_share", parameter="min_filler_share"
        )


def config_class(name: str) -> type[TwoSatConfig]:
    """The config class of dataset ``name``: ``twosat-<family>`` fixes ``families``.

    >>> config_class("twosat-backbone")().families
    ('backbone',)
    >>> config_class("twosat").dataset_name
    'twosat'
    """
    if name == MIXED:
        return TwoSatConfig
    if name not in _CONFIGS:
        raise UnknownNameError("dataset", name, list(DATASET_NAMES))
    return _CONFIGS[name]


def _labels_of(family: str) -> frozenset[str]:
    """The labels ``family`` can give: its own, or (``symmetry``) any base family's."""
    label = FAMILIES.get(family).label
    if label in LABELS:
        return frozenset({label})
    return frozenset(
        FAMILIES.get(name).label for name in FAMILIES.names() if FAMILIES.get(name).label in LABELS
    )


def _families_giving(families: Sequence[str], label: str) -> list[str]:
    """The families of ``families`` that can give ``label``, in their order."""
    return [family for family in families if label in _labels_of(family)]


def _family_config(family: str) -> type[TwoSatConfig]:
    title = "".join(part.title() for part in family.split("-"))
    cls = dataclasses.make_dataclass(
        f"TwoSat{title}Config",
        [
            ("families", tuple[str, ...], field(default=(family,))),
            ("balance", bool, field(default=len(_labels_of(family)) == len(LABELS))),
        ],
        bases=(TwoSatConfig,),
        namespace={"dataset_name": f"{MIXED}-{family}", "__module__": __name__},
    )
    return cls


_CONFIGS: dict[str, type[TwoSatConfig]] = {
    f"{MIXED}-{family}": _family_config(family) for family in FAMILIES.names()
}
#: Every dataset name: the mix first, then one per family.
DATASET_NAMES: tuple[str, ...] = (MIXED, *_CONFIGS)


class TwoSatDataset(Sequence[dict[str, Any]]):
    """``config.size`` items; item ``i`` is drawn from ``derive_seed(config.seed, i)``.

    Items are drawn on access, are independent of each other and of the size, and
    are equal in every process.
    """

    def __init__(self, config: TwoSatConfig) -> None:
        config.validate()
        self.config = config
        self.seed = config.seed if config.seed is not None else 0
        self.size = config.size

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if not -self.size <= index < self.size:
            raise IndexError(f"item {index} of a dataset of {self.size}")
        return make_item(self.config, self.seed, index % self.size)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(self.size))

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        """:func:`score_answer` with this dataset's ``lenient`` and ``partial_credit``
        (``require_chain`` is the entry's own)."""
        return score_answer(
            answer,
            entry,
            lenient=self.config.lenient,
            partial_credit=self.config.partial_credit,
        )


def _draw_params(
    rng: random.Random, family: str, config: TwoSatConfig
) -> tuple[int, dict[str, float]]:
    clauses = rng.randint(config.min_clauses, config.max_clauses)
    knobs: dict[str, float] = {}
    for spec in FAMILIES.get(family).knobs():
        if spec.name == _FILLER:
            value = rng.uniform(config.min_filler_share, config.max_filler_share)
        else:
            value = rng.uniform(0.5 - config.knob_spread, 0.5 + config.knob_spread)
        knobs[spec.name] = round(min(1.0, max(0.0, value)), 3)
    return clauses, knobs


def _draw_family(
    rng: random.Random, config: TwoSatConfig, index: int
) -> tuple[str, dict[str, str]]:
    """The family of item ``index`` and its fixed parameters (a balanced symmetry item's
    base family, of the item's label)."""
    if not config.balance:
        return rng.choice(config.families), {}
    label = LABELS[index % 2]  # even items SAT, odd items UNSAT
    family = rng.choice(_families_giving(config.families, label))
    if FAMILIES.get(family).label in LABELS:
        return family, {}
    bases = [name for name in FAMILIES.names() if FAMILIES.get(name).label == label]
    return family, {"base": rng.choice(bases)}


def gold_answer(prompt: Prompt, formula: Formula) -> str:
    """The complete answer that earns the full reward: the solver's certificate, then the
    answer line.

    A SAT item's answer gives the solver's model as the prompt's JSON assignment; an
    UNSAT item's gives the solver's contradiction cycle as the chain of
    ``verbalize --ask-cycle`` (:func:`~twosat_formal.evaluate.diagnostics.chains.chain_object`).

    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula.from_named([["a"], ["~a", "b"]])
    >>> print(gold_answer(verbalize(f, "logic", entities=["A", "B"]), f))
    {"A": "true", "B": "true"}
    The answer is: Yes
    """
    result = solve(formula, check=True)
    if result.model is not None:
        witness = {
            entity: prompt.true_value if value else prompt.false_value
            for entity, value in zip(prompt.entities, result.model, strict=True)
        }
        return json.dumps(witness, ensure_ascii=False) + "\nThe answer is: Yes"
    if not result.cycle:
        raise ConfigError("an UNSAT item without a contradiction cycle has no gold answer")
    chain = chain_object(
        closed_walk(result.cycle), prompt.entities, prompt.true_value, prompt.false_value
    )
    return json.dumps(chain, ensure_ascii=False) + "\nThe answer is: No"


def _draw_instance(
    rng: random.Random, family: str, fixed: Mapping[str, Any], config: TwoSatConfig, index: int
) -> tuple[int, dict[str, Any], int, Instance]:
    """The clause target, knobs and seed drawn for item ``index``'s ``family``, and the
    instance they make: drawn again while the family refuses them or its formula's clause
    count is outside the config's range (a family meets its target within one clause)."""
    # the family's own reason for refusing a draw, else the clause count it gave
    why: TwoSatFormalError | str = ""
    for _ in range(_ATTEMPTS):
        clauses, knobs = _draw_params(rng, family, config)
        instance_seed = rng.getrandbits(62)
        try:
            instance = generate(family, clauses=clauses, seed=instance_seed, **knobs, **fixed)
        except ConfigError as exc:  # a combination the family cannot build: draw again
            why = exc
            continue
        if config.min_clauses <= instance.formula.num_clauses <= config.max_clauses:
            return clauses, knobs, instance_seed, instance
        if not isinstance(why, ConfigError):
            why = f"it gave {instance.formula.num_clauses} clauses for a target of {clauses}"
    raise ConfigError(
        f"item {index}: {family} could not be drawn in {_ATTEMPTS} tries with "
        f"min_clauses={config.min_clauses}, max_clauses={config.max_clauses} "
        f"(widen the range or raise it): {why}",
        parameter="min_clauses",
    )


def make_item(config: TwoSatConfig, seed: int, index: int) -> dict[str, Any]:
    """Item ``index`` of a dataset with ``config`` and ``seed`` (see the module docstring)."""
    rng = seeded_rng(seed, index)
    family, fixed = _draw_family(rng, config, index)
    template = rng.choice(config.templates)
    clauses, knobs, instance_seed, instance = _draw_instance(rng, family, fixed, config, index)
    prompt_seed = rng.getrandbits(31)
    kind = "decision"
    if config.types:  # drawn only then: without types no number is drawn for a type
        from twosat_formal.solve.questions.reference import applies

        allowed = [t for t in config.types if applies(t, instance.formula, instance.label)]
        kind = rng.choice(allowed) if allowed else "decision"
    if kind != "decision":
        return _question_item(config, index, family, knobs, instance, template, prompt_seed, kind)
    prompt = verbalize(instance.formula, template, seed=prompt_seed, ask_cycle=config.require_chain)
    metadata = {
        **_metadata(config, index, family, knobs, instance, prompt, config.require_chain),
        "instance_seed": instance_seed,
        "prompt_seed": prompt_seed,
        "difficulty": {
            "clauses": clauses,
            "knob_spread": config.knob_spread,
            "filler_share": knobs.get(_FILLER),
        },
    }
    return {
        "question": prompt.text,
        "answer": gold_answer(prompt, instance.formula),
        "metadata": metadata,
    }


def _question_item(
    config: TwoSatConfig,
    index: int,
    family: str,
    knobs: Mapping[str, Any],
    instance: Any,
    template: str,
    prompt_seed: int,
    kind: str,
) -> dict[str, Any]:
    """Item ``index`` asking question type ``kind`` (``types``) of ``instance``."""
    from twosat_formal.evaluate.models.reference import OracleModel

    prompt = verbalize(instance.formula, template, seed=prompt_seed, ask=kind)
    gold = OracleModel().respond(prompt.text).text
    metadata = {
        **_metadata(config, index, family, knobs, instance, prompt, False),
        "prompt_seed": prompt_seed,
        "question_type": kind,
        "reference": dict(prompt.reference or {}),
    }
    return {"question": prompt.text, "answer": gold, "metadata": metadata}


def _metadata(
    config: TwoSatConfig,
    index: int,
    family: str,
    knobs: Mapping[str, Any],
    instance: Any,
    prompt: Any,
    require_chain: bool,
) -> dict[str, Any]:
    """The metadata every item carries, in order, up to its instance's id."""
    return {
        "source_dataset": config.dataset_name,
        "source_index": index,
        "family": family,
        "clauses": instance.formula.num_clauses,
        "num_vars": instance.formula.num_vars,
        "knobs": dict(knobs),
        "params": instance.params,
        "require_chain": require_chain,
        "label": instance.label,
        "template": prompt.template,
        "entities": prompt.entity_map(),
        "true_value": prompt.true_value,
        "false_value": prompt.false_value,
        "dimacs": instance.dimacs,
        "instance_id": instance.id,
    }


def create_dataset(
    name: str = MIXED, *, seed: int | None = 0, size: int = DEFAULT_SIZE, **config: Any
) -> TwoSatDataset:
    """The dataset ``name`` (see :data:`DATASET_NAMES`) with ``config`` (:class:`TwoSatConfig`).

    Raises
    ------
    UnknownNameError
        An unknown dataset name.
    ConfigError
        An unknown config field or a value out of range.

    Examples
    --------
    >>> data = create_dataset("twosat", seed=1, size=3, max_clauses=8)
    >>> [len(data), sorted(data[0])]
    [3, ['answer', 'metadata', 'question']]
    """
    cls = config_class(name)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ConfigError(
            f"unknown config field {unknown[0]!r} for {name}",
            parameter=unknown[0],
            valid=", ".join(sorted(known - {"seed", "size"})),
        )
    for key in ("families", "templates"):
        if key in config and isinstance(config[key], str):
            config[key] = (config[key],)
    return TwoSatDataset(cls(seed=seed, size=size, **config))


_TAGGED = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_BARE = re.compile(r"[\s*_`\"']*(yes|no)[\s*_`\"'.!]*", re.IGNORECASE)


def read_answer(answer: str) -> str:
    """The part of ``answer`` the reward judges, with a bare final decision made an answer line.

    The content of the last ``<answer>...</answer>`` block when there is one (the
    convention of reasoning-gym's prompts and of GRPO recipes), else the whole answer;
    a last non-blank line that is only ``Yes`` or ``No`` (emphasis, quotes and a final
    period allowed) is read as ``The answer is: Yes`` / ``No``.

    >>> read_answer("<think>A and not A.</think>\\n<answer>No</answer>")
    'The answer is: No'
    >>> read_answer('{"A": "true"}\\n**yes.**')
    '{"A": "true"}\\nThe answer is: Yes'
    >>> read_answer("I say yes and no")
    'I say yes and no'
    """
    tagged = _TAGGED.findall(answer)
    text = tagged[-1].strip() if tagged else answer
    lines = text.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        if not lines[index].strip():
            continue
        bare = _BARE.fullmatch(lines[index])
        if bare is not None:
            lines[index] = "The answer is: " + bare.group(1).capitalize()
            return "\n".join(lines)
        break
    return text


def score_answer(
    answer: str | None,
    entry: Mapping[str, Any],
    *,
    lenient: bool = False,
    partial_credit: float = 0.0,
) -> float:
    """The reward of ``answer`` (the model's whole answer) to item ``entry``.

    1.0 for the right decision with its certificate: on a SAT item a valid witness
    (the JSON the prompt asks for); on an UNSAT item of a ``require_chain`` dataset
    (``entry["metadata"]["require_chain"]``) a valid contradiction chain.
    ``partial_credit`` for a right decision whose certificate is missing or invalid;
    0.0 otherwise (no or conflicting answer line, wrong decision, empty answer). The
    answer is read by :func:`read_answer` (``<answer>`` tags, a bare final Yes or No),
    then judged by :func:`twosat_formal.evaluate.scoring.score`, strict or lenient, the metadata
    read as an exported row is (:func:`~twosat_formal.integrations.rows.row_prompt`); the
    chain as ``eval`` judges ``cycle_valid``. ``entry["answer"]`` always earns 1.0.

    Examples
    --------
    >>> entry = {"answer": "Yes", "metadata": {
    ...     "label": "SAT", "dimacs": "c var 1 a\\np cnf 1 1\\n1 0\\n", "entities": {"A": "a"},
    ...     "true_value": "true", "false_value": "false"}}
    >>> score_answer('{"A": "true"}\\nThe answer is: Yes', entry)
    1.0
    >>> score_answer('<answer>{"A": "true"} Yes</answer>', entry)
    0.0
    >>> score_answer('<answer>{"A": "true"}\\nYes</answer>', entry)
    1.0
    >>> score_answer('{"A": "false"}\\nThe answer is: Yes', entry, partial_credit=0.25)
    0.25
    >>> score_answer(None, entry)
    0.0
    """
    if not isinstance(answer, str) or not answer:
        return 0.0
    meta = entry["metadata"]
    require_chain = bool(meta.get("require_chain", False))
    view: AnyPrompt
    if require_chain:
        entities, true, false = dict(meta["entities"]), meta["true_value"], meta["false_value"]
        view = _RewardView(entities, true, false, ask_cycle=True)
    else:
        view = row_prompt(meta)  # the view every exported row is judged through
    judgement = score(Response(read_answer(answer)), view, row_formula(meta), meta["label"])
    if meta.get("question_type", "decision") != "decision":  # right or not, as eval judges it
        right = judgement.lenient_failure == "correct" if lenient else judgement.correct
        return 1.0 if right else 0.0
    chain_missing = require_chain and meta["label"] == "UNSAT" and judgement.cycle_valid is not True
    return _decision_reward(judgement, lenient, chain_missing, partial_credit)


def _decision_reward(
    judgement: Judgement, lenient: bool, chain_missing: bool, partial_credit: float
) -> float:
    """The reward of a judged decision: 1.0 with its certificate, ``partial_credit`` with
    a right decision whose witness is invalid or whose asked chain is missing."""
    if lenient:
        decision, witness = judgement.lenient_decision_correct, judgement.lenient_witness_valid
    else:
        decision, witness = judgement.decision_correct, judgement.witness_valid
    if not decision:
        return 0.0
    return float(partial_credit) if witness is False or chain_missing else 1.0


@dataclass(frozen=True)
class _RewardView(PromptView):
    """An item's prompt as scoring reads it; ``ask_cycle`` has the chain judged."""

    ask_cycle: bool = False


# -- the curriculum -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CurriculumLevel:
    """One difficulty level: clause range, filler share range and knob spread (each a
    :class:`TwoSatConfig` field of the same name)."""

    min_clauses: int
    max_clauses: int
    min_filler_share: float
    max_filler_share: float
    knob_spread: float


#: The levels of :class:`Curriculum`, easiest first.
CURRICULUM_LEVELS: tuple[CurriculumLevel, ...] = (
    CurriculumLevel(4, 8, 0.0, 0.0, 0.1),
    CurriculumLevel(8, 16, 0.0, 0.2, 0.2),
    CurriculumLevel(16, 32, 0.1, 0.3, 0.3),
    CurriculumLevel(32, 64, 0.2, 0.4, 0.4),
    CurriculumLevel(64, 128, 0.3, 0.5, 0.5),
)


#: The rule of :meth:`Curriculum.set_level`'s one parameter.
_LEVEL_RULES = {
    "level": Rule(
        Annotated[int, Field(ge=0, le=len(CURRICULUM_LEVELS) - 1)],
        f"0..{len(CURRICULUM_LEVELS) - 1}",
        "{key} must be an integer in {valid}, got {value!r}",
    )
}
_LEVEL_TABLE = rules_table("curriculum", _LEVEL_RULES)


class Curriculum:
    """Difficulty that rises level by level along size, fillers and knob spread.

    Examples
    --------
    >>> curriculum = Curriculum("twosat-mono-bridge")
    >>> curriculum.level, curriculum.config().max_clauses
    (0, 8)
    >>> curriculum.increment(), curriculum.config().max_clauses
    (True, 16)
    >>> curriculum.dataset(seed=1, size=2)[0]["metadata"]["difficulty"]["clauses"] >= 8
    True
    """

    def __init__(self, name: str = MIXED, level: int = 0) -> None:
        self.name = name
        self.config_cls = config_class(name)
        self.level = 0
        self.set_level(level)

    def set_level(self, level: int) -> None:
        """Go to ``level`` (0 is the easiest).

        >>> Curriculum().set_level(9)
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ConfigError: level must be an integer in 0..4, got 9
        """
        check(_LEVEL_TABLE, _LEVEL_RULES, {"level": level})
        self.level = level

    def increment(self) -> bool:
        """Go one level up; ``False`` when already at the top."""
        if self.level + 1 >= len(CURRICULUM_LEVELS):
            return False
        self.level += 1
        return True

    def decrement(self) -> bool:
        """Go one level down; ``False`` when already at the bottom."""
        if self.level == 0:
            return False
        self.level -= 1
        return True

    def config(self, **overrides: Any) -> TwoSatConfig:
        """The config of the current level (``overrides`` win)."""
        level = dataclasses.asdict(CURRICULUM_LEVELS[self.level])
        return self.config_cls(**{**level, **overrides})

    def dataset(
        self, *, seed: int | None = 0, size: int = DEFAULT_SIZE, **overrides: Any
    ) -> TwoSatDataset:
        """The dataset of the current level."""
        return TwoSatDataset(self.config(seed=seed, size=size, **overrides))


if importlib.util.find_spec("reasoning_gym") is not None:  # pragma: no branch
    from twosat_formal.integrations import reasoning_gym as _reasoning_gym

    _reasoning_gym.register(DATASET_NAMES, config_class, TwoSatDataset, CURRICULUM_LEVELS)
