"""The six template schemes of App. G.1 as data, and the rendering of one sentence each.

Every scheme is a :class:`Scheme`: the Table 2 values, preamble and naming, the final
question, and the pattern of a clause sentence split into its parts. A two-literal
clause renders exactly as the paper's pattern, the value word chosen by polarity (a
positive literal takes the true value, a negative one the false value)::

    logic   Either {A} is true or {B} is false (or both).
    letter  Either {A} has the letter or {B} doesn’t have the letter (or both).
    team    Either {A} is on the Red team or {B} is on the Blue team.
    social  {A} attends or {B} doesn’t attend (or both).
    room    room {i} is lit or room {j} is dark (or both).
    door    door {i} is open or door {j} is closed (or both).

The paper is silent on other widths; these renderings are ours:

* a unit clause ``(a)`` is the bare literal phrase: ``A is true.``, ``room 3 is dark.``;
* a clause of three or more literals joins the phrases with ``or`` inside the binary
  frame and says ``(or several)`` where the binary frame says ``(or both)``:
  ``Either A is true or B is false or C is true (or several).``; ``team`` has no such
  remark in its binary pattern and gets none here either;
* an empty clause has no rendering: :meth:`Scheme.sentence` refuses it.

The texts keep the paper's typographic apostrophe (U+2019) in ``doesn’t``, ``You’re``
and ``everyone’s``; the back-parser also accepts the ASCII apostrophe.

Examples
--------
>>> s = TEMPLATES.get("logic")
>>> s.sentence([("A", False), ("B", True)])
'Either A is false or B is true (or both).'
>>> s.parse_sentence("Either A is false or B is true (or both).")
[('A', False), ('B', True)]
>>> TEMPLATES.get("room").sentence([("room 2", True)])
'room 2 is lit.'
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from twosat_formal._util.recent import TEXTS
from twosat_formal._util.registry import Registry
from twosat_formal.errors import ConfigError, SentenceError
from twosat_formal.verbalize.entities import NAMINGS, Naming

__all__ = [
    "APOSTROPHE",
    "TEMPLATES",
    "Scheme",
    "SentenceError",
    "normalize_apostrophes",
    "rule_head",
]

#: The apostrophe the paper prints in ``doesn’t``, ``You’re`` and ``everyone’s``.
APOSTROPHE = "\u2019"


def normalize_apostrophes(text: str) -> str:
    """Replace ASCII apostrophes with the paper's typographic one.

    >>> normalize_apostrophes("doesn't") == "doesn\u2019t"
    True
    """
    return text.replace("'", APOSTROPHE)


def rule_head(number: int) -> str:
    """What opens rule ``number``'s line in a prompt whose rules are numbered.

    >>> rule_head(12)
    '12. '
    """
    return f"{number}. "


@lru_cache(maxsize=TEXTS)  # keyed by clause texts: bounded small
def _parse_sentence(scheme: Scheme, sentence: str) -> tuple[tuple[str, bool], ...]:
    """:meth:`Scheme.parse_sentence`, remembered: a pure function of scheme and sentence.

    Prompts of one scheme share many sentences (the same entities and polarities);
    each is parsed, and checked to render back to itself, once per process.
    """
    return scheme._parse_sentence(sentence)


@dataclass(frozen=True)
class Scheme:
    """One template verbalizer scheme (one row of Table 2 plus its patterns).

    Parameters
    ----------
    name:
        The scheme name (``logic``, ``letter``, …).
    true_value, false_value:
        The value labels of Table 2 (used in the evaluation prompt's JSON).
    naming:
        The entity naming (a key of :data:`~twosat_formal.verbalize.entities.NAMINGS`).
    preamble:
        The context preamble, the first line of the verbalization.
    question:
        The final yes/no question, the last line of the verbalization.
    true_phrase, false_phrase:
        The literal phrase for a positive / negative literal; ``{e}`` is the entity.
    prefix:
        What opens a clause sentence of two or more literals (``"Either "`` or ``""``).
    both:
        The remark closing a two-literal sentence (``" (or both)"`` or ``""``).
    several:
        The remark closing a sentence of three or more literals.
    """

    name: str
    true_value: str
    false_value: str
    naming: str
    preamble: str
    question: str
    true_phrase: str
    false_phrase: str
    prefix: str
    both: str
    several: str

    @property
    def entities(self) -> Naming:
        """The :class:`Naming` of this scheme."""
        return NAMINGS[self.naming]

    def literal(self, entity: str, positive: bool) -> str:
        """The phrase of one literal.

        >>> TEMPLATES.get("team").literal("Alice", False)
        'Alice is on the Blue team'
        """
        before, after = self._phrase_parts[0 if positive else 1]
        return before + entity + after

    def sentence(self, literals: Sequence[tuple[str, bool]]) -> str:
        """The sentence of one clause given as ``(entity, positive)`` pairs, in order.

        >>> TEMPLATES.get("social").sentence([("Alice", True), ("Bob", False)])
        'Alice attends or Bob doesn’t attend (or both).'
        """
        phrases = [self.literal(entity, positive) for entity, positive in literals]
        if not phrases:
            raise ConfigError(
                "an empty clause has no verbalization", parameter="clause", valid="1+ literals"
            )
        if len(phrases) == 1:
            return phrases[0] + "."
        remark = self.both if len(phrases) == 2 else self.several
        return self.prefix + " or ".join(phrases) + remark + "."

    def sentences(self, clauses: Sequence[Sequence[int]], entities: Sequence[str]) -> list[str]:
        """The sentence of each clause, ``entities[v - 1]`` naming variable ``v``.

        The same sentences as :meth:`sentence` of each clause's ``(entity, positive)``
        pairs, with each entity's two phrases formatted once for all clauses.

        >>> TEMPLATES.get("room").sentences([[1, -2], [2]], ["room 2", "room 1"])
        ['room 2 is lit or room 1 is dark (or both).', 'room 1 is lit.']
        """
        # phrase[lit] for lit in 1..n and -n..-1 (a negative index counts from the end)
        (true_before, true_after), (false_before, false_after) = self._phrase_parts
        phrase = [""]
        phrase += [true_before + entity + true_after for entity in entities]
        phrase += [false_before + entity + false_after for entity in reversed(entities)]
        head, tail = self.prefix, self.both + "."
        if set(map(len, clauses)) <= {2}:  # a 2-CNF without units: one pass
            return [f"{head}{phrase[a]} or {phrase[b]}{tail}" for a, b in clauses]
        found = []
        for clause in clauses:
            if len(clause) == 2:
                found.append(head + phrase[clause[0]] + " or " + phrase[clause[1]] + tail)
            elif len(clause) == 1:
                found.append(phrase[clause[0]] + ".")
            else:
                found.append(self.sentence([(entities[abs(x) - 1], x > 0) for x in clause]))
        return found

    def numbered(self, lines: Sequence[str]) -> list[str]:
        """The rule lines of a prompt that names rules by number (``core``, ``repair``).

        Each line is opened by its number, ``1. ``, ``2. ``, ... in order
        (:func:`rule_head`); the formats whose lines cannot carry one say otherwise
        (``dimacs``).

        >>> TEMPLATES.get("room").numbered(["room 1 is lit.", "room 2 is dark."])
        ['1. room 1 is lit.', '2. room 2 is dark.']
        """
        return [rule_head(k) + line for k, line in enumerate(lines, 1)]

    @cached_property
    def _phrase_parts(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """What comes before and after ``{e}`` in the true and the false phrase.

        >>> TEMPLATES.get("letter")._phrase_parts[1]
        ('', ' doesn’t have the letter')
        """
        true_before, true_after = self.true_phrase.split("{e}")
        false_before, false_after = self.false_phrase.split("{e}")
        return (true_before, true_after), (false_before, false_after)

    @cached_property
    def clause_lines(self) -> tuple[re.Pattern[str], str, str] | None:
        """A pattern of a line that is one sentence of one or two literals, as rendered.

        Returns ``(pattern, true, false)``. Matched on a block of lines
        (``re.MULTILINE``, one match per line), each match's groups are ``(entity,
        value, entity, value)`` of a two-literal sentence, then ``(entity, value)`` of a
        unit sentence (empty for the other kind); a value is the part of a literal
        phrase after the entity, ``true`` for a true literal and ``false`` for a false
        one. A line matches only if it is exactly :meth:`sentence` of its literals, with
        entities that fit :attr:`Naming.regex
        <twosat_formal.verbalize.entities.Naming.regex>`.

        ``None`` (no scheme of App. G.1) when a literal phrase does not start with its
        entity, when the two phrases end alike, when the words of a sentence hold a
        period before its end or a question mark, or when a word of the question ends
        with a period: the text is then read word by word.

        >>> pattern, true, false = TEMPLATES.get("logic").clause_lines
        >>> pattern.findall("Either A is false or B is true (or both).\\nC is true.")
        [('A', ' is false', 'B', ' is true', '', ''), ('', '', '', '', 'C', ' is true')]
        >>> true, false
        (' is true', ' is false')
        """
        (before_true, after_true), (before_false, after_false) = self._phrase_parts
        fixed = self.prefix + self.both + after_true + after_false
        if before_true or before_false or after_true == after_false or "." in fixed or "?" in fixed:
            return None
        if any(word.endswith(".") for word in self.question.split()):
            return None
        literal = f"({self.entities.regex})({re.escape(after_true)}|{re.escape(after_false)})"
        two = re.escape(self.prefix) + literal + " or " + literal + re.escape(self.both)
        return re.compile(f"^(?:{two}|{literal})\\.$", re.MULTILINE), after_true, after_false

    @cached_property
    def _phrase_res(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        noun = self.entities.noun

        def compile_phrase(before: str, after: str) -> re.Pattern[str]:
            entity = f"(?P<e>{re.escape(noun)} \\S+)" if noun else r"(?P<e>\S+)"
            return re.compile(re.escape(before) + entity + re.escape(after) + r"\Z")

        true_parts, false_parts = self._phrase_parts
        return compile_phrase(*true_parts), compile_phrase(*false_parts)

    def parse_literal(self, phrase: str) -> tuple[str, bool]:
        """The inverse of :meth:`literal` (apostrophes already normalized).

        >>> TEMPLATES.get("letter").parse_literal("Bob doesn’t have the letter")
        ('Bob', False)
        """
        true_re, false_re = self._phrase_res
        for regex, positive in ((false_re, False), (true_re, True)):
            match = regex.match(phrase)
            if match:
                entity = match.group("e")
                if not self.entities.is_entity(entity):
                    raise SentenceError(f"unknown entity {entity!r}", entity=entity)
                return entity, positive
        raise SentenceError(f"{phrase!r} is not a {self.name} statement")

    def parse_sentence(self, sentence: str) -> list[tuple[str, bool]]:
        """The inverse of :meth:`sentence`: the clause's ``(entity, positive)`` pairs.

        ``sentence`` has its whitespace collapsed to single spaces; ASCII apostrophes
        are accepted. Raises :class:`SentenceError` when the sentence fits no pattern
        of this scheme (the result always renders back to exactly ``sentence``).

        >>> TEMPLATES.get("door").parse_sentence("door 1 is open or door 2 is closed (or both).")
        [('door 1', True), ('door 2', False)]
        """
        return list(_parse_sentence(self, sentence))

    def _parse_sentence(self, sentence: str) -> tuple[tuple[str, bool], ...]:
        text = normalize_apostrophes(sentence)
        unknown: SentenceError | None = None
        for parts in self._framings(text):
            try:
                literals = [self.parse_literal(part) for part in parts]
            except SentenceError as err:
                if err.entity is not None and unknown is None:
                    unknown = err
                continue
            if self.sentence(literals) == text:
                return tuple(literals)
        if unknown is not None:
            raise unknown
        raise SentenceError(f"the sentence fits no {self.name} pattern")

    def _framings(self, text: str) -> Iterator[list[str]]:
        """The literal phrases of ``text`` in each sentence frame that fits it: one
        literal and a period, two between :attr:`prefix` and :attr:`both`, three or more
        between :attr:`prefix` and :attr:`several`."""
        frames = [
            (1, "", "."),
            (2, self.prefix, self.both + "."),
            (3, self.prefix, self.several + "."),
        ]
        for width, prefix, suffix in frames:
            if text.startswith(prefix) and text.endswith(suffix):
                parts = text[len(prefix) : len(text) - len(suffix)].split(" or ")
                if (len(parts) >= 3) if width == 3 else (len(parts) == width):
                    yield parts

    def example(self) -> str:
        """The paper's G.1 example clauses ``(¬A ∨ B), (A ∨ ¬C)`` in this scheme's words
        (its :meth:`sentences`, so a format's lines).

        >>> print(TEMPLATES.get("logic").example())
        Either A is false or B is true (or both).
        Either A is true or C is false (or both).
        >>> print(TEMPLATES.get("math-latex").example())
        (\\neg x_{1} \\lor x_{2}) \\land
        (x_{1} \\lor \\neg x_{3})
        """
        return "\n".join(self.sentences([[-1, 2], [1, -3]], self.entities.canonical(3)))


def _scheme(
    name: str,
    values: tuple[str, str],
    naming: str,
    preamble: str,
    question: str,
    phrases: tuple[str, str],
    prefix: str,
    both: str,
) -> Scheme:
    return Scheme(
        name=name,
        true_value=values[0],
        false_value=values[1],
        naming=naming,
        preamble=preamble,
        question=question,
        true_phrase=phrases[0],
        false_phrase=phrases[1],
        prefix=prefix,
        both=both,
        several=" (or several)" if both else "",
    )


_A = APOSTROPHE

#: The six schemes of App. G.1 (Table 2), registered by name in the paper's order.
TEMPLATES: Registry[Scheme] = Registry("template")
for _s in (
    _scheme(
        "logic",
        ("true", "false"),
        "letters",
        "Consider these logical relationships:",
        "Can you assign truth values to all statements without creating a contradiction?",
        ("{e} is true", "{e} is false"),
        "Either ",
        " (or both)",
    ),
    _scheme(
        "letter",
        ("has", f"doesn{_A}t have"),
        "persons",
        "Consider these rules about who has the letter:",
        "Is there a consistent way for people to hold or not hold the letter?",
        ("{e} has the letter", f"{{e}} doesn{_A}t have the letter"),
        "Either ",
        " (or both)",
    ),
    _scheme(
        "team",
        ("Red", "Blue"),
        "persons",
        "We have team assignment rules:",
        "Is there a valid team assignment that satisfies all constraints?",
        ("{e} is on the Red team", "{e} is on the Blue team"),
        "Either ",
        "",
    ),
    _scheme(
        "social",
        ("attends", f"doesn{_A}t attend"),
        "persons",
        f"You{_A}re planning a party with these attendance conditions:",
        f"Can you create a guest list that respects everyone{_A}s conditions?",
        ("{e} attends", f"{{e}} doesn{_A}t attend"),
        "",
        " (or both)",
    ),
    _scheme(
        "room",
        ("lit", "dark"),
        "rooms",
        "A building has lighting rules:",
        "Can all the lighting rules be satisfied simultaneously?",
        ("{e} is lit", "{e} is dark"),
        "",
        " (or both)",
    ),
    _scheme(
        "door",
        ("open", "closed"),
        "doors",
        "A facility has door coupling rules:",
        "Is there a configuration of doors that satisfies all the rules?",
        ("{e} is open", "{e} is closed"),
        "",
        " (or both)",
    ),
):
    TEMPLATES.add(_s.name, _s)
