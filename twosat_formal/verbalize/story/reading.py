"""Read a story prompt literally: the clauses of a story whose clues state their literals.

A story told by a model is attested, not parsed: its clues are free text. Some stories
can still be read back without a model: those whose every clue states its two
statements (``<entity> <description>``) word for word, as the programmatic fallback
sentence does and as a scripted writer can. :func:`read_story_prompt` reads such a
story out of its App. G.2 evaluation prompt (the story variant of
:func:`~twosat_formal.verbalize.prompts.story_prompt`); the reference reasoners use it to answer
story prompts, so an experiment with stories runs end to end without a language model.

The reading rule:

* the prompt must be exactly ``story_prompt(story, entities)`` for the story and the
  entity list it shows (anything else is not a story prompt);
* the story's paragraphs are separated by blank lines; the first is the introduction
  and is not read;
* in every later paragraph, the statements of the entity list are found word for word
  (case aside, whole words, the longest statement where two overlap): two statements
  make the clause "at least one of them holds", one a unit clause, none a narrative
  paragraph without a clause; three or more cannot be read.

A story whose clues paraphrase their statements is not readable this way
(:class:`~twosat_formal.errors.ParseError`).

Examples
--------
>>> from twosat_formal.verbalize.prompts import story_prompt
>>> text = story_prompt(
...     "Night fell.\\n\\nEither the vault is open, or the guard is loyal (or both).",
...     [("the vault", "is open", "is sealed"), ("the guard", "was bribed", "is loyal")])
>>> story = read_story_prompt(text)
>>> [list(c) for c in story.formula.clauses], story.entities
([[1, -2]], ('the vault', 'the guard'))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError
from twosat_formal.verbalize.prompts import story_prompt

__all__ = ["LiteralStory", "read_story_prompt"]

_INSTRUCTIONS = "\n\nThink step by step.\n\n"
_ENTITY_LINE = re.compile(r'^  - "([^"\n]+)": "([^"\n]+)" or "([^"\n]+)"$', re.MULTILINE)
_LIST_HEAD = "Entities and their possible values:\n"


@dataclass(frozen=True)
class LiteralStory:
    """A story prompt read literally.

    ``formula`` has variable ``v`` for ``entities[v - 1]``, whose ``(true, false)``
    descriptions are ``descriptions[v - 1]``; ``story`` is the story text of the prompt.
    """

    story: str
    formula: Formula
    entities: tuple[str, ...]
    descriptions: tuple[tuple[str, str], ...]

    def statement(self, literal: int) -> str:
        """A literal as its statement: ``"<entity> <description>"``.

        >>> LiteralStory("", Formula([[1]]), ("the vault",), (("is open", "is sealed"),)
        ...              ).statement(-1)
        'the vault is sealed'
        """
        true, false = self.descriptions[abs(literal) - 1]
        return f"{self.entities[abs(literal) - 1]} {true if literal > 0 else false}"


def _split(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The story and the entity list of a story prompt (checked by rebuilding it)."""
    at = text.rfind(_INSTRUCTIONS)
    head = text.find(_LIST_HEAD, at + 1) if at >= 0 else -1
    if head < 0:
        raise ParseError("not a story prompt: no story followed by its list of entities")
    end = text.find("\n\n", head)
    block = text[head + len(_LIST_HEAD) : end if end >= 0 else len(text)]
    triples = [(m[0], m[1], m[2]) for m in _ENTITY_LINE.findall(block)]
    story = text[:at]
    if not triples or story_prompt(story, triples) != text:
        raise ParseError("not a story prompt: the text differs from the story prompt it names")
    return story, triples


def read_story_prompt(text: str) -> LiteralStory:
    """The formula of a story prompt whose clues state their literals word for word.

    Raises :class:`~twosat_formal.errors.ParseError` for a text that is not a story
    prompt, or a paragraph that states more than two statements (see the module).

    >>> from twosat_formal.verbalize.prompts import story_prompt
    >>> read_story_prompt(story_prompt("Intro.\\n\\nThe vault is open; the vault is "
    ...     "sealed; the guard is loyal.", [("the vault", "is open", "is sealed"),
    ...     ("the guard", "was bribed", "is loyal")]))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: <story prompt>:3: paragraph 2 of the story states \
3 statements; a clue states one or two
    """
    story, triples = _split(text)
    literal: dict[str, int] = {}
    for var, (entity, true, false) in enumerate(triples, 1):
        literal[f"{entity} {true}".casefold()] = var
        literal[f"{entity} {false}".casefold()] = -var
    pattern = re.compile(
        r"(?<!\w)("
        + "|".join(re.escape(s) for s in sorted(literal, key=len, reverse=True))
        + r")(?!\w)",
        re.IGNORECASE,
    )
    clauses: list[list[int]] = []
    line = 1
    for number, paragraph in enumerate(story.split("\n\n"), 1):
        if number > 1:
            found = [literal[m.group(1).casefold()] for m in pattern.finditer(paragraph)]
            if len(found) > 2:
                raise ParseError(
                    f"paragraph {number} of the story states {len(found)} statements; "
                    "a clue states one or two",
                    line=line,
                    source="<story prompt>",
                )
            if found:
                clauses.append(found)
        line += paragraph.count("\n") + 2
    entities = tuple(e for e, _, _ in triples)
    descriptions = tuple((t, f) for _, t, f in triples)
    formula = Formula(clauses, num_vars=len(entities))
    return LiteralStory(story, formula, entities, descriptions)
