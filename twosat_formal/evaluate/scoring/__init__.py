"""Scoring: read a model's decision and witness out of its answer and judge them.

The evaluation prompt (paper, App. G.2) asks the model to end with exactly one of
``The answer is: Yes`` / ``The answer is: No`` and, when it says Yes, to give an
assignment as JSON that maps each entity to the scheme's true or false value. This
module turns an answer into a :class:`Judgement`:

* **Decision.** The *strict* extractor takes the last line that reads ``The answer
  is: Yes|No`` as a whole line, as the prompt shows it or with the markdown a model
  puts around it (case, spacing, emphasis, double quotes, a list marker or heading
  mark, the prompt's parenthetical ``(if a valid assignment exists)``, one final
  period), and only when it ends the response (blank or markup-only lines and a JSON
  object may follow; a retraction may not). Conflicting final answers (``Yes/No`` on
  the answer line, a parenthetical that contradicts it, or a closing run of answer
  lines that disagree) make the answer ``ambiguous-answer``. The *lenient* extractor
  also accepts an answer inside a sentence (``so the answer is no, because``), any
  quotes, ``Answer: Yes`` and ``\\boxed{Yes}``.
* **Witness.** The last valid JSON object that maps entities to values, code fences
  allowed, mapped back through the prompt's entity map. It is valid iff every clause
  has a literal made true by it; an unknown entity or value makes it invalid and the
  reason is recorded. The lenient extractor also forgives case, JSON booleans,
  trailing commas and single quotes, and unwraps ``{"assignment": {...}}``.
* **Values.** A template prompt (:class:`PromptLike`) has one true and one false word
  for every entity; a story prompt (:class:`StoryPromptLike`, App. G.2 story variant)
  gives each entity its own true and false description (``"the butler": "is the
  murderer" or "is innocent"``). :func:`value_words` reads either.
* **Failure kind**, exactly one of :data:`FAILURE_KINDS`, by precedence: ``error``
  (no answer: the request failed), ``truncated`` (finish reason ``length``),
  ``ambiguous-answer``, ``no-answer``, ``wrong-decision``, then on SAT instances
  ``missing-witness``, ``bad-json``, ``invalid-witness``, and otherwise ``correct``.

Following the paper, every kind but ``correct`` counts as incorrect. Model output is
only ever read as text and through :func:`json.loads`; it is never executed.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.core.model import Response
>>> formula = Formula.from_named([["~x1", "x2"], ["x1", "~x3"]])
>>> prompt = PromptView(entities={"A": "x1", "B": "x2", "C": "x3"},
...                     true_value="true", false_value="false")
>>> text = 'Try A true.\\n```json\\n{"A": "true", "B": "true", "C": "false"}\\n```\\n'
>>> judgement = score(Response(text + "**The answer is: Yes**"), prompt, formula, "SAT")
>>> judgement.failure, judgement.decision, judgement.witness_valid
('correct', 'SAT', True)
>>> score(Response("The answer is: No"), prompt, formula, "SAT").failure
'wrong-decision'
"""

from __future__ import annotations

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response
from twosat_formal.evaluate.scoring import answers
from twosat_formal.evaluate.scoring.answers import *  # noqa: F403 (the names of answers.__all__)
from twosat_formal.evaluate.scoring.answers import AnyPrompt, Judgement, check_label, readings

__all__ = ["score"]
__all__ += answers.__all__


def score(response: Response | str, prompt: AnyPrompt, formula: Formula, label: str) -> Judgement:
    """Judge one answer to ``prompt`` about ``formula`` whose true label is ``label``.

    Parameters
    ----------
    response:
        The model's answer (text and finish reason are read), or its text alone.
    prompt:
        The prompt record: its entity map (entity → variable of ``formula``) and the
        scheme's true and false words, or, for a story prompt, each entity's own
        true and false descriptions (``entity_values``).
    formula:
        The instance's formula, over the variables the entity map names.
    label:
        ``"SAT"`` or ``"UNSAT"``.

    Raises
    ------
    ConfigError
        An unknown label, an entity map that names variables ``formula`` lacks, or a
        story prompt with an entity that has no descriptions.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula.from_named([["x1"], ["~x1"]])
    >>> p = PromptView({"A": "x1"}, "true", "false")
    >>> score(Response("The answer is: No"), p, f, "UNSAT").failure
    'correct'
    >>> score(Response("The answer is: No", finish_reason="length"), p, f, "UNSAT").failure
    'truncated'
    >>> j = score("answer: no", p, f, "UNSAT")
    >>> j.failure, j.lenient_failure
    ('no-answer', 'correct')
    """
    if isinstance(response, str):
        response = Response(response)
    check_label(label)
    ask = getattr(prompt, "ask", "decision")
    if ask != "decision":  # a question type of its own: forced, entails, ...
        from twosat_formal.evaluate.scoring.questions import judge_question

        return judge_question(ask, response, prompt, formula, label)
    strict, loose = readings(response, prompt, formula, label)
    cycle: tuple[bool | None, str | None] = (None, None)
    if getattr(prompt, "ask_cycle", False):  # chains are scored on their own
        from twosat_formal.evaluate.diagnostics.chains import judge_chain

        cycle = judge_chain(response.text, prompt, formula, label)
    return Judgement(
        failure=strict.failure,
        decision=strict.decision,
        decision_correct=strict.decision_correct,
        witness_valid=strict.witness.valid,
        label=label,
        witness_reason=strict.witness.reason,
        witness=strict.witness.assignment,
        truncated=response.truncated,
        lenient_failure=loose.failure,
        lenient_decision=loose.decision,
        lenient_decision_correct=loose.decision_correct,
        lenient_witness_valid=loose.witness.valid,
        cycle_valid=cycle[0],
        cycle_reason=cycle[1],
    )
