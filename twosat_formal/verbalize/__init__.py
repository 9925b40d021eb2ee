"""Template verbalizers (App. G.1): formula → prompt text, and back.

Ten templates are registered in :data:`TEMPLATES`: the six schemes of the paper,
``logic``, ``letter``, ``team``, ``social``, ``room``, ``door``, and the four formats of
:mod:`~twosat_formal.verbalize.formats` (:data:`FORMATS`), ``math``, ``math-latex``,
``dimacs`` and ``dual-story``. :func:`verbalize` renders a formula in one of them
under a seeded entity mapping and wraps it in the evaluation prompt of App. G.2;
:func:`backparse` reads such a text back into a formula; :func:`prompt_record` does
both and stores the round-trip proof with the prompt.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["~a", "b"], ["a", "~c"]])
>>> p = verbalize(f, "logic", entities=["A", "B", "C"])
>>> print(p.verbalization)
Consider these logical relationships:
Either A is false or B is true (or both).
Either A is true or C is false (or both).
<BLANKLINE>
Can you assign truth values to all statements without creating a contradiction?
>>> p.text.startswith(p.verbalization + "\\n\\nThink step by step.")
True
>>> backparse(p.text).formula.same_clauses(f)
True

The same seed gives the same prompt; an explicit entity list replaces the seeded
mapping:

>>> g = Formula.from_named([["a", "~b"]])
>>> verbalize(g, "letter", seed=5) == verbalize(g, "letter", seed=5)
True
>>> print(verbalize(g, "team", entities=["Alice", "Bob"]).verbalization)
We have team assignment rules:
Either Alice is on the Red team or Bob is on the Blue team.
<BLANKLINE>
Is there a valid team assignment that satisfies all constraints?
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, expect_type
from twosat_formal.make.checks import check_seed
from twosat_formal.make.edits.classify import undo_edits
from twosat_formal.verbalize.backparse import BackParse, backparse, detect_template
from twosat_formal.verbalize.entities import entity_map
from twosat_formal.verbalize.formats import FORMATS, Format
from twosat_formal.verbalize.prompts import PromptRecord, template_prompt
from twosat_formal.verbalize.roundtrip import check_roundtrip, prove_roundtrip
from twosat_formal.verbalize.schemes import TEMPLATES, Scheme

if TYPE_CHECKING:
    from twosat_formal.io.instance import Instance

__all__ = [
    "FORMATS",
    "TEMPLATES",
    "BackParse",
    "Format",
    "Prompt",
    "Scheme",
    "backparse",
    "check_roundtrip",
    "detect_template",
    "example_formula",
    "prompt_record",
    "prove_roundtrip",
    "render",
    "verbalize",
]


@dataclass(frozen=True)
class Prompt:
    """A formula verbalized in one scheme, wrapped in the evaluation prompt.

    Attributes
    ----------
    template:
        The scheme name.
    verbalization:
        Preamble, one sentence per clause (each with its number when the question
        names rules, :attr:`numbered`), a blank line and the final question.
    text:
        The full prompt a model receives (App. G.2 around the verbalization).
    entities:
        The entity of each variable, variable ``v`` at index ``v - 1`` (variables in
        no clause included).
    variables:
        The formula's variable names, in the same order.
    true_value, false_value:
        The scheme's value words.
    seed:
        The seed of the entity mapping.
    ask_cycle:
        Whether the prompt asks for a contradiction chain when the answer is "No".
    ask:
        The question type (:mod:`twosat_formal.solve.questions`): ``"decision"`` (with or
        without ``ask_cycle``), ``"forced"``, ``"entails"``, ``"core"``, ``"repair"`` or
        ``"maxsat"``.
    reference:
        The reference answer of a question type other than the decision.
    formula:
        The formula verbalized (not compared, not shown): :meth:`record` proves the
        round trip against it.
    instance_id:
        The id of the instance verbalized, when :func:`verbalize` was given one
        (``None`` for a bare formula): the default of :meth:`record`.
    """

    template: str
    verbalization: str
    text: str
    entities: tuple[str, ...]
    variables: tuple[str, ...]
    true_value: str
    false_value: str
    seed: int
    ask_cycle: bool = False
    ask: str = "decision"
    reference: Mapping[str, Any] | None = None
    formula: Formula | None = field(default=None, compare=False, repr=False)
    instance_id: str | None = field(default=None, compare=False)

    @property
    def numbered(self) -> bool:
        """Whether the rules are numbered: the question names rules by number.

        >>> f = Formula([[1], [-1]])
        >>> verbalize(f, "logic", ask="core").numbered, verbalize(f, "logic").numbered
        (True, False)
        """
        return _numbered(self.ask)

    def entity_map(self) -> dict[str, str]:
        """Entity → variable name, in variable order.

        >>> f = Formula.from_named([["p", "q"]])
        >>> verbalize(f, "room", entities=["room 2", "room 1"]).entity_map()
        {'room 2': 'p', 'room 1': 'q'}
        """
        return dict(zip(self.entities, self.variables, strict=True))

    def record(
        self,
        instance_id: str | None = None,
        roundtrip: Mapping[str, Any] | Literal["prove"] | None = "prove",
    ) -> PromptRecord:
        """This prompt as a :class:`~twosat_formal.verbalize.prompts.PromptRecord`, round trip
        proven.

        Parameters
        ----------
        instance_id:
            The id of the instance the prompt verbalizes (default: the instance given
            to :func:`verbalize`).
        roundtrip:
            The round-trip proof: ``"prove"`` (the default) proves it here
            (:func:`~twosat_formal.verbalize.roundtrip.prove_roundtrip`), so the record
            certifies; a proof already made; or ``None`` for a record without one
            (enough to score answers, not to certify).

        Raises
        ------
        ConfigError
            No instance id: the prompt was made from a bare formula and none is given.

        Examples
        --------
        >>> from twosat_formal.make.generators import generate
        >>> inst = generate("backbone", clauses=6, seed=1)
        >>> rec = verbalize(inst, "door", seed=2).record()
        >>> rec.instance_id == inst.id, rec.roundtrip["result"]
        (True, 'proved')
        """
        instance_id = instance_id if instance_id is not None else self.instance_id
        if instance_id is None:
            raise ConfigError(
                "a prompt record names its instance: verbalize an instance "
                "(verbalize(instance, ...)) or give record(instance_id)",
                parameter="instance_id",
            )
        if roundtrip == "prove":
            if self.formula is None:
                raise ConfigError(
                    "this prompt does not carry its formula: give the round-trip proof",
                    parameter="roundtrip",
                )
            roundtrip = prove_roundtrip(
                self.formula, self.text, self.template, self.entities, numbered=self.numbered
            )
        return PromptRecord.create(
            instance_id,
            self.template,
            self.text,
            self.entity_map(),
            self.true_value,
            self.false_value,
            self.seed,
            None if roundtrip is None else dict(roundtrip),
            ask_cycle=self.ask_cycle,
            ask=self.ask,
            reference=self.reference,
        )


#: How many entities the example JSON of a prompt shows
#: (:func:`~twosat_formal.verbalize.prompts.template_prompt` shows the first three it is given).
SHOWN = 3


def render(
    formula: Formula, scheme: Scheme, entities: Sequence[str], *, numbered: bool = False
) -> str:
    """The verbalization of ``formula``: preamble, sentences, blank line, question.

    ``entities[v - 1]`` names variable ``v``. ``numbered`` writes each rule with its
    number (:meth:`~twosat_formal.verbalize.schemes.Scheme.numbered`), as a question
    that names rules asks (:data:`~twosat_formal.solve.questions.NUMBERED`). An empty clause
    raises :class:`~twosat_formal.errors.ConfigError`.

    >>> f = Formula([[1, 2], [-2]])
    >>> print(render(f, TEMPLATES.get("door"), ["door 1", "door 2"]))
    A facility has door coupling rules:
    door 1 is open or door 2 is open (or both).
    door 2 is closed.
    <BLANKLINE>
    Is there a configuration of doors that satisfies all the rules?
    >>> print(render(f, TEMPLATES.get("dimacs"), ["x1", "x2"], numbered=True))
    Consider this CNF formula in DIMACS format (variable k is named xk):
    p cnf 2 2
    c rule 1
    1 2 0
    c rule 2
    -2 0
    <BLANKLINE>
    Is there an assignment of truth values to the variables that satisfies every clause?
    """
    rules = scheme.sentences(formula.clauses, entities)
    lines = [scheme.preamble, *(scheme.numbered(rules) if numbered else rules)]
    return "\n".join(lines) + "\n\n" + scheme.question


def _first_shown(formula: Formula, entities: Sequence[str]) -> list[str]:
    """The entities of the first :data:`SHOWN` variables in order of first appearance.

    >>> _first_shown(Formula([[3, -1], [-3, 2], [4, 1]]), ["a", "b", "c", "d"])
    ['c', 'a', 'b']
    """
    seen: dict[int, None] = {}
    for clause in formula.clauses:
        for lit in clause:
            seen.setdefault(abs(lit), None)
        if len(seen) >= SHOWN:
            break
    return [entities[v - 1] for v in list(seen)[:SHOWN]]


def example_formula(formula: Formula, transforms: Sequence[Mapping[str, Any]] | None) -> Formula:
    """The formula whose entities an instance's example JSON shows: the unedited one.

    An edited instance (or a minimal twin) shows the example of the instance its edits
    started from, so that its prompt differs from that instance's prompt only in the
    edited sentences; any other instance shows its own formula's.

    >>> from twosat_formal.make.edits import apply_edit, root_instance
    >>> base = root_instance(Formula.from_named([["a", "b"], ["~b", "c"]]))
    >>> edited = apply_edit(base, "substitute", position=0, seed=1).instance
    >>> example_formula(edited.formula, edited.transforms) == base.formula
    True
    """
    return undo_edits(formula, transforms) if transforms else formula


def _numbered(ask: str) -> bool:
    """Whether a question of type ``ask`` names rules by number, so numbers them."""
    from twosat_formal.solve.questions import NUMBERED

    expect_type(ask, str, parameter="ask", valid="a question type (a str)")
    return ask in NUMBERED


def _instance_parts(
    instance: Formula | Instance, example_from: Formula | None
) -> tuple[str | None, Formula, Formula | None]:
    """Return the id, the formula and the example formula of ``instance``.

    A bare formula has no id and keeps ``example_from``; for an instance, the example
    formula is ``example_from`` when given, else the unedited formula of an edited
    instance (:func:`example_formula`).
    """
    if example_from is not None:
        expect_type(example_from, Formula, parameter="example_from", valid="a Formula or None")
    (instance if isinstance(instance, Formula) else instance.formula).require_size("verbalize")
    if isinstance(instance, Formula):
        return None, instance, example_from
    formula = instance.formula
    if example_from is None:
        example_from = example_formula(formula, instance.transforms)
    return instance.id, formula, example_from


def _entity_names(
    scheme: Scheme, num_vars: int, seed: int, entities: Sequence[str] | None
) -> tuple[str, ...]:
    """Return the entities of variables ``1..num_vars``: seeded, or ``entities`` checked."""
    if entities is None:
        return entity_map(scheme.entities, num_vars, seed=seed)
    valid = "a sequence of entity names (str), or None"
    if isinstance(entities, str | bytes) or not isinstance(entities, Sequence):
        expect_type(entities, (), parameter="entities", valid=valid)
    for entity in entities:
        expect_type(entity, str, parameter="entities", valid="a str", what="an entity")
    return scheme.entities.validate(entities, num_vars)


def _example_entities(
    formula: Formula, example_from: Formula | None, entities: Sequence[str]
) -> list[str]:
    """Return the entities the prompt's example shows (:func:`_first_shown`).

    They are read from ``example_from`` when given, which must have the variables of
    ``formula``; else from ``formula``.

    Raises
    ------
    ConfigError
        If ``example_from`` has another number of variables than ``formula``.
    """
    if example_from is None:
        return _first_shown(formula, entities)
    if example_from.num_vars != formula.num_vars:
        raise ConfigError(
            f"the example formula has {example_from.num_vars} variables, the formula "
            f"{formula.num_vars}",
            parameter="example_from",
        )
    return _first_shown(example_from, entities)


def _asked_question(
    ask: str,
    ask_cycle: bool,
    formula: Formula,
    scheme: Scheme,
    names: Sequence[str],
    shown: Sequence[str],
    seed: int,
) -> tuple[str, bool, dict[str, Any] | None, str | None]:
    """Return the question type, ``ask_cycle``, reference answer and question block.

    ``"chain"`` is the decision with ``ask_cycle``; the decision has neither a
    reference answer nor a question block; another type has both.

    Raises
    ------
    ArgumentTypeError
        If ``ask_cycle`` is no bool.
    ConfigError
        If ``ask`` is no question type, or a contradiction chain is asked with it.
    """
    expect_type(ask_cycle, bool, parameter="ask_cycle", valid="a bool")
    if ask == "chain":
        return "decision", True, None, None
    if ask == "decision":
        return ask, ask_cycle, None, None
    from twosat_formal.solve.questions import QUESTION_TYPES
    from twosat_formal.solve.questions.reference import reference_answer
    from twosat_formal.verbalize.questions import question_block

    if ask not in QUESTION_TYPES:
        raise ConfigError(
            f"unknown question type {ask!r}", parameter="ask", valid=", ".join(QUESTION_TYPES)
        )
    if ask_cycle:
        raise ConfigError("a contradiction chain is asked with the decision only")
    reference = reference_answer(ask, formula, names, scheme.true_value, scheme.false_value, seed)
    question = question_block(ask, scheme.true_value, scheme.false_value, shown, reference)
    return ask, ask_cycle, reference, question


def verbalize(
    formula: Formula | Instance,
    template: str,
    *,
    seed: int = 0,
    entities: Sequence[str] | None = None,
    ask_cycle: bool = False,
    example_from: Formula | None = None,
    ask: str = "decision",
) -> Prompt:
    """Verbalize ``formula`` with scheme ``template`` and wrap it in the evaluation prompt.

    Parameters
    ----------
    formula:
        Any CNF formula without empty clauses; two-literal clauses use the paper's
        pattern, unit and wider clauses the documented extensions. Or an
        :class:`~twosat_formal.io.instance.Instance`: its formula, its id (the default of
        :meth:`Prompt.record`) and, for an edited instance, the example of its
        unedited formula (:func:`example_formula`), as ``verbalize`` on a dataset does.
    template:
        A name registered in :data:`TEMPLATES`.
    seed:
        Seed of the variable → entity mapping (see
        :func:`~twosat_formal.verbalize.entities.entity_map`).
    entities:
        An explicit mapping instead (entity of variable ``v`` at index ``v - 1``); it
        must consist of distinct, well-formed entities of the scheme's naming.
    ask_cycle:
        Also ask for a contradiction chain when the answer is "No"
        (:data:`~twosat_formal.verbalize.prompts.CYCLE_INSTRUCTION`).
    example_from:
        The formula whose entities the example JSON shows (default ``formula``); an
        edited formula passes its base's (:func:`example_formula`), which has the same
        variables.
    ask:
        The question type (:data:`~twosat_formal.solve.questions.QUESTION_TYPES`):
        ``"decision"`` (the default), ``"chain"`` (the same as ``ask_cycle``) or
        another type, whose block
        (:func:`~twosat_formal.verbalize.questions.question_block`) replaces the
        decision's instructions and whose reference answer
        (:func:`~twosat_formal.solve.questions.reference.reference_answer`, an ``entails``
        question chosen by ``seed``) the prompt carries.

    Returns
    -------
    Prompt
        The example JSON of the prompt shows the first three entities in order of
        first appearance in ``example_from`` (in the text, by default).
    """
    instance_id, formula, example_from = _instance_parts(formula, example_from)
    scheme, seed = TEMPLATES.get(template), check_seed(seed)
    names = _entity_names(scheme, formula.num_vars, seed, entities)
    verbalization = render(formula, scheme, names, numbered=_numbered(ask))
    shown = _example_entities(formula, example_from, names)
    ask, ask_cycle, reference, question = _asked_question(
        ask, ask_cycle, formula, scheme, names, shown, seed
    )
    return Prompt(
        template=scheme.name,
        verbalization=verbalization,
        text=template_prompt(
            verbalization,
            scheme.true_value,
            scheme.false_value,
            shown,
            ask_cycle=ask_cycle,
            question=question,
        ),
        entities=names,
        variables=formula.names,
        true_value=scheme.true_value,
        false_value=scheme.false_value,
        seed=seed,
        ask_cycle=ask_cycle,
        ask=ask,
        reference=reference,
        formula=formula,
        instance_id=instance_id,
    )


def prompt_record(
    formula: Formula,
    template: str,
    *,
    instance_id: str,
    seed: int = 0,
    entities: Sequence[str] | None = None,
    ask_cycle: bool = False,
    example_from: Formula | None = None,
    ask: str = "decision",
) -> PromptRecord:
    """Verbalize, prove the round trip, and return the prompt record
    (:meth:`Prompt.record` of :func:`verbalize`).

    Raises
    ------
    CertificateError, ProofError
        If the text does not parse back to ``formula`` (a defect, never expected).

    Examples
    --------
    >>> rec = prompt_record(Formula([[1, -2]]), "logic", instance_id="x", seed=0)
    >>> rec.roundtrip["result"], sorted(rec.entities.values())
    ('proved', ['x1', 'x2'])
    """
    prompt = verbalize(
        formula,
        template,
        seed=seed,
        entities=entities,
        ask_cycle=ask_cycle,
        example_from=example_from,
        ask=ask,
    )
    return prompt.record(instance_id)
