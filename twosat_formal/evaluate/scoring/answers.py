"""The answer readers of scoring: the decision and the witness read out of an answer,
the prompt's entity map and value words, and the strict and lenient verdicts on a
decision answer (:func:`readings`). :func:`twosat_formal.evaluate.scoring.score` judges an
answer with them; the judges of the question types
(:mod:`~twosat_formal.evaluate.scoring.questions`) and of contradiction chains
(:func:`twosat_formal.evaluate.diagnostics.chains.judge_chain`) read answers with them too.

Examples
--------
>>> extract_decision("So...\\nThe answer is: **No**").value
'UNSAT'
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, Protocol, cast

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response
from twosat_formal.errors import ConfigError

__all__ = [
    "FAILURE_KINDS",
    "LABELS",
    "MAX_JSON_CHARS",
    "MAX_JSON_DEPTH",
    "AnyPrompt",
    "Decision",
    "Judgement",
    "PromptLike",
    "PromptView",
    "StoryPromptLike",
    "StoryPromptView",
    "WitnessCheck",
    "WitnessText",
    "casefolded",
    "check_label",
    "check_witness",
    "entity_variables",
    "error_judgement",
    "extract_decision",
    "extract_witness",
    "readings",
    "value_words",
]

#: Every failure kind, ``correct`` first; each sample is stored with exactly one.
FAILURE_KINDS: tuple[str, ...] = (
    "correct",
    "wrong-decision",
    "invalid-witness",
    "missing-witness",
    "no-answer",
    "ambiguous-answer",
    "bad-json",
    "truncated",
    "error",
)
#: The two labels (and decisions) an instance can have.
LABELS: tuple[str, ...] = ("SAT", "UNSAT")

_YES_NO = {"yes": "SAT", "no": "UNSAT"}
_LENIENT_WORDS = {
    "yes": "SAT",
    "no": "UNSAT",
    "sat": "SAT",
    "unsat": "UNSAT",
    "satisfiable": "SAT",
    "unsatisfiable": "UNSAT",
}

# The strict answer line, read in steps once markdown emphasis is gone (see
# :func:`_strict_line`): one leading list, heading or quote mark; a final period; the
# prompt's own parenthetical; double quotes around the line; then the core, which may
# list several answers ("Yes/No": conflicting when they disagree).
_EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])")
_LEAD = re.compile(r"(?:[-+*\u2022]|\d{1,3}[.)]|#{1,6}|>)\s+")
_QUOTES = frozenset('"\u201c\u201d')
_PAREN = re.compile(r"\(([^()]*)\)$")
_COPIED = {"if a valid assignment exists": "yes", "if no valid assignment exists": "no"}
_STRICT_CORE = re.compile(
    r"the\s+answer\s+is\s*:\s*(yes|no)((?:\s*(?:/|,|\bor\b|\band\b)\s*(?:yes|no))*)",
    re.IGNORECASE,
)
_STRICT_MORE = re.compile(r"yes|no", re.IGNORECASE)
# What may follow the final answer line: blank or markup-only lines (code fences, rules)
# and a JSON object (a witness given after the answer); anything else means the answer
# does not end the response.
_MARKUP_ONLY = re.compile(r"[\s*_\-=#>`~]*|\s*(?:```|~~~)[\w+-]*\s*")
_LENIENT = re.compile(
    r"(?:\banswer\s*(?:is|would\s+be|will\s+be)?\s*[:=\-]?\s*|\\boxed\{\s*(?:\\text\{)?\s*)"
    r"[\"'`]?\s*(unsatisfiable|satisfiable|unsat|sat|yes|no)\b",
    re.IGNORECASE,
)


class PromptLike(Protocol):
    """What scoring reads from a prompt record: its entity map and value words."""

    @property
    def entities(self) -> Mapping[str, Any]:
        """Entity name → variable (a name in the formula, or a 1-based int)."""
        ...

    @property
    def true_value(self) -> str:
        """The scheme's word for true (``"true"``, ``"has"``, ``"Red"``...)."""
        ...

    @property
    def false_value(self) -> str:
        """The scheme's word for false."""
        ...


@dataclass(frozen=True)
class PromptView:
    """A minimal :class:`PromptLike` (tests, notebooks, stored prompt metadata).

    >>> PromptView({"A": 1}, "true", "false").true_value
    'true'
    """

    entities: Mapping[str, Any]
    true_value: str
    false_value: str
    #: The question type (:mod:`twosat_formal.solve.questions`) and its reference (for
    #: ``entails``, the question's ``if`` and ``then``); not shown.
    ask: str = field(default="decision", repr=False)
    reference: Mapping[str, Any] | None = field(default=None, repr=False)


class StoryPromptLike(Protocol):
    """What scoring reads from a story prompt: its entity map and per-entity values."""

    @property
    def entities(self) -> Mapping[str, Any]:
        """Entity name → variable (a name in the formula, or a 1-based int)."""
        ...

    @property
    def entity_values(self) -> Mapping[str, tuple[str, str]]:
        """Entity name → ``(true description, false description)``."""
        ...


@dataclass(frozen=True)
class StoryPromptView:
    """A minimal :class:`StoryPromptLike`: each entity has its own two descriptions.

    >>> view = StoryPromptView({"the vault": "x1"}, {"the vault": ("is open", "is sealed")})
    >>> value_words(view)
    {'the vault': ('is open', 'is sealed')}
    """

    entities: Mapping[str, Any]
    entity_values: Mapping[str, tuple[str, str]]


#: Any prompt scoring reads: a template prompt or a story prompt.
AnyPrompt = PromptLike | StoryPromptLike


def value_words(prompt: AnyPrompt) -> dict[str, tuple[str, str]]:
    """Entity → ``(true word, false word)`` that a witness may give it.

    A prompt with ``entity_values`` (a story prompt) gives each entity its own pair;
    any other prompt gives every entity the scheme's ``true_value`` and
    ``false_value``.

    Raises
    ------
    ConfigError
        A story prompt without values for one of its entities, or with a pair whose
        two words are equal.

    Examples
    --------
    >>> value_words(PromptView({"A": 1, "B": 2}, "on", "off"))
    {'A': ('on', 'off'), 'B': ('on', 'off')}
    >>> value_words(StoryPromptView({"the maid": 1}, {}))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: entity 'the maid' has no true and false descriptions
    """
    per_entity = getattr(prompt, "entity_values", None)
    if per_entity is None:
        template = cast(PromptLike, prompt)
        pair = (template.true_value, template.false_value)
        return {str(entity): pair for entity in template.entities}
    return {
        str(entity): _description_pair(
            entity, per_entity.get(entity) if isinstance(per_entity, Mapping) else None
        )
        for entity in prompt.entities
    }


def _description_pair(entity: Any, found: Any) -> tuple[str, str]:
    """A story entity's ``(true, false)`` descriptions, refused (:class:`ConfigError`)
    unless they are two different strings."""
    if (
        not isinstance(found, Sequence)
        or isinstance(found, str)
        or len(found) != 2
        or not all(isinstance(word, str) for word in found)
    ):
        raise ConfigError(
            f"entity {entity!r} has no true and false descriptions",
            parameter="entity_values",
            valid="a (true, false) pair of strings for every entity",
        )
    if found[0] == found[1]:
        raise ConfigError(
            f"entity {entity!r} has the same true and false description {found[0]!r}",
            parameter="entity_values",
        )
    return (found[0], found[1])


class Decision(NamedTuple):
    """An extracted decision: ``"SAT"``, ``"UNSAT"`` or ``None``, and whether the
    final answers conflict (then ``value`` is ``None``)."""

    value: str | None
    ambiguous: bool = False


class WitnessText(NamedTuple):
    """The witness found in an answer.

    ``status`` is ``"found"`` (``obj`` holds the JSON object), ``"missing"`` (no
    JSON-like object at all) or ``"bad-json"`` (something that tried to be one).
    """

    status: str
    obj: dict[str, Any] | None = None
    reason: str | None = None


class WitnessCheck(NamedTuple):
    """A witness mapped back to the formula's variables and checked.

    ``assignment`` maps variable names to values (``None`` when the witness could not
    be mapped), ``reason`` says why it is invalid.
    """

    valid: bool
    assignment: dict[str, bool] | None
    reason: str | None = None


@dataclass(frozen=True)
class Judgement:
    """The verdict on one answer, strict and lenient side by side.

    Attributes
    ----------
    failure:
        The strict failure kind, one of :data:`FAILURE_KINDS` (``correct`` or not).
    decision:
        ``"SAT"``, ``"UNSAT"`` or ``None`` (no answer, ambiguous, error).
    decision_correct:
        Whether the decision counts as right: it matches the label and the answer is
        not truncated (the paper counts truncated outputs as incorrect).
    witness_valid:
        On SAT instances, whether a valid witness was given; ``None`` on UNSAT ones.
    witness_reason:
        Why the witness is missing or invalid (``None`` when valid or not asked for).
    witness:
        The witness mapped back to variable names, when it could be mapped.
    truncated:
        Whether the finish reason was ``length``.
    error:
        The request's error message when ``failure == "error"``.
    lenient_*:
        The same four verdicts from the lenient extractor.
    cycle_valid, cycle_reason:
        The contradiction chain asked for by a prompt made with ``--ask-cycle``
        (:func:`twosat_formal.evaluate.diagnostics.chains.judge_chain`): valid or not, and why
        not; ``None`` when not asked, on SAT instances, or (``cycle_valid``) when no
        chain was given (``cycle_reason`` is then ``"no-chain"``).
    ask:
        The question type of the prompt (:mod:`twosat_formal.solve.questions`); for
        ``forced`` and ``entails`` the failure kinds judge that question's answer
        (:mod:`twosat_formal.evaluate.scoring.questions`), ``decision`` and ``witness_valid`` are
        ``None``.
    precision, recall, lenient_precision, lenient_recall:
        A ``forced`` answer's partial credit: the precision and recall of the set of
        entity values read against the forced ones (``None`` when none was read or
        for other types).
    chain_valid, chain_reason:
        An ``entails`` answer's chain from the first entity's value to the second's,
        checked clause by clause when the right answer Yes was given (``None``
        otherwise; ``chain_reason`` ``"no-chain"`` when none was given).
    core_reason, size_ratio:
        A ``core`` or ``repair`` answer (strict reading): why the rules given are not a
        minimal unsatisfiable set (a minimal set of rules to drop; ``None`` when they
        are), and for a minimal one the smallest size over its size; a ``maxsat``
        answer's ``size_ratio`` is the rules it satisfies over the optimum.
    """

    failure: str
    decision: str | None
    decision_correct: bool
    witness_valid: bool | None
    label: str
    witness_reason: str | None = None
    witness: dict[str, bool] | None = None
    truncated: bool = False
    error: str | None = None
    lenient_failure: str = "error"
    lenient_decision: str | None = None
    lenient_decision_correct: bool = False
    lenient_witness_valid: bool | None = None
    cycle_valid: bool | None = None
    cycle_reason: str | None = None
    ask: str = "decision"
    precision: float | None = None
    recall: float | None = None
    lenient_precision: float | None = None
    lenient_recall: float | None = None
    chain_valid: bool | None = None
    chain_reason: str | None = None
    core_reason: str | None = None
    size_ratio: float | None = None

    @property
    def correct(self) -> bool:
        """Whether the strict verdict is ``correct`` (the paper's accuracy)."""
        return self.failure == "correct"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field.

        >>> error_judgement("SAT", "HTTP 500").to_dict()["failure"]
        'error'
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Judgement:
        """Rebuild a judgement from :meth:`to_dict` output (unknown keys ignored).

        >>> j = error_judgement("UNSAT", "boom")
        >>> Judgement.from_dict(j.to_dict()) == j
        True
        """
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


# -- decision ----------------------------------------------------------------------------


def _peel(text: str, *, parenthetical: bool) -> tuple[str, str | None] | None:
    """Strip one final period and, when allowed, the prompt's parenthetical (with a
    period before it) from the end of ``text``: the rest and the parenthetical's
    answer. ``None`` when ``text`` ends with any other parenthetical."""
    if text.endswith("."):
        text = text[:-1].rstrip()
    if not parenthetical or not text.endswith(")"):
        return text, None
    found = _PAREN.search(text)
    said = _COPIED.get(" ".join(found.group(1).split()).lower().rstrip(".")) if found else None
    if found is None or said is None:
        return None
    text = text[: found.start()].rstrip()
    if text.endswith("."):
        text = text[:-1].rstrip()
    return text, said


#: The longest line that can be a strict answer line (longer lines are not read as one).
MAX_ANSWER_LINE = 4096


def _unemphasize(line: str) -> str:
    """``line`` without markdown emphasis marks (fast when there are none)."""
    return _EMPHASIS.sub("", line) if "*" in line or "_" in line else line


def _strict_line(line: str) -> list[str] | None:
    """The answers on ``line`` if it is a strict answer line, else ``None``.

    The line, once markdown emphasis is gone, may open with one list marker (``-``,
    ``*``, ``+``, ``•``, ``1.``, ``1)``), heading mark or ``>``, be wrapped in straight
    or curly double quotes, end with the prompt's own parenthetical (``(if a valid
    assignment exists)``: it counts as an answer too, so a mismatched one conflicts)
    and with one final period, inside and outside the quotes.
    """
    if len(line) > MAX_ANSWER_LINE:
        return None
    bare = _unemphasize(line).strip()
    lead = _LEAD.match(bare)
    if lead is not None:
        bare = bare[lead.end() :]
    peeled = _peel(bare, parenthetical=True)
    if peeled is None:
        return None
    if peeled[0][:1] in _QUOTES or peeled[0][-1:] in _QUOTES:
        peeled = _unquote(*peeled)
        if peeled is None:
            return None
    bare, said = peeled
    match = _STRICT_CORE.fullmatch(bare)
    if match is None:
        return None
    answers = [match.group(1).lower(), *(w.lower() for w in _STRICT_MORE.findall(match.group(2)))]
    return answers if said is None else [*answers, said]


def _unquote(bare: str, said: str | None) -> tuple[str, str | None] | None:
    """A quoted answer line (``bare``, the parenthetical ``said`` outside its quotes)
    with its quotes and what it ends with inside them peeled; ``None`` unless it opens
    and closes with a quote."""
    if len(bare) < 2 or bare[0] not in _QUOTES or bare[-1] not in _QUOTES:
        return None
    peeled = _peel(bare[1:-1].strip(), parenthetical=said is None)
    if peeled is None:
        return None
    inner_bare, inner = peeled
    return inner_bare, said or inner


def _closes(rest: Sequence[str]) -> bool:
    """Whether the lines after the final answer line leave it the end of the response:
    nothing but blank or markup-only lines and at most one JSON object."""
    kept = [line for line in rest if not _MARKUP_ONLY.fullmatch(line)]
    if not kept:
        return True
    try:
        return isinstance(json.loads("\n".join(kept)), dict)
    except ValueError:
        return False


def extract_decision(text: str, *, lenient: bool = False) -> Decision:
    """The decision of an answer: its closing line ``The answer is: Yes|No``.

    Strictly, the last answer line must be a whole line (see :func:`_strict_line` for
    the decoration it may carry) and end the response: only blank or markup-only
    lines and a JSON object may follow it, so a retraction after it leaves no answer.
    Answer lines that close the response together (blank lines between them) must
    agree, or the answer is ambiguous.

    Parameters
    ----------
    text:
        The model's answer.
    lenient:
        Also accept answers inside a sentence, in single quotes or backticks,
        ``Answer: No``, ``\\boxed{Yes}`` and the words ``SAT``/``UNSAT``.

    Examples
    --------
    >>> extract_decision("Hmm.\\n__The Answer is:  no__.")
    Decision(value='UNSAT', ambiguous=False)
    >>> extract_decision('- "The answer is: Yes" (if a valid assignment exists)')
    Decision(value='SAT', ambiguous=False)
    >>> extract_decision("The answer is: Yes\\n\\nThe answer is: No")
    Decision(value=None, ambiguous=True)
    >>> extract_decision("The answer is: Yes\\nWait, that is wrong.")
    Decision(value=None, ambiguous=False)
    >>> extract_decision('I think "the answer is: yes" here')
    Decision(value=None, ambiguous=False)
    >>> extract_decision('I think "the answer is: yes" here', lenient=True)
    Decision(value='SAT', ambiguous=False)
    """
    lines = text.splitlines()
    found = _closing_decision(lines)
    if found is not None:
        return found
    return _lenient_decision(lines) if lenient else Decision(None, False)


def _closing_decision(lines: Sequence[str]) -> Decision | None:
    """The strict reading of :func:`extract_decision` (the lenient one starts with it):
    the decision of the closing run of answer lines, ``None`` when there is none."""
    final: list[str] = []
    for index in range(len(lines) - 1, -1, -1):
        answers = _strict_line(lines[index])
        if answers is None:
            continue
        if _closes(lines[index + 1 :]):
            final = answers
            for line in reversed(lines[:index]):  # the closing run of answer lines
                if not _unemphasize(line).strip():
                    continue
                more = _strict_line(line)
                if more is None:
                    break
                final.extend(more)
        break
    return _one_value([_YES_NO[a] for a in final]) if final else None


def _lenient_decision(lines: Sequence[str]) -> Decision:
    """The lenient reading of :func:`extract_decision` where the strict one found none."""
    for line in reversed(lines):
        found = [_LENIENT_WORDS[m.lower()] for m in _LENIENT.findall(_unemphasize(line))]
        if found:
            return _one_value(found)
    return Decision(None, False)


def _one_value(values: Sequence[str]) -> Decision:
    distinct = set(values)
    return Decision(distinct.pop(), False) if len(distinct) == 1 else Decision(None, True)


# -- witness -----------------------------------------------------------------------------


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj and obj[key] != value:
            raise _DuplicateKeyError(key)
        obj[key] = value
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates)
# An opening brace that tries to start a JSON object: a quote, or a word and a colon.
# Prose such as "the set {A, B}" does not.
_ATTEMPT = re.compile(r"""\{\s*(?:["']|[^\s{},:"']+\s*:)""")
_SPECIAL = re.compile(r'[{}\[\]"\\\n]')
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_RETRY_WINDOW = 1_000_000
_TOO_DEEP = "\x00too-deep\x00"


#: The deepest nesting of objects and arrays read inside one JSON object of an answer.
#: A witness is one flat object; a deeper object is refused, never decoded (the
#: decoder recurses, and decoding nested spans one inside another would cost the
#: square of the answer's length).
MAX_JSON_DEPTH = 32
#: An answer is searched for its witness in its last this many characters only (a
#: witness closes an answer; 256 Ki characters are twice the default token budget),
#: so reading any answer takes time bounded by this, not by the answer's length.
MAX_JSON_CHARS = 262_144
#: Decoding attempts past a span's end (when a quote misled the brace scan) per answer.
_MAX_RETRIES = 8
#: Lenient repairs of objects that did not parse, per answer.
_MAX_REPAIRS = 64


@lru_cache(maxsize=2)
def _span_ends(text: str) -> tuple[dict[int, int], frozenset[int]]:
    """Where each matched ``{`` closes (strings skipped), in one pass over ``text``, and
    the openings whose object nests objects or arrays deeper than :data:`MAX_JSON_DEPTH`.

    A JSON string cannot hold a raw newline, so a quote left open ends at the line;
    a stray ``{`` or ``}`` in prose leaves the other spans intact.
    """
    ends: dict[int, int] = {}
    deep: set[int] = set()
    # one entry per open brace: [position, the deepest nesting seen inside it]
    opened: list[list[int]] = []
    brackets = 0  # arrays open inside the innermost open brace
    bracket_stack: list[int] = []
    in_string = False
    skip_to = -1  # the character after a backslash inside a string
    # before the first brace nothing is open, so no character there changes anything
    for match in _SPECIAL.finditer(text, max(text.find("{"), 0)):
        i = match.start()
        if i < skip_to:
            continue
        ch = text[i]
        if in_string:
            if ch == "\\" and text[i + 1 : i + 2] != "\n":
                skip_to = i + 2
            elif ch == '"' or ch == "\n":
                in_string = False
        elif ch == '"':
            in_string = bool(opened)
        elif ch == "{":
            if opened:
                opened[-1][1] = max(opened[-1][1], brackets + 1)
            bracket_stack.append(brackets)
            opened.append([i, 0])
            brackets = 0
        elif ch == "[" and opened:
            brackets += 1
            opened[-1][1] = max(opened[-1][1], brackets)
        elif ch == "]" and opened and brackets:
            brackets -= 1
        elif ch == "}" and opened:
            start, inner = opened.pop()
            brackets = bracket_stack.pop()
            ends[start] = i + 1
            if inner >= MAX_JSON_DEPTH:
                deep.add(start)
            if opened:
                opened[-1][1] = max(opened[-1][1], inner + brackets + 1)
    return ends, frozenset(deep)


def _repair(chunk: str) -> dict[str, Any] | None:
    """Lenient parsing: drop ``//`` comment lines and trailing commas; single quotes."""
    repaired = _TRAILING_COMMA.sub(r"\1", _LINE_COMMENT.sub("", chunk))
    attempts = [repaired] + ([repaired.replace("'", '"')] if '"' not in repaired else [])
    for attempt in attempts:
        try:
            obj = json.loads(attempt, object_pairs_hook=_reject_duplicates)
        except _DuplicateKeyError:
            raise
        except ValueError:
            continue
        return obj if isinstance(obj, dict) else None
    return None


def _decode(text: str, start: int, closed: int, retries: list[int]) -> tuple[Any, int]:
    """``raw_decode`` of the object at ``start``, given where its braces close.

    Decoding the span alone keeps a failure cheap (the decoder's error counts lines
    from the start of what it was given); if the span was cut short by a quote the
    brace scan misread, the rest of the text is tried (a few times per answer).
    """
    chunk = text[start:closed]
    try:
        obj, length = _DECODER.raw_decode(chunk)
    except json.JSONDecodeError as exc:
        if exc.pos < len(chunk) - 1 or retries[0] >= _MAX_RETRIES:
            raise
        retries[0] += 1
        obj, length = _DECODER.raw_decode(text[start : start + _RETRY_WINDOW])
    return obj, start + length


def _objects(text: str, *, lenient: bool) -> tuple[list[dict[str, Any] | str], str | None]:
    """Outermost JSON objects of ``text`` in order (a ``str`` stands for an object with
    a key given two values), and the last attempt at one that did not parse.

    The lenient reading differs from the strict one only where an object failed to
    parse, so when every attempt parsed, the strict reading (cached: scoring reads each
    answer both ways) is the lenient one too.
    """
    strict_items, strict_tried = _strict_objects(text)
    if not lenient or strict_tried is None:
        return list(strict_items), strict_tried
    return _ObjectScan(text, lenient=True).run()


@lru_cache(maxsize=8)
def _strict_objects(text: str) -> tuple[tuple[dict[str, Any] | str, ...], str | None]:
    items, tried = _ObjectScan(text, lenient=False).run()
    return tuple(items), tried


class _ObjectScan:
    """One scan of an answer for its JSON objects, brace by brace (see :func:`_objects`).

    ``items`` are the objects read (a ``str`` for an object with a key given two
    values); ``tried``: the last attempt at one that did not parse (``None`` when a
    later repair succeeded). Decoding retries and lenient repairs are bounded per
    answer (:data:`_MAX_RETRIES`, :data:`_MAX_REPAIRS`).
    """

    def __init__(self, text: str, lenient: bool) -> None:
        self.text = text
        self.lenient = lenient
        self.items: list[dict[str, Any] | str] = []
        self.tried: str | None = None
        self.spans: tuple[dict[int, int], frozenset[int]] | None = None
        self.retries = [0]
        self.repairs = 0
        # where the last span that failed to decode failed, and where it ended
        self.failed_at = self.failed_end = -1

    def run(self) -> tuple[list[dict[str, Any] | str], str | None]:
        """Read every attempt at an object, in order; the objects and the last failure."""
        pos = 0
        while (start := self.text.find("{", pos)) != -1:
            pos = self.read(start)
        return self.items, self.tried

    def read(self, start: int) -> int:
        """Read the attempt at an object that may open at ``start``; where the scan goes
        on (past an object read, else the next character)."""
        text = self.text
        if not _ATTEMPT.match(text, start):
            return start + 1  # prose such as "{A, B}", or the empty object
        if self.spans is None:
            self.spans = _span_ends(text)
        closed = self.spans[0].get(start)
        if closed is None:  # never closed: cut off, or broken
            self.tried = text[start : start + 80]
            return start + 1
        if start in self.spans[1]:  # refused: nested too deep to be an assignment
            self.tried = _TOO_DEEP + text[start : start + 40]
            return start + 1
        try:
            if start < self.failed_end and closed > self.failed_at:
                # inside a span that failed, and around where it failed: fails there too
                raise ValueError("known to fail")
            obj, end = _decode(text, start, closed, self.retries)
        except _DuplicateKeyError as exc:
            self.items.append(exc.key)
            return start + 1
        except RecursionError:  # a misread span that nests deeper than the scan saw
            self.tried = _TOO_DEEP + text[start : start + 40]
            return start + 1
        except ValueError as exc:
            return self.failed(exc, start, closed)
        self.items.append(obj)
        return end

    def failed(self, exc: ValueError, start: int, closed: int) -> int:
        """Note the span ``start:closed`` that did not decode, and where; a lenient scan
        repairs it if it can. Where the scan goes on."""
        if isinstance(exc, json.JSONDecodeError) and start + exc.pos < closed:
            self.failed_at, self.failed_end = start + exc.pos, closed
        self.tried = self.text[start:closed]
        if not self.lenient or self.repairs >= _MAX_REPAIRS:
            return start + 1
        self.repairs += 1
        try:
            obj = _repair(self.tried)
        except _DuplicateKeyError as exc:
            self.items.append(exc.key)
            return start + 1
        if obj is None:
            return start + 1
        self.tried = None
        self.items.append(obj)
        return closed


def _is_mapping(obj: Mapping[str, Any]) -> bool:
    """A non-empty flat object of scalar values: the shape of an assignment."""
    return bool(obj) and all(
        isinstance(v, str | bool | int | float) or v is None for v in obj.values()
    )


def _fold(name: str) -> str:
    """``name`` with its spacing collapsed, in lower case (what a lenient reading compares)."""
    return " ".join(str(name).split()).lower()


def casefolded(text: str) -> str:
    """``text`` with its spacing collapsed, case-folded: how a contradiction chain, a
    lenient ``forced`` answer and a trace's sentences are compared with the prompt."""
    return " ".join(text.split()).casefold()


def extract_witness(
    text: str, *, lenient: bool = False, entities: Collection[str] | None = None
) -> WitnessText:
    """The last valid JSON object of an answer that maps entities to values.

    Code fences around it are fine (objects are found wherever they are). A brace
    that starts neither with a quote nor with ``word:`` is prose (``{A, B}``), not
    an attempt at JSON. When ``entities`` is given, the last flat object whose keys
    are all entities wins over later objects that are not assignments
    (``{"answer": "Yes"}``).

    Examples
    --------
    >>> extract_witness('```json\\n{"A": "true"}\\n```')
    WitnessText(status='found', obj={'A': 'true'}, reason=None)
    >>> extract_witness('{"A": "true"} then {"answer": "Yes"}', entities={"A"}).obj
    {'A': 'true'}
    >>> extract_witness("The set {A, B} is free.").status
    'missing'
    >>> extract_witness("{A: true}")
    WitnessText(status='bad-json', obj=None, reason='no valid JSON object (last try: {A: true})')
    >>> extract_witness("{'A': 'true',}", lenient=True).obj
    {'A': 'true'}
    """
    cut = len(text) > MAX_JSON_CHARS
    objects, tried = _objects(text[-MAX_JSON_CHARS:] if cut else text, lenient=lenient)
    if lenient:
        _unwrap(objects)
    found = _entity_witness(objects, entities, lenient) if entities is not None else None
    if found is None:
        found = _last_witness(objects)
    if found is not None:
        return found
    return _no_witness(text, tried, cut)


def _unwrap(objects: list[dict[str, Any] | str]) -> None:
    """Replace each object whose one value is a flat map with that map, in place (the
    lenient reading of ``{"assignment": {...}}``)."""
    for index, item in enumerate(objects):
        if isinstance(item, dict) and len(item) == 1:
            (inner,) = item.values()
            if isinstance(inner, dict) and _is_mapping(inner):
                objects[index] = inner


def _entity_witness(
    objects: Sequence[dict[str, Any] | str], entities: Collection[str], lenient: bool
) -> WitnessText | None:
    """The last flat object whose keys are all ``entities`` (folded when ``lenient``), or
    an entity given two values, whichever comes last; ``None`` when neither is there."""
    fold = _fold if lenient else str
    known = {fold(e) for e in entities}
    for item in reversed(objects):
        if isinstance(item, str):
            if fold(item) in known:
                return WitnessText("found", None, f"entity {item!r} is given two values")
        elif _is_mapping(item) and all(fold(k) in known for k in item):
            return WitnessText("found", item)
    return None


def _last_witness(objects: Sequence[dict[str, Any] | str]) -> WitnessText | None:
    """The last flat object or key given two values; the last object, not a flat map,
    when there is no such one; ``None`` when there is no object at all."""
    for item in reversed(objects):
        if isinstance(item, str):
            return WitnessText("found", None, f"entity {item!r} is given two values")
        if _is_mapping(item):
            return WitnessText("found", item)
    if objects:
        return WitnessText("found", None, "the JSON object is not a flat entity → value map")
    return None


def _no_witness(text: str, tried: str | None, cut: bool) -> WitnessText:
    """Why an answer with no JSON object has no witness: none was attempted (in the part
    read, when the answer was ``cut``), or the last attempt was refused or broken."""
    if tried is None:
        if cut:
            return WitnessText(
                "missing",
                None,
                f"no JSON object in the last {MAX_JSON_CHARS} characters of the answer "
                f"({len(text)} characters; the rest is not read)",
            )
        return WitnessText("missing", None, "no JSON object in the answer")
    if tried.startswith(_TOO_DEEP):
        shown = tried[len(_TOO_DEEP) :]
        return WitnessText(
            "bad-json",
            None,
            f"refused a JSON object nested deeper than {MAX_JSON_DEPTH} levels "
            f"(it starts {shown[:30]!r})",
        )
    shown = tried if len(tried) <= 60 else tried[:57] + "..."
    return WitnessText("bad-json", None, f"no valid JSON object (last try: {shown})")


def entity_variables(entities: Mapping[str, Any], formula: Formula) -> dict[str, int]:
    """The prompt's entity map as entity name → variable number of ``formula``.

    Values may be variable names of ``formula`` or 1-based ints.

    >>> from twosat_formal.core.formula import Formula
    >>> entity_variables({"A": "x2", "B": 1}, Formula([[1, -2]]))
    {'A': 2, 'B': 1}
    """
    mapping: dict[str, int] = {}
    for entity, variable in entities.items():
        if isinstance(variable, bool):
            raise ConfigError(f"entity {entity!r} maps to {variable!r}", parameter="entities")
        var = formula.var(variable) if isinstance(variable, str) else int(variable)
        if not 1 <= var <= formula.num_vars:
            raise ConfigError(
                f"entity {entity!r} maps to variable {var}, beyond the formula's "
                f"{formula.num_vars} variables",
                parameter="entities",
                valid=f"1..{formula.num_vars}",
            )
        mapping[str(entity)] = var
    return mapping


def _same_word(raw: str, word: str) -> bool:
    """Equal, taking the ASCII apostrophe for the typographic one (``doesn’t``)."""
    return raw == word or raw.replace("'", "\u2019") == word.replace("'", "\u2019")


def _value_of(raw: Any, true_value: str, false_value: str, *, lenient: bool) -> bool | None:
    if isinstance(raw, str):
        if _same_word(raw, true_value):
            return True
        if _same_word(raw, false_value):
            return False
        if lenient:
            word = _fold(raw)
            if _same_word(word, true_value.lower()):
                return True
            if _same_word(word, false_value.lower()):
                return False
            return {"true": True, "false": False}.get(word)
        return None
    if lenient and isinstance(raw, bool):
        return raw
    return None


def check_witness(
    obj: Mapping[str, Any],
    prompt: AnyPrompt,
    formula: Formula,
    *,
    lenient: bool = False,
) -> WitnessCheck:
    """Map a witness object back through the entity map and check every clause.

    Strictly, keys must be entity names and values the entity's exact words
    (:func:`value_words`: the scheme's two words, or a story entity's own two
    descriptions; an ASCII apostrophe may stand for the typographic one of
    ``doesn’t``); the lenient check also forgives case and spacing and accepts JSON
    booleans and the words ``true`` / ``false``. A variable the witness leaves out
    makes no literal true.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula.from_named([["x1", "x2"]])
    >>> p = PromptView({"Ann": "x1", "Bob": "x2"}, "has", "doesn't have")
    >>> check_witness({"Ann": "doesn't have", "Bob": "has"}, p, f)
    WitnessCheck(valid=True, assignment={'x1': False, 'x2': True}, reason=None)
    >>> print(check_witness({"Ann": "HAS"}, p, f).reason)
    entity 'Ann' has the value 'HAS', not 'has' or "doesn't have"
    >>> check_witness({"Ann": "HAS"}, p, f, lenient=True).valid
    True
    >>> check_witness({"Cy": "has"}, p, f).reason
    "unknown entity 'Cy'"
    >>> story = StoryPromptView({"the vault": "x1", "the alarm": "x2"},
    ...                         {"the vault": ("is open", "is sealed"),
    ...                          "the alarm": ("is disabled", "is armed")})
    >>> check_witness({"the vault": "is sealed", "the alarm": "is disabled"}, story, f).valid
    True
    >>> print(check_witness({"the vault": "is armed"}, story, f).reason)
    entity 'the vault' has the value 'is armed', not 'is open' or 'is sealed'
    """
    return _check_mapped(
        obj, entity_variables(prompt.entities, formula), value_words(prompt), formula, lenient
    )


def _check_mapped(
    obj: Mapping[str, Any],
    to_var: Mapping[str, int],
    words: Mapping[str, tuple[str, str]],
    formula: Formula,
    lenient: bool,
) -> WitnessCheck:
    """:func:`check_witness` with the prompt's entity variables and value words at hand
    (:func:`score` reads them once for both of its readings)."""
    values = _witness_values(obj, to_var, words, formula, lenient)
    if isinstance(values, str):
        return WitnessCheck(False, None, values)
    assignment = {formula.name(v): values[v] for v in sorted(values)}
    for index, clause in enumerate(formula.clauses):
        if not any(values.get(abs(lit)) == (lit > 0) for lit in clause):
            shown = formula.clause_text(clause) or "empty clause"
            return WitnessCheck(False, assignment, f"clause {index + 1} ({shown}) is false")
    return WitnessCheck(True, assignment)


def _witness_values(
    obj: Mapping[str, Any],
    to_var: Mapping[str, int],
    words: Mapping[str, tuple[str, str]],
    formula: Formula,
    lenient: bool,
) -> dict[int, bool] | str:
    """The value the witness gives each variable it names; else why it cannot be read
    (an unknown entity, a value that is neither word, a variable given two values)."""
    folded = {_fold(e): e for e in to_var} if lenient else {}
    values: dict[int, bool] = {}
    for key, raw in obj.items():
        entity: str | None = key if key in to_var else None
        if entity is None and lenient:
            entity = folded.get(_fold(key))
        if entity is None:
            return f"unknown entity {key!r}"
        var = to_var[entity]
        true_word, false_word = words[entity]
        value = _value_of(raw, true_word, false_word, lenient=lenient)
        if value is None:
            return f"entity {key!r} has the value {raw!r}, not {true_word!r} or {false_word!r}"
        if values.get(var, value) != value:
            return f"variable {formula.name(var)} is given two values"
        values[var] = value
    return values


# -- the verdict -------------------------------------------------------------------------


class _Verdict(NamedTuple):
    failure: str
    decision: str | None
    decision_correct: bool
    witness: _Witness


def _judge(
    response: Response,
    prompt: AnyPrompt,
    formula: Formula,
    label: str,
    decision: Decision,
    mapped: tuple[Mapping[str, int], Mapping[str, tuple[str, str]]],
    *,
    lenient: bool,
    known: tuple[Mapping[str, Any], WitnessCheck] | None = None,
) -> _Verdict:
    """One reading of an answer. ``known`` is a witness object the strict reading found
    valid: the lenient check of an equal object (same keys, the same exact words) finds
    it valid with the same assignment, so it is not checked twice."""
    witness = _NO_WITNESS
    if label == "SAT":
        witness = _read_witness(response.text, prompt, formula, mapped, lenient, known)
    correct = decision.value == label and not response.truncated
    return _Verdict(
        _failure(response, decision, label, witness.kind), decision.value, correct, witness
    )


class _Witness(NamedTuple):
    """What one reading of a SAT answer's witness found."""

    valid: bool | None
    reason: str | None
    #: The failure kind the witness gives a right decision (``None``: none).
    kind: str | None
    assignment: dict[str, bool] | None
    valid_check: tuple[Mapping[str, Any], WitnessCheck] | None


#: The witness of an UNSAT answer: none is asked for.
_NO_WITNESS = _Witness(None, None, None, None, None)


def _read_witness(
    text: str,
    prompt: AnyPrompt,
    formula: Formula,
    mapped: tuple[Mapping[str, int], Mapping[str, tuple[str, str]]],
    lenient: bool,
    known: tuple[Mapping[str, Any], WitnessCheck] | None,
) -> _Witness:
    """Find the witness of a SAT answer and check it (see :func:`_judge` for ``known``)."""
    found = extract_witness(text, lenient=lenient, entities=prompt.entities.keys())
    if found.status != "found":
        kind = "missing-witness" if found.status == "missing" else "bad-json"
        return _Witness(False, found.reason, kind, None, None)
    if found.obj is None or found.reason is not None:
        return _Witness(False, found.reason, "invalid-witness", None, None)
    if known is not None and known[0] == found.obj:
        check = known[1]
    else:
        check = _check_mapped(found.obj, *mapped, formula, lenient)
    if check.valid:
        return _Witness(True, check.reason, None, check.assignment, (found.obj, check))
    return _Witness(False, check.reason, "invalid-witness", check.assignment, None)


def _failure(response: Response, decision: Decision, label: str, witness_kind: str | None) -> str:
    """The failure kind of a reading: the first of a cut-off answer, an ambiguous or
    missing decision, a wrong one; else what the witness gives (``correct`` if nothing)."""
    if response.truncated:
        return "truncated"
    if decision.ambiguous:
        return "ambiguous-answer"
    if decision.value is None:
        return "no-answer"
    if decision.value != label:
        return "wrong-decision"
    return witness_kind or "correct"


def _lenient_finds_strict(text: str, strict: _Verdict) -> bool:
    """Whether the lenient witness is the strict one, found valid.

    It is when the strict reading found a valid witness in the answer's last JSON
    object and every object parsed: the lenient reading then reads the same objects
    (:func:`_objects`), and scanning them from the end it takes that last one first (a
    flat object whose keys are entities, so their folded forms are too), which its
    check finds valid with the same assignment (see :func:`_judge`). With the strict
    decision found by the closing answer lines, which the lenient reading starts
    from, both readings come to the same verdict.
    """
    if strict.witness.valid_check is None:
        return False
    window = text[-MAX_JSON_CHARS:] if len(text) > MAX_JSON_CHARS else text
    objects, tried = _strict_objects(window)
    return tried is None and bool(objects) and objects[-1] is strict.witness.valid_check[0]


def check_label(label: str) -> None:
    if label not in LABELS:
        raise ConfigError(f"unknown label {label!r}", parameter="label", valid="SAT or UNSAT")


def readings(
    response: Response, prompt: AnyPrompt, formula: Formula, label: str
) -> tuple[_Verdict, _Verdict]:
    """The strict and the lenient verdicts on a decision answer.

    The strict reading takes the decision from the closing answer lines alone; the
    lenient one starts there and else searches the whole text. When both come to the
    same verdict (see :func:`_lenient_finds_strict`) the strict one is not judged again.
    """
    # a map that does not fit is a data error; both readings use what is read here
    mapped = (entity_variables(prompt.entities, formula), value_words(prompt))
    lines = response.text.splitlines()
    closing = _closing_decision(lines)  # the strict reading, where the lenient one starts
    strict_decision = closing or Decision(None, False)
    strict = _judge(response, prompt, formula, label, strict_decision, mapped, lenient=False)
    if closing is not None and (label != "SAT" or _lenient_finds_strict(response.text, strict)):
        return strict, strict  # the same verdict either way: see _lenient_finds_strict
    lenient_decision = closing or _lenient_decision(lines)
    loose = _judge(
        response,
        prompt,
        formula,
        label,
        lenient_decision,
        mapped,
        lenient=True,
        known=strict.witness.valid_check,
    )
    return strict, loose


def error_judgement(label: str, message: str) -> Judgement:
    """The judgement of a request that failed for good (failure kind ``error``).

    >>> j = error_judgement("SAT", "HTTP 503 after 5 attempts")
    >>> j.failure, j.decision, j.witness_valid, j.correct
    ('error', None, False, False)
    """
    check_label(label)
    witness_valid = False if label == "SAT" else None
    return Judgement(
        failure="error",
        decision=None,
        decision_correct=False,
        witness_valid=witness_valid,
        label=label,
        error=message,
        lenient_failure="error",
        lenient_witness_valid=witness_valid,
    )
