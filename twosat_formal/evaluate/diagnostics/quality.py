"""Reasoning quality coded exactly, from the trace checker's claims (LogicEdit's four
dimensions, with the solver as the evaluator).

LogicEdit codes an answer's reasoning with an evaluator LLM on four dimensions and calls
the result an estimate. The formula is known here, so each dimension is computed:

``premise_fidelity``
    The share of the cited rules that are rules of the instance: of the claims that
    state one rule, in the template's own rule sentence (form ``clause``, the sentences
    the prompt states its rules in) or as a formula of one clause (form ``formula``:
    ``A ∨ ¬B``, the lines of a ``symbolic-cot`` formalization), those that restate a
    clause of the formula (kind ``clause``). ``None`` when the reasoning cites no rule.
``inference_validity``
    The share of the reasoning's claims (every form) that the rules entail (kind
    ``clause`` or ``entailed``; the solver decides, see
    :mod:`~twosat_formal.evaluate.diagnostics.trace`). ``None`` without claims.
``answer_completion``
    An answer line is present and readable (a decision under the strict reading, not
    truncated), with the witness the prompt asks for: a readable valid-JSON assignment
    for "Yes", a contradiction chain for "No" where the prompt asked for one.
``answer_alignment``
    The final answer agrees with what the reasoning itself concluded: the last
    sentence before the answer line that states a conclusion (:func:`concluded`).
    ``None`` when the reasoning states none, or the answer line has no decision.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.diagnostics.trace import check_trace
>>> f = Formula.from_named([["~a", "b"], ["a"]])
>>> text = ("Either A is false or B is true (or both).\\nEither A is true or B is true "
...         "(or both).\\nSo B is true. Hence no contradiction: a valid assignment exists.\\n"
...         "The answer is: Yes")
>>> row = {"decision": "SAT", "failure": "correct", "cycle_reason": None}
>>> code = code_quality(check_trace(text, "logic", {"A": "a", "B": "b"}, f), text, row)
>>> code["premise_fidelity"], code["inference_validity"], code["answer_completion"]
(0.5, 1.0, True)
>>> code["concluded"], code["answer_alignment"]
('SAT', True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from twosat_formal.evaluate.diagnostics.claims import ANSWER_LINE, SENTENCE_END, Trace

__all__ = ["DIMENSIONS", "INCOMPLETE", "code_quality", "concluded"]

#: The four dimensions, in LogicEdit's order.
DIMENSIONS = ("premise_fidelity", "inference_validity", "answer_completion", "answer_alignment")

#: Failure kinds of an answer that is not complete: no readable answer line, or a
#: "Yes" without its readable assignment.
INCOMPLETE = frozenset(
    {"no-answer", "ambiguous-answer", "bad-json", "missing-witness", "truncated", "error"}
)

#: Conclusions, tried in order on each sentence: a negated contradiction first, then
#: the statements of "No", then those of "Yes".
_CONCLUSIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:no|without|never)\s+(?:(?:a|an|any)\s+)?contradiction"
            r"|(?:\bnot|\bnever|n't)\s+(?:lead|leads|led|result|results|resulted)\s+"
            r"(?:to|in)\s+(?:(?:a|an|any)\s+)?contradiction"
            r"|\bnot\s+unsatisfiable|\b(?:is|are)\s+consistent\b",
            re.IGNORECASE,
        ),
        "SAT",
    ),
    (
        re.compile(
            r"\bno\s+(?:valid\s+|such\s+|consistent\s+|satisfying\s+)?assignment"
            r"|\bunsatisfiable|\bnot\s+satisfiable|\bcontradiction|\binconsistent"
            r"|\bimpossible|\bcannot\s+(?:all\s+)?be\s+satisfied",
            re.IGNORECASE,
        ),
        "UNSAT",
    ),
    (
        re.compile(
            r"\b(?:valid|satisfying|consistent)\s+assignment\s+(?:exists|is\s+possible)"
            r"|\bthere\s+is\s+a\s+(?:valid|satisfying|consistent)\s+assignment"
            r"|\bsatisfiable|\ball\s+(?:the\s+)?rules\s+(?:are\s+)?satisfied",
            re.IGNORECASE,
        ),
        "SAT",
    ),
)


def _sentence_conclusion(sentence: str) -> str | None:
    for pattern, decision in _CONCLUSIONS:
        if pattern.search(sentence):
            return decision
    return None


def concluded(text: str) -> str | None:
    """What the reasoning concluded: ``SAT``, ``UNSAT`` or ``None`` (no conclusion).

    The last sentence before the (last) answer line that states whether an assignment
    exists decides: "a valid assignment exists", "satisfiable", a negated contradiction
    ("no contradiction", "without a contradiction", "does not lead to a contradiction")
    read ``SAT``; "no valid assignment", "unsatisfiable", "contradiction", "impossible" read
    ``UNSAT``.

    >>> concluded("A must be true. This is a contradiction.\\nThe answer is: Yes")
    'UNSAT'
    >>> concluded("No contradiction arises, so it is satisfiable.\\nThe answer is: Yes")
    'SAT'
    >>> concluded("B is true.\\nThe answer is: No") is None
    True
    """
    lines = text.split("\n")
    answer_at = max((i for i, line in enumerate(lines) if ANSWER_LINE.search(line)), default=None)
    if answer_at is not None:
        lines = lines[:answer_at]
    found = None
    for line in lines:
        for sentence in SENTENCE_END.split(line):
            decision = _sentence_conclusion(sentence)
            if decision is not None:
                found = decision
    return found


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def code_quality(trace: Trace, text: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """The four codings of one answer from its ``trace``, its ``text`` and its stored
    judgement ``row`` (``decision``, ``failure``, ``cycle_reason``).

    Returns the four :data:`DIMENSIONS` and ``concluded`` (:func:`concluded`).
    """
    cited = [c for c in trace.claims if c.form == "clause" or (c.form == "formula" and c.literals)]
    valid = [c for c in trace.claims if c.kind in ("clause", "entailed")]
    decision = row.get("decision")
    conclusion = concluded(text)
    return {
        "premise_fidelity": _share(sum(c.kind == "clause" for c in cited), len(cited)),
        "inference_validity": _share(len(valid), len(trace.claims)),
        "answer_completion": _complete(decision, row),
        "answer_alignment": (
            None if conclusion is None or decision is None else conclusion == decision
        ),
        "concluded": conclusion,
    }


def _complete(decision: Any, row: Mapping[str, Any]) -> bool:
    """Whether the answer gave a decision, in full, with its chain when one was asked."""
    return (
        decision is not None
        and row.get("failure") not in INCOMPLETE
        and row.get("cycle_reason") != "no-chain"
    )
