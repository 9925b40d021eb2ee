"""The claims of an answer's reasoning and their kinds: the types that the trace checker
(:mod:`~twosat_formal.evaluate.diagnostics.trace`) produces and the quality coder
(:mod:`~twosat_formal.evaluate.diagnostics.quality`) reads.

Examples
--------
>>> Trace(claims=(), sentences=0, read=0, basis="solver").coverage is None
True
>>> Trace(claims=(), sentences=4, read=3, basis="solver").counts()["clause"]
0
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonfields import fields_json

__all__ = ["ANSWER_LINE", "FORMS", "KINDS", "MAX_SENTENCE", "SENTENCE_END", "Claim", "Trace"]

#: The kinds of claim, in order of precedence.
KINDS = ("clause", "entailed", "contradicted", "unsupported")
#: The sentence forms of the grammar of record.
FORMS = ("clause", "assignment", "conditional", "chain", "formula")
#: Sentences longer than this (characters) are never claims: they are counted, not read.
MAX_SENTENCE = 2000
#: Where one sentence of an answer ends, and the answer line that closes its reasoning
#: (the trace checker and the quality coder split an answer alike).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
ANSWER_LINE = re.compile(r"the\s+answer\s+is\s*:", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """One claim: its text, form, kind, literals (DIMACS ints) and character span.

    A ``formula`` claim also has its ``expression`` over the formula's variable names;
    its ``literals`` are those of its clause when it is one clause, else empty.
    """

    text: str
    form: str
    kind: str
    literals: tuple[int, ...]
    span: tuple[int, int]
    expression: str | None = None

    def to_json(self, formula: Formula) -> dict[str, Any]:
        """The claim as a JSON object, literals as the formula names them."""
        # in field order; an expression only when there is one
        found = fields_json(self, skip=() if self.expression is not None else ("expression",))
        found["literals"] = [formula.literal_name(x) for x in self.literals]
        return found


@dataclass(frozen=True)
class Trace:
    """The claims of one answer, how many sentences it has, how many were read."""

    claims: tuple[Claim, ...]
    sentences: int
    read: int
    basis: str

    @property
    def coverage(self) -> float | None:
        """The share of sentences read (``None`` for an answer without sentences)."""
        return self.read / self.sentences if self.sentences else None

    #: How many sentences were read in each form (``supposition`` included).
    forms: Mapping[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """How many claims of each kind."""
        return {kind: sum(1 for c in self.claims if c.kind == kind) for kind in KINDS}

    def coverage_by_form(self) -> dict[str, float | None]:
        """The share of sentences read in each form (they sum to :attr:`coverage`)."""
        return {
            form: (self.forms.get(form, 0) / self.sentences if self.sentences else None)
            for form in (*FORMS, "supposition")
        }
