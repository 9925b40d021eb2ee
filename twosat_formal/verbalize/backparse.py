"""Back-parsers: the text of a template verbalization (or a full prompt) → a Formula.

The back-parser of a scheme is the exact inverse of its renderer: it reads the
preamble, one clause sentence after another, and stops at the final question; what
follows the question (the evaluation prompt of App. G.2) is not part of the formula.
Whitespace is free: words may be separated by any run of spaces and newlines, so a
sentence wrapped over several lines parses as if it were on one. A sentence ends at
the first word that ends with a period.

Every sentence must render back to exactly itself (up to whitespace and the choice of
apostrophe), so a text parses only if the renderer could have produced it. An unknown
entity or a sentence that fits no pattern raises
:class:`~twosat_formal.errors.ParseError` with the line of the sentence.

Examples
--------
>>> text = '''Consider these logical relationships:
... Either A is false or B is true (or both).
... Either A is true or
...     C is false (or both).
...
... Can you assign truth values to all statements without creating a contradiction?'''
>>> result = backparse(text)
>>> result.template, result.entities, result.formula.clauses
('logic', ('A', 'B', 'C'), (Clause(-1, 2), Clause(1, -3)))
>>> detect_template("A building has lighting rules:\\nroom 1 is lit.")
'room'
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import itemgetter

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError, SentenceError
from twosat_formal.verbalize.entities import EntityNumbers
from twosat_formal.verbalize.formats import Format, Read
from twosat_formal.verbalize.schemes import (
    TEMPLATES,
    Scheme,
    _parse_sentence,
    normalize_apostrophes,
    rule_head,
)

__all__ = ["BackParse", "backparse", "detect_template", "read_clauses"]

_WORD = re.compile(r"\S+")

#: A word that numbers a rule (:func:`~twosat_formal.verbalize.schemes.rule_head`).
_RULE_NUMBER = re.compile(r"[0-9]+\.")

#: The entity groups of a match of :attr:`Scheme.clause_lines`.
_ENTITY_GROUPS = itemgetter(0, 2, 4)


@dataclass(frozen=True)
class BackParse:
    """The result of back-parsing a verbalization.

    Attributes
    ----------
    template:
        The scheme the text was read with.
    formula:
        The clauses, one per sentence in text order. Variable ``v`` stands for
        ``entities[v - 1]`` and is named after it (``room 3`` → ``room_3``).
    entities:
        The entity of each variable: in order of first appearance in the text, or the
        caller's entity list when one was given.
    lines:
        The 1-based line on which each clause sentence starts.
    """

    template: str
    formula: Formula
    entities: tuple[str, ...]
    lines: tuple[int, ...]

    @property
    def true_value(self) -> str:
        """The scheme's value word for a true variable (Table 2)."""
        return TEMPLATES.get(self.template).true_value

    @property
    def false_value(self) -> str:
        """The scheme's value word for a false variable (Table 2)."""
        return TEMPLATES.get(self.template).false_value


class _Words:
    """The words of a text with their positions (line, column, line text)."""

    def __init__(self, text: str) -> None:
        self.text = text
        # One character for one: the positions in the normalized text are the text's.
        self.normalized = normalize_apostrophes(text)
        # str.split and the pattern \S+ split at the same (Unicode) whitespace, and a
        # word never spans a line break: the words of the text are those of its lines.
        self.words: list[str] = []
        self.lines: list[int] = []
        for number, segment in enumerate(self.normalized.split("\n"), 1):
            found = segment.split()
            if found:
                self.words.extend(found)
                self.lines.extend([number] * len(found))

    @cached_property
    def matches(self) -> list[re.Match[str]]:
        """Each word's match in the text (for error positions only)."""
        return list(_WORD.finditer(self.normalized))

    @cached_property
    def line_starts(self) -> list[int]:
        """The offset at which each line starts."""
        return [0] + [m.end() for m in re.finditer(r"\n", self.text)]

    def position(self, index: int) -> tuple[int, int, str]:
        """Line, column and line text of word ``index`` (the last line past the end)."""
        offset = self.matches[index].start() if index < len(self.matches) else len(self.text)
        line = bisect.bisect_right(self.line_starts, offset)
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return line, offset - start + 1, self.text[start : end if end >= 0 else None].rstrip("\r")

    def line(self, index: int) -> int:
        """The 1-based line of word ``index``."""
        return self.lines[index]

    def starts_with(self, index: int, phrase: Sequence[str]) -> bool:
        return self.words[index : index + len(phrase)] == list(phrase)

    def error(self, message: str, index: int, source: str | None) -> ParseError:
        line, column, context = self.position(index)
        return ParseError(message, line=line, column=column, source=source, context=context)


def _find(words: list[str], phrase: list[str], start: int) -> int:
    """The first index from ``start`` at which ``phrase`` starts (``len(words)``: none).

    >>> _find(["a", "b", "a", "c"], ["a", "c"], 0), _find(["a"], ["b"], 0)
    (2, 1)
    """
    k = start
    while True:
        try:
            k = words.index(phrase[0], k)
        except ValueError:
            return len(words)
        if words[k : k + len(phrase)] == phrase:
            return k
        k += 1


def _phrase(text: str) -> list[str]:
    return normalize_apostrophes(text).split()


def _detect(words: _Words, source: str | None) -> Scheme:
    scheme = _opening(words.text)
    if scheme is not None:
        return scheme
    raise words.error(
        "the text does not open with the preamble of a template scheme ("
        + ", ".join(TEMPLATES)
        + ")",
        0,
        source,
    )


def detect_template(text: str, *, source: str | None = None) -> str:
    """The scheme whose preamble opens ``text`` (a verbalization or a full prompt).

    Raises
    ------
    ParseError
        When the text opens with no scheme's preamble.

    Examples
    --------
    >>> detect_template("We have team assignment rules:\\nEither Alice is on the Red team.")
    'team'
    """
    return _detect(_Words(text), source).name


def backparse(
    text: str,
    template: str | None = None,
    *,
    entities: Sequence[str] | None = None,
    source: str | None = None,
    numbered: bool | None = None,
) -> BackParse:
    """Parse a template verbalization, or a full prompt that starts with one.

    Parameters
    ----------
    text:
        The text: the preamble, clause sentences, the final question, and optionally
        anything after the question (ignored).
    template:
        The scheme to read with; ``None`` detects it from the preamble.
    entities:
        The known entities, entity of variable ``v`` at index ``v - 1``. When given,
        every entity must be one of them and the formula uses this numbering;
        otherwise any well-formed entity of the scheme's naming is accepted and the
        variables are numbered in order of first appearance.
    source:
        A file name for error messages.
    numbered:
        Whether each rule carries its number, as a prompt that names rules by number
        writes them (:meth:`~twosat_formal.verbalize.schemes.Scheme.numbered`):
        ``True`` requires the numbers 1, 2, 3, ... in order, ``False`` refuses them,
        ``None`` (the default) reads either, as the first rule shows.

    Returns
    -------
    BackParse

    Raises
    ------
    ParseError
        A missing preamble or final question, a sentence that fits no pattern of the
        scheme, a rule number missing or out of order, or an unknown entity; the error
        names the line.

    Examples
    --------
    >>> text = "A facility has door coupling rules:\\ndoor 2 is open or door 1 is closed (or both)."
    >>> text += "\\n\\nIs there a configuration of doors that satisfies all the rules?"
    >>> result = backparse(text, "door")
    >>> result.entities, result.formula.names, result.formula.clauses
    (('door 2', 'door 1'), ('door_2', 'door_1'), (Clause(1, -2),))
    >>> backparse(text, "door", entities=["door 1", "door 2"]).formula.clauses
    (Clause(2, -1),)
    >>> numbered = text.replace("\\ndoor 2", "\\n1. door 2")
    >>> backparse(numbered, "door").formula.clauses
    (Clause(1, -2),)
    >>> backparse(numbered.replace("1. ", "2. "), "door")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 2:1: rule 1 opens with '2.' instead of its number '1.'
    """
    name, clauses, order, lines = read_clauses(text, template, entities, source, numbered)
    naming = TEMPLATES.get(name).entities
    names = [naming.identifier(e) for e in order]
    formula = Formula(clauses, num_vars=len(order), names=names)
    return BackParse(name, formula, tuple(order), tuple(lines))


def read_clauses(
    text: str,
    template: str | None,
    entities: Sequence[str] | None,
    source: str | None,
    numbered: bool | None = None,
) -> Read:
    """What :func:`backparse` reads: scheme name, clauses, entities in order, lines.

    The round-trip proof uses the clauses as they are, without building a
    :class:`~twosat_formal.core.formula.Formula` of them. Raises :class:`ParseError` as
    :func:`backparse` does.

    >>> text = "A facility has door coupling rules:\\ndoor 2 is open or door 1 is closed (or both)."
    >>> text += "\\n\\nIs there a configuration of doors that satisfies all the rules?"
    >>> read_clauses(text, "door", None, None)
    ('door', [[1, -2]], ['door 2', 'door 1'], [2])
    """
    scheme = TEMPLATES.get(template) if template is not None else _opening(text)
    if isinstance(scheme, Format):
        return scheme.read(text, entities, source, numbered)
    if scheme is not None:
        found = _read_lines(text, scheme, entities, numbered)
        if found is not None:
            return found
    return _read_words(text, template, entities, source, numbered)


def _opening(text: str) -> Scheme | None:
    """The scheme whose preamble opens ``text`` (:func:`_detect`'s, which names none with
    its position), or ``None``.

    Only the first words of the text are split off (as many as the longest preamble).

    >>> _opening("We have team assignment rules:\\nEither Alice is on the Red team.").name
    'team'
    >>> _opening("Hello") is None
    True
    """
    preambles = [(scheme, _phrase(scheme.preamble)) for _, scheme in TEMPLATES.items()]
    most = max((len(words) for _, words in preambles), default=0)
    head = [normalize_apostrophes(word) for word in text.split(None, most)[:most]]
    return next((scheme for scheme, words in preambles if head[: len(words)] == words), None)


def _rule_block(text: str, scheme: Scheme, numbered: bool | None) -> str | None:
    """The lines between ``scheme``'s preamble line and its question, without their
    rule numbers where the rules are ``numbered`` (``None``: the first line is numbered
    1), or ``None`` unless the text opens with the preamble and a line break, the
    question follows a blank line and ends at a whitespace or the end, and a numbered
    line opens with its number."""
    head, marker = scheme.preamble + "\n", "\n\n" + scheme.question
    if not text.startswith(head):
        return None
    end = text.find(marker, len(head) - 1)
    after = end + len(marker)
    if end < len(head) or (after < len(text) and not text[after].isspace()):
        return None
    block = text[len(head) : end]
    if numbered or (numbered is None and block.startswith(rule_head(1))):
        return _without_numbers(block)
    return block


def _without_numbers(block: str) -> str | None:
    """The lines of ``block`` without their rule numbers 1, 2, 3, ..., or ``None`` when a
    line does not open with its number."""
    rules = block.split("\n")
    heads = [rule_head(k) for k in range(1, len(rules) + 1)]
    if not all(map(str.startswith, rules, heads)):
        return None
    return "\n".join(rule[len(h) :] for rule, h in zip(rules, heads, strict=True))


def _line_entities(
    matches: Sequence[tuple[str, ...]], scheme: Scheme, entities: Sequence[str] | None
) -> list[str] | None:
    """The entity of each variable: ``entities``, or those of the matched lines in order of
    first appearance; ``None`` when a line names an entity outside the scheme's naming
    or outside ``entities``."""
    # each match holds two or one of them
    seen = dict.fromkeys(chain.from_iterable(map(_ENTITY_GROUPS, matches)))
    seen.pop("", None)  # the groups of the other kind of sentence
    if not scheme.entities.are_entities(seen):
        return None
    order = list(seen) if entities is None else [normalize_apostrophes(e) for e in entities]
    if not set(order) >= seen.keys():
        return None
    return order


def _read_lines(
    text: str, scheme: Scheme, entities: Sequence[str] | None, numbered: bool | None = None
) -> Read | None:
    """:func:`read_clauses` of a text laid out as the renderer lays it out, or ``None``.

    The preamble and a line break open the text, every line up to a blank line and the
    final question is one sentence of one or two literals with single spaces
    (:attr:`Scheme.clause_lines`), and the question ends at a whitespace or the end:
    the word-by-word reading then reads one sentence per line (no word but a line's
    last ends with a period), and this reading returns what it returns, with each
    line matched by one pattern instead of its words joined and parsed. Any other
    text, or one with an entity outside the scheme's naming (or the caller's
    entities), is ``None``: the word-by-word reading reads it or raises the error.
    Numbered rules (``numbered``, or ``None`` and the first line numbered 1) lose their
    numbers before the lines are matched; a line without its number is ``None`` too.

    >>> room = TEMPLATES.get("room")
    >>> text = "A building has lighting rules:\\nroom 2 is dark.\\n\\n" + room.question
    >>> _read_lines(text, room, None)
    ('room', [[-1]], ['room 2'], [2])
    >>> _read_lines(text.replace("dark", "dim"), room, None) is None
    True
    """
    pattern = scheme.clause_lines
    block = _rule_block(text, scheme, numbered)
    if pattern is None or block is None:
        return None
    matches = pattern[0].findall(block)
    if len(matches) != block.count("\n") + 1:
        return None
    order = _line_entities(matches, scheme, entities)
    if order is None:
        return None
    var = {entity: v for v, entity in enumerate(order, 1)}
    sign = {pattern[1]: 1, pattern[2]: -1}
    clauses = [
        [var[a] * sign[x], var[b] * sign[y]] if a else [var[u] * sign[z]]
        for a, x, b, y, u, z in matches
    ]
    return scheme.name, clauses, order, list(range(2, len(clauses) + 2))


def _opening_scheme(words: _Words, template: str | None, source: str | None) -> Scheme:
    """The scheme whose preamble opens ``words``: detected, or ``template``'s checked."""
    if template is None:
        return _detect(words, source)
    scheme = TEMPLATES.get(template)
    if not words.starts_with(0, _phrase(scheme.preamble)):
        raise words.error(f"expected the {scheme.name} preamble {scheme.preamble!r}", 0, source)
    return scheme


def _past_number(words: _Words, i: int, rule: int, *, numbered: bool, source: str | None) -> int:
    """The word after rule ``rule``'s number at word ``i`` (``i`` itself when the rules are
    not numbered).

    Raises
    ------
    ParseError
        A numbered rule that does not open with its number, or a number opening a rule
        where the rules are not numbered.
    """
    word = words.words[i]
    if numbered:
        number = rule_head(rule).rstrip()
        if word != number:
            raise words.error(
                f"rule {rule} opens with {word!r} instead of its number {number!r}", i, source
            )
        return i + 1
    if _RULE_NUMBER.fullmatch(word):
        raise words.error(f"{word!r} numbers a rule where the rules are not numbered", i, source)
    return i


class _SentenceEnds:
    """The word that ends the sentence at a word: the first from there that ends with a
    period. The ends are found up to the first place the question could start (what
    follows it, the evaluation prompt, is long and not read), then the sentinel
    ``limit``, and past it only when a sentence runs on over the question's words."""

    def __init__(self, words: list[str], question: list[str], start: int) -> None:
        self._words = words
        self._limit = _find(words, question, start)
        self._ends = self._periods(start, self._limit)
        self._e = 0

    def _periods(self, start: int, stop: int) -> list[int]:
        return [k for k in range(start, stop) if self._words[k].endswith(".")] + [stop]

    def after(self, i: int) -> int:
        """The end of the sentence that starts at word ``i`` (at or after the last asked)."""
        while self._ends[self._e] < i:
            self._e += 1
        n = len(self._words)
        if self._ends[self._e] == self._limit < n:  # a sentence runs on over the question
            self._ends[self._e :] = self._periods(self._limit, n)
            self._limit = n
        return self._ends[self._e]


def _at_question(
    words: _Words, i: int, question: list[str], scheme: Scheme, source: str | None
) -> bool:
    """Whether the final question starts at word ``i``; an error past the last word."""
    n = len(words.words)
    if i >= n:
        raise words.error(f"the final question {scheme.question!r} is missing", n, source)
    return words.words[i] == question[0] and words.words[i : i + len(question)] == question


def _read_words(
    text: str,
    template: str | None,
    entities: Sequence[str] | None,
    source: str | None,
    numbered: bool | None = None,
) -> Read:
    """:func:`read_clauses` word by word: any whitespace, errors with their positions.

    Numbered rules open with their number as a word of its own (``1.``), which must be
    one more than the rule before's."""
    words = _Words(text)
    scheme = _opening_scheme(words, template, source)
    question = _phrase(scheme.question)
    normalized = None if entities is None else [normalize_apostrophes(e) for e in entities]
    numbers = EntityNumbers(normalized)
    clauses: list[list[int]] = []
    lines: list[int] = []
    i = len(_phrase(scheme.preamble))
    text_words = words.words
    ends = _SentenceEnds(text_words, question, i)
    if numbered is None:
        numbered = i < len(text_words) and _RULE_NUMBER.fullmatch(text_words[i]) is not None
    while not _at_question(words, i, question, scheme, source):
        start = i
        i = _past_number(words, i, len(clauses) + 1, numbered=numbered, source=source)
        j = ends.after(i)
        sentence = " ".join(text_words[i : j + 1])
        try:
            literals = _parse_sentence(scheme, sentence)
        except SentenceError as err:
            raise words.error(str(err), i, source) from None
        try:
            clauses.append(numbers.clause(literals))
        except KeyError as err:
            raise words.error(f"unknown entity {err.args[0]!r}", i, source) from None
        lines.append(words.lines[start])
        i = j + 1
    return scheme.name, clauses, numbers.order, lines
