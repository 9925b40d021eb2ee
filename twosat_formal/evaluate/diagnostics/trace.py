"""The trace checker: each claim an answer's reasoning makes, checked against the formula.

The answer is cut into sentences (lines, then sentence ends ``.``, ``!``, ``?``); JSON
objects, fenced code blocks and the final answer line are left out. A sentence is read as a
claim when it fits the **grammar of record** below, in the vocabulary of the prompt's
template (``L`` is a literal phrase of the template: ``A is true``, ``room 3 is dark``,
``Alice is on the Blue team``...). Case, runs of spaces, ASCII apostrophes, markdown
emphasis, a list marker, a lead-in ending in ``:`` and a leading ``So,`` / ``Thus,`` /
``Therefore,`` / ``Hence,`` / ``Then,`` are ignored.

=================  ===============================================  ==================
form               sentences                                        claim
=================  ===============================================  ==================
``clause``         the template's own clause sentence               ``(L1 | L2)``
                   (``Either A is true or B is false (or both).``)
``assignment``     ``L.``; ``E = V``, ``E: V``, ``E is V``,          ``(L)``
                   ``set E to V`` (``V`` a value word)
``conditional``    ``If L1, then L2.``, ``If L1 then L2.``,         ``(~L1 | L2)``
                   ``If L1, L2.``, ``L1 implies L2.``,
                   ``L1 means L2.``
``chain``          ``L1 → L2 → ... → Lk`` (``→``, ``->``, ``=>``)    one ``(~Li | Li+1)``
                                                                    per arrow
``supposition``    ``Suppose L.``, ``Assume L.``                    read, not judged
``formula``        a formula over the entities: ``A → (B ∧ ¬C)``,  the formula
                   ``¬A ∨ B``, ``A = 1, B = 0``
                   (:mod:`~twosat_formal.evaluate.diagnostics.formula_claims`)
=================  ===============================================  ==================

Each claim gets one ``kind``, in this order of precedence:

``clause``
    it restates a clause of the formula (same set of literals);
``entailed``
    it follows from the formula;
``contradicted``
    the formula implies its negation;
``unsupported``
    neither: a constraint the formula does not give (a hallucinated rule).

A ``formula`` claim is judged through the clauses of sympy's simplest CNF of the formula
and of its negation: ``clause`` when it is one clause of the formula, ``entailed`` when
every clause of its CNF follows, ``contradicted`` when every clause of its negation's
CNF follows.

On a satisfiable formula, *follows* is decided by the solver: ``F |= C`` iff
``F & ~C`` is UNSAT, and ``F |= ~C`` iff ``F & C`` is UNSAT (basis ``solver``). An
unsatisfiable formula implies everything, so there a claim follows when a chain of the
formula's implications derives it: ``(L1 | L2)`` when ``~L1 ~> L2``, ``(L)`` when
``~L ~> L``; its negation when every literal ``L`` of it has ``L ~> ~L`` (basis
``implications``). Both are exact: the solver's label is certified, and reachability
is decided on the whole implication graph.

Coverage is the share of the reasoning's sentences that were read (as claims or
suppositions); a sentence longer than :data:`MAX_SENTENCE` characters is counted but
never read. Claims after a supposition are judged as plain claims: the checker does
not track hypothetical context.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["~a", "b"], ["a"]])
>>> entities = {"A": "a", "B": "b"}
>>> text = ("Either A is false or B is true (or both).\\nSo B is true. If B is true, then A is "
...         "false. Maybe.\\n\\nThe answer is: Yes")
>>> trace = check_trace(text, "logic", entities, f)
>>> [(c.form, c.kind) for c in trace.claims]
[('clause', 'clause'), ('assignment', 'entailed'), ('conditional', 'contradicted')]
>>> trace.sentences, trace.read, trace.basis
(4, 3, 'solver')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from twosat_formal.core.formula import Formula
from twosat_formal.core.propositional import Expr
from twosat_formal.evaluate.diagnostics.claims import (
    ANSWER_LINE,
    MAX_SENTENCE,
    SENTENCE_END,
    Claim,
    Trace,
)
from twosat_formal.evaluate.diagnostics.formula_claims import (
    claim_clauses,
    read_formula_claim,
    renamed,
)
from twosat_formal.evaluate.diagnostics.implications import Implications
from twosat_formal.evaluate.scoring.answers import casefolded, entity_variables

if TYPE_CHECKING:
    from twosat_formal.evaluate.store import RunStore

__all__ = [
    "check_trace",
    "read_claims",
    "trace_rows",
    "trace_store",
]

_ARROWS = re.compile(r"\s*(?:→|->|=>|⇒|\\(?:long)?rightarrow\b|\\to\b|\\implies\b)\s*")
_LEAD_WORDS = re.compile(r"^(?:so|thus|therefore|hence|then|and|but)\b,?\s*", re.IGNORECASE)
#: A sentence that is nothing but a list item's number (``3.``, ``3)``).
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
_MARKUP = re.compile(r"^\s*(?:[-+*\u2022]|\d{1,3}[.)]|#{1,6}|>)\s+")
#: Markdown emphasis; an underscore between a name and a brace is a LaTeX subscript
#: (``x_{1}``) and stays.
_EMPHASIS = re.compile(r"[*`]+|_+(?!\{)|(?<![A-Za-z])_+")
#: LaTeX math delimiters: ``$``, ``$$``, ``\(`` ... ``\)``, ``\[`` ... ``\]``.
_MATH = re.compile(r"\$+|\\[()\[\]]")
#: What opens a LaTeX group rather than a JSON object: a subscript, a superscript, a
#: command or a group just closed (``x_{1}``, ``\neg{x}``, ``\neg{}{x}``).
_LATEX_GROUP = re.compile(r"(?:[_^}]|\\[A-Za-z]+ *)\Z")


class _Vocabulary:
    """The literal phrases and value words of one prompt, normalized for matching."""

    def __init__(self, template: str, entities: Mapping[str, int]) -> None:
        from twosat_formal.verbalize import TEMPLATES

        self.scheme = TEMPLATES.get(template)
        self.entities = dict(entities)
        self.phrases: dict[str, int] = {}
        for entity, var in entities.items():
            for positive in (True, False):
                phrase = _norm(self.scheme.literal(entity, positive))
                self.phrases[phrase] = var if positive else -var
        self.by_entity = {_norm(e): v for e, v in entities.items()}
        self.values = {
            _norm(self.scheme.true_value): True,
            _norm(self.scheme.false_value): False,
        }

    def literal(self, text: str) -> int | None:
        return self.phrases.get(_norm(text))

    def assignment(self, text: str) -> int | None:
        """``E = V``, ``E: V``, ``E is V``, ``set E to V``."""
        for pattern in (
            r"^set (?P<e>.+?) to (?P<v>.+)$",
            r"^(?P<e>.+?)\s*(?:=|:)\s*(?P<v>.+)$",
            r"^(?P<e>.+?) is (?P<v>.+)$",
        ):
            match = re.match(pattern, text)
            if match is None:
                continue
            var = self.by_entity.get(match.group("e").strip(" \"'"))
            value = self.values.get(match.group("v").strip(" \"'"))
            if var is not None and value is not None:
                return var if value else -var
        return None


def _norm(text: str) -> str:
    return casefolded(text.replace("\u2019", "'"))


#: What one sentence claims: its form, the clauses it claims, and for a ``formula``
#: claim its expression over the entities (case-folded), else ``None``.
_Parsed = tuple[str, list[tuple[int, ...]], "Expr | None"]


def _scheme_claim(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """A sentence of the scheme's own pattern over the prompt's entities: a clause, or an
    assignment when it has one literal."""
    from twosat_formal.errors import SentenceError
    from twosat_formal.verbalize.schemes import normalize_apostrophes

    with_period = text if text.endswith(".") else text + "."
    try:
        literals = vocab.scheme.parse_sentence(normalize_apostrophes(with_period))
    except SentenceError:
        return None
    if literals and all(e in vocab.entities for e, _ in literals):
        clause = tuple(vocab.entities[e] if p else -vocab.entities[e] for e, p in literals)
        return ("assignment" if len(clause) == 1 else "clause"), [clause], None
    return None


def _supposition(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """``Suppose``, ``assume`` or ``let's say`` (``that``) and a literal: claims nothing."""
    if re.match(r"^(?:suppose|assume|let's say)\b", body):
        rest = re.sub(r"^(?:suppose|assume|let's say)( that)?\s*", "", body)
        if vocab.literal(rest) is not None:
            return "supposition", [], None
    return None


def _conditional(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """``If A(,) then B``, ``A implies/means (that) B`` or ``If A, B``: the clause ``¬A ∨ B``."""
    match = re.match(r"^if (?P<a>.+?),? then (?P<b>.+)$", body) or re.match(
        r"^(?P<a>.+?) (?:implies|means) (?:that )?(?P<b>.+)$", body
    )
    if match is None:
        match = re.match(r"^if (?P<a>.+?), (?P<b>.+)$", body)
    if match is not None:
        a, b = vocab.literal(match.group("a")), vocab.literal(match.group("b"))
        if a is not None and b is not None:
            return "conditional", [(-a, b)], None
    return None


def _arrow_chain(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """Literals joined by arrows: the implication of each step."""
    parts = _ARROWS.split(body)
    if len(parts) > 1:
        lits = [vocab.literal(p) for p in parts]
        if all(lit is not None for lit in lits):
            known = [int(lit) for lit in lits if lit is not None]
            return "chain", [(-x, y) for x, y in pairwise(known)], None
    return None


def _assignment(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """One entity's value."""
    lit = vocab.assignment(body)
    return None if lit is None else ("assignment", [(lit,)], None)


def _formula_claim(text: str, body: str, vocab: _Vocabulary) -> _Parsed | None:
    """A propositional formula over the entities."""
    expr = read_formula_claim(body, vocab.by_entity, vocab.values)
    return None if expr is None else ("formula", [], expr)


#: The readers of a sentence (its text, its normalised body without the final mark), in
#: the order they are tried: the first that reads it gives the claim.
_READERS: tuple[Callable[[str, str, _Vocabulary], _Parsed | None], ...] = (
    _scheme_claim,
    _supposition,
    _conditional,
    _arrow_chain,
    _assignment,
    _formula_claim,
)


def _parse(sentence: str, vocab: _Vocabulary) -> _Parsed | None:
    """``(form, clauses, expression)`` of one sentence, or ``None`` when it is not a claim.

    The sentence without its markup is read, then, after a colon, what follows it; each
    without its lead words (``so``, ``thus``, ...) by the :data:`_READERS` in order.
    """
    if len(sentence) > MAX_SENTENCE:
        return None
    raw = " ".join(_EMPHASIS.sub("", _MATH.sub("", _MARKUP.sub("", sentence))).split())
    if not raw:
        return None
    candidates = [raw]
    if ": " in raw:
        candidates.append(raw.split(": ", 1)[1])
    for text in candidates:
        text = _LEAD_WORDS.sub("", text).strip()
        if not text:
            continue
        body = _norm(text.rstrip(".!?"))
        for reader in _READERS:
            parsed = reader(text, body, vocab)
            if parsed is not None:
                return parsed
    return None


def _without_json(text: str) -> str:
    """``text`` with every JSON object (balanced braces) blanked out, offsets kept; a brace
    that opens a LaTeX group (:data:`_LATEX_GROUP`) opens no object."""
    blanked = list(text)
    depth, start = 0, -1
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                if _LATEX_GROUP.search(text, max(0, i - 32), i):
                    continue
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                blanked[start : i + 1] = " " * (i + 1 - start)
    return "".join(blanked)


def _line_sentences(line: str, offset: int) -> list[tuple[str, int]]:
    """The sentences of one line that starts at ``offset``, each with its start offset."""
    out: list[tuple[str, int]] = []
    position = 0
    pieces = SENTENCE_END.split(line)
    if len(pieces) > 1 and _LIST_NUMBER.fullmatch(pieces[0].strip()):
        # a numbered list item (``3. Either A is true ...``, as a prompt whose
        # rules are numbered shows them): the number opens its sentence
        pieces[:2] = [line[: line.find(pieces[1], len(pieces[0]))] + pieces[1]]
    for piece in pieces:
        where = line.find(piece, position)
        position = where + len(piece)
        if piece.strip():
            out.append((piece.strip(), offset + where + (len(piece) - len(piece.lstrip()))))
    return out


def _reasoning(text: str) -> list[tuple[str, int]]:
    """The sentences of the reasoning, each with its start offset in ``text``: JSON
    objects, fenced code and the answer line are left out."""
    out: list[tuple[str, int]] = []
    offset = 0
    fenced = False
    for line in _without_json(text).split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif stripped and not fenced and not ANSWER_LINE.search(line):
            out.extend(_line_sentences(line, offset))
        offset += len(line) + 1
    return out


#: A claim before judging: its sentence, form, clause (a ``formula`` claim: the clauses
#: of the claim and of its negation, and its expression), and span.
_Found = tuple[str, str, tuple[int, ...], tuple[int, int], "_Formula | None"]


class _Formula(NamedTuple):
    """A ``formula`` claim before judging."""

    expr: Expr
    claim: tuple[tuple[int, ...], ...]
    negation: tuple[tuple[int, ...], ...]


def read_claims(
    text: str, template: str, entities: Mapping[str, int]
) -> tuple[list[_Found], int, int, dict[str, int]]:
    """The claims of ``text`` before judging: ``(text, form, clause, span, formula)``
    each, the number of sentences, the number read (claims and suppositions), and how
    many sentences were read in each form."""
    vocab = _Vocabulary(template, entities)
    sentences = _reasoning(text)
    found: list[_Found] = []
    read = 0
    forms: dict[str, int] = {}
    for sentence, start in sentences:
        parsed = _parse(sentence, vocab)
        span = (start, start + len(sentence))
        if parsed is not None and parsed[2] is not None:
            clauses = claim_clauses(parsed[2], vocab.by_entity)
            if clauses is None:  # past sympy's bound: counted, not read
                continue
            single = clauses[0][0] if len(clauses[0]) == 1 else ()
            found.append((sentence, "formula", single, span, _Formula(parsed[2], *clauses)))
        elif parsed is not None:
            for clause in parsed[1]:
                found.append((sentence, parsed[0], clause, span, None))
        else:
            continue
        read += 1
        forms[parsed[0]] = forms.get(parsed[0], 0) + 1
    return found, len(sentences), read, forms


class _Judge:
    """Decides the kind of a claim against one formula (see the module docstring)."""

    def __init__(self, formula: Formula) -> None:
        from twosat_formal.solve import solve

        self.formula = formula
        self.present = {frozenset(c) for c in formula.clauses}
        self.sat = solve(formula).is_sat
        self.basis = "solver" if self.sat else "implications"
        self.graph = None if self.sat else Implications(formula)
        self._kinds: dict[frozenset[int], str] = {}

    def _unsat_with(self, units: Sequence[Sequence[int]]) -> bool:
        from twosat_formal.solve import solve

        clauses = [*(tuple(c) for c in self.formula.clauses), *(tuple(u) for u in units)]
        return not solve(self.formula.with_clauses(clauses)).is_sat

    def kind(self, clause: tuple[int, ...]) -> str:
        key = frozenset(clause)
        if key not in self._kinds:
            self._kinds[key] = self._kind(clause)
        return self._kinds[key]

    def follows(self, clause: tuple[int, ...]) -> bool:
        """Whether the formula gives ``clause`` (the empty clause: when it is UNSAT)."""
        if not clause:
            return not self.sat
        return self.kind(clause) in ("clause", "entailed")

    def formula_kind(self, claim: _Formula) -> str:
        """The kind of a ``formula`` claim: ``clause`` when it is one clause of the
        formula; ``entailed`` when every clause of its CNF follows; ``contradicted``
        when every clause of its negation's CNF follows; else ``unsupported``."""
        if len(claim.claim) == 1 and frozenset(claim.claim[0]) in self.present:
            return "clause"
        if all(self.follows(c) for c in claim.claim):
            return "entailed"
        if all(self.follows(c) for c in claim.negation):
            return "contradicted"
        return "unsupported"

    def _kind(self, clause: tuple[int, ...]) -> str:
        if frozenset(clause) in self.present:
            return "clause"
        if any(-lit in clause for lit in clause):
            return "entailed"  # a tautology follows from anything
        if self.graph is None:
            return self._solved_kind(clause)
        first, last = clause[0], clause[-1]
        if self.graph.walk(-first, last) is not None:
            return "entailed"
        if all(self.graph.walk(lit, -lit) is not None for lit in clause):
            return "contradicted"
        return "unsupported"

    def _solved_kind(self, clause: tuple[int, ...]) -> str:
        """The kind of ``clause`` by solving (no implication graph to walk)."""
        if self._unsat_with([(-lit,) for lit in clause]):
            return "entailed"
        if self._unsat_with([clause]):
            return "contradicted"
        return "unsupported"


def check_trace(
    text: str,
    template: str,
    entities: Mapping[str, Any],
    formula: Formula,
    *,
    judge: _Judge | None = None,
) -> Trace:
    """Read the claims of an answer and judge each against ``formula``.

    ``entities`` maps each entity of the prompt to its variable (a name of ``formula``
    or a 1-based int), read as scoring reads it
    (:func:`~twosat_formal.evaluate.scoring.entity_variables`: a map that does not fit
    ``formula`` is a :class:`~twosat_formal.errors.ConfigError`). ``judge`` reuses the
    verdicts already reached on ``formula``.
    """
    variables = entity_variables(entities, formula)
    found, sentences, read, forms = read_claims(text, template, variables)
    judge = judge if judge is not None and judge.formula is formula else _Judge(formula)
    named = {_norm(entity): formula.name(var) for entity, var in variables.items()}
    claims = tuple(
        Claim(sentence, form, judge.kind(clause), clause, span)
        if claimed is None
        else Claim(
            sentence,
            form,
            judge.formula_kind(claimed),
            clause,
            span,
            renamed(claimed.expr, named.__getitem__).render(),
        )
        for sentence, form, clause, span, claimed in found
    )
    return Trace(claims, sentences, read, judge.basis, forms)


#: The columns of a stored result that a trace row is made of.
_TRACE_COLUMNS = (
    "prompt_hash",
    "model",
    "sample",
    "label",
    "failure",
    "decision_correct",
    "decision",
    "cycle_reason",
    "strategy",
    "response",
    "reasoning",
    "question_type",
)


@dataclass
class _Sources:
    prompts: dict[str, Any] = field(default_factory=dict)
    formulas: dict[str, Formula] = field(default_factory=dict)


def _read_sources(store: RunStore, texts: bool) -> _Sources:
    """The prompts of ``store`` by hash (first stored wins) and its readable formulas by
    instance id (an unreadable instance is left out)."""
    from twosat_formal.errors import TwoSatFormalError
    from twosat_formal.io.instance import Instance

    sources = _Sources()
    for key, stored in store.prompts_by_hash(text=texts):
        sources.prompts.setdefault(key, stored)
    for record in store.instances():
        try:
            sources.formulas[str(record["id"])] = Instance.from_record(record).formula
        except (TwoSatFormalError, KeyError, ValueError):  # unreadable: left out
            continue
    return sources


def _trace_json(trace: Trace, formula: Formula) -> dict[str, Any]:
    """The claims of a trace and what they cover, as a trace row holds them."""
    return {
        "claims": [c.to_json(formula) for c in trace.claims],
        "counts": trace.counts(),
        "sentences": trace.sentences,
        "read": trace.read,
        "coverage": trace.coverage,
        "coverage_by_form": trace.coverage_by_form(),
    }


def _trace_row(
    row: Mapping[str, Any], prompt: Any, formula: Formula, judge: _Judge, texts: bool
) -> dict[str, Any]:
    """The trace row of one stored answer ``row`` to template prompt ``prompt``."""
    from twosat_formal.evaluate.diagnostics.quality import code_quality
    from twosat_formal.verbalize.strategies import parse_strategy

    template = prompt.template
    trace = check_trace(row["response"], template, prompt.entities, formula, judge=judge)
    thought = row.get("reasoning")
    reasoning = None
    if thought:  # the reasoning the server sent beside the answer, read the same way
        read = check_trace(thought, template, prompt.entities, formula, judge=judge)
        reasoning = _trace_json(read, formula)
    strategy = row.get("strategy") or "direct"
    quality = code_quality(trace, row["response"], row)
    shown = (
        {"prompt_text": parse_strategy(strategy).apply(prompt.text), "response": row["response"]}
        if texts
        else {}
    )
    return {
        "prompt_id": prompt.prompt_id,
        "instance_id": prompt.instance_id,
        "template": prompt.template,
        "model": row["model"],
        "sample": row["sample"],
        "label": row["label"],
        "failure": row["failure"],
        "decision_correct": row["decision_correct"],
        "question_type": row.get("question_type") or "decision",
        "basis": trace.basis,
        **_trace_json(trace, formula),
        "reasoning": reasoning,
        "strategy": strategy,
        "quality": quality,
        **shown,
    }


def trace_rows(
    store_path: str | Path,
    *,
    progress: Callable[[int, int], None] | None = None,
    texts: bool = False,
) -> Iterator[dict[str, Any]]:
    """One trace row per stored answer to a template prompt (see ``docs/diagnostics.md``).

    Answers to story prompts, answers whose prompt or instance is not in the store, and
    failed requests (no answer) are left out. ``progress`` is called with
    ``(result number, results in all)`` as each stored result is taken up. Each row
    holds the exact coding of the answer's reasoning quality (``quality``:
    :func:`~twosat_formal.evaluate.diagnostics.quality.code_quality`); with ``texts`` it also
    holds the prompt's text (``prompt_text``) and the answer (``response``).
    """
    from twosat_formal.evaluate.store import RunStore

    with RunStore(store_path, readonly=True) as store:
        sources = _read_sources(store, texts)
        from twosat_formal.verbalize import TEMPLATES

        # one answer at a time: the store reads these columns alone, row by row
        total = store.count()
        judges: dict[str, _Judge] = {}
        for done, row in enumerate(store.results(_TRACE_COLUMNS), 1):
            if progress is not None:
                progress(done, total)
            prompt = sources.prompts.get(row["prompt_hash"])
            template = prompt.template if prompt is not None else None
            if prompt is None or template is None or template not in TEMPLATES:
                continue
            if row.get("response") is None:
                continue
            formula = sources.formulas.get(str(prompt.instance_id))
            if formula is None:
                continue
            judge = judges.get(str(prompt.instance_id))
            if judge is None:
                judge = judges[str(prompt.instance_id)] = _Judge(formula)
            yield _trace_row(row, prompt, formula, judge, texts)


def trace_store(
    store_path: str | Path,
    out: str | Path | IO[str],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write :func:`trace_rows` of a run store as JSON Lines to ``out``; return how many."""
    from twosat_formal.io.jsonl import json_line, write_lines

    rows = trace_rows(store_path, progress=progress)
    return write_lines((json_line(row) for row in rows), out)
