"""The programmatic sentences of a story: the fallback sentence, read back; the story text.

When a clue fails validation three times, App. G.3 replaces it by a programmatic
sentence, ``Either {entity_1} {state_1}, or {entity_2} {state_2} (or both).``
(:func:`fallback_sentence`); a unit clause gets ``It is certain that ...``. These
sentences are parsed back exactly (:func:`parse_fallback`), which is what lets a story
with fallback clues be proved. :func:`assemble_story` joins the introduction and the
clues into the story text.

Examples
--------
>>> descriptions = {"the butler": ("is the murderer", "is innocent"),
...                 "the maid": ("saw the killer", "saw nothing")}
>>> text = fallback_sentence([("the butler", "is innocent"), ("the maid", "saw the killer")])
>>> text
'Either the butler is innocent, or the maid saw the killer (or both).'
>>> parse_fallback(text, descriptions)
[('the butler', False), ('the maid', True)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from twosat_formal.errors import CertificateError, ConfigError

__all__ = ["assemble_story", "clause_statements", "fallback_sentence", "parse_fallback"]

_EITHER, _OR, _BOTH = "Either ", ", or ", " (or both)."
_CERTAIN, _PERIOD = "It is certain that ", "."


def clause_statements(
    clause: Sequence[int], names: Sequence[str], descriptions: Mapping[str, tuple[str, str]]
) -> tuple[list[tuple[str, bool]], list[tuple[str, str]]]:
    """A clause's literals as ``(entity, value)`` pairs (variable ``v`` is ``names[v - 1]``)
    and as ``(entity, description)`` statements, in clause order.

    >>> clause_statements([-1], ["the vault"], {"the vault": ("is open", "is sealed")})
    ([('the vault', False)], [('the vault', 'is sealed')])
    """
    source = [(names[abs(lit) - 1], lit > 0) for lit in clause]
    return source, [(e, descriptions[e][0 if v else 1]) for e, v in source]


def fallback_sentence(statements: Sequence[tuple[str, str]]) -> str:
    """The programmatic sentence of a clause, from ``(entity, description)`` pairs.

    Two literals give the paper's sentence ``Either {entity_1} {state_1}, or
    {entity_2} {state_2} (or both).``; a unit clause (an extension: the paper's
    formulas have none) gives ``It is certain that {entity} {state}.``.

    >>> fallback_sentence([("the vault", "is open")])
    'It is certain that the vault is open.'
    """
    shown = [f"{entity} {state}" for entity, state in statements]
    if len(shown) == 2:
        return f"{_EITHER}{shown[0]}{_OR}{shown[1]}{_BOTH}"
    if len(shown) == 1:
        return f"{_CERTAIN}{shown[0]}{_PERIOD}"
    raise ConfigError(
        f"a fallback sentence needs one or two literals, got {len(shown)}",
        parameter="clause",
        valid="1 or 2 literals",
    )


def parse_fallback(
    text: str, descriptions: Mapping[str, tuple[str, str]]
) -> list[tuple[str, bool]]:
    """Read a fallback sentence back: the ``(entity, value)`` of each literal.

    ``descriptions`` maps each entity to its ``(true, false)`` descriptions. The
    sentence must read exactly one way; :class:`~twosat_formal.errors.CertificateError`
    otherwise.

    >>> vault = {"the vault": ("is open", "is sealed")}
    >>> parse_fallback("It is certain that the vault is open.", vault)
    [('the vault', True)]
    """
    statements: dict[str, tuple[str, bool]] = {}
    for entity, (true, false) in descriptions.items():
        statements[f"{entity} {true}"] = (entity, True)
        statements[f"{entity} {false}"] = (entity, False)
    readings = _fallback_readings(text, statements)
    if len(readings) != 1:
        why = "reads in several ways" if readings else "is not a fallback sentence of the entities"
        raise CertificateError(f"the clue {text!r} {why}")
    return readings[0]


def _fallback_readings(
    text: str, statements: Mapping[str, tuple[str, bool]]
) -> list[list[tuple[str, bool]]]:
    """Every way ``text`` reads as a fallback sentence of the ``statements``."""
    if text.startswith(_EITHER) and text.endswith(_BOTH):
        body = text[len(_EITHER) : -len(_BOTH)]
        cuts = [m.start() for m in re.finditer(f"(?={re.escape(_OR)})", body)]
        halves = [(body[:cut], body[cut + len(_OR) :]) for cut in cuts]
        return [[statements[a], statements[b]] for a, b in halves if {a, b} <= statements.keys()]
    if text.startswith(_CERTAIN) and text.endswith(_PERIOD):
        body = text[len(_CERTAIN) : -len(_PERIOD)]
        return [[statements[body]]] if body in statements else []
    return []


def assemble_story(intro: str, clues: Iterable[str]) -> str:
    """The story text: the introduction, then one paragraph per clue, blank lines between.

    >>> assemble_story("Night fell.", ["Clue one.", "Clue two."])
    'Night fell.\\n\\nClue one.\\n\\nClue two.'
    """
    return "\n\n".join([intro.strip(), *(clue.strip() for clue in clues)])
