"""The gate before evaluation: every prompt is re-derived from its instance before it is sent.

A model must be asked only the question the benchmark certified. :func:`verify_items`
renders each template prompt again from its formula, template and seed (the whole
text, the entity map, the value words, the id) and re-makes each story around its
attested text (:func:`twosat_formal.certify.rederive.rederive_story`), and compares. The first
prompt that differs stops everything with :class:`~twosat_formal.errors.UnverifiedPromptError`
(exit code 2), before a store is created or a request is sent.

The formula is the instance's (when the command has the dataset), else the one read
back from the prompt: then the gate still refuses any text that is not exactly what
the verbalizer writes (changed instructions, swapped answers, other value words).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.run.items import EvalItem
>>> from twosat_formal.verbalize import verbalize
>>> f = Formula.from_named([["a", "~b"]])
>>> record = verbalize(f, "logic", seed=1).record("i1", None)
>>> verify_items([EvalItem(record, f, "SAT")]).verified
1
>>> bad = record.model_copy(update={"text": record.text.replace("Yes", "No")})
>>> verify_items([EvalItem(bad, f, "SAT")])
Traceback (most recent call last):
...
twosat_formal.errors.UnverifiedPromptError: prompt ...: its text is not what logic renders...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.fieldclass import ATTESTED, compare_record
from twosat_formal.errors import TwoSatFormalError, UnverifiedPromptError
from twosat_formal.evaluate.run.items import EvalItem, StoryPrompt

__all__ = ["METHOD", "Verification", "verify_item", "verify_items"]

#: How each prompt is verified (recorded with the run).
METHOD = "re-derived from instance, template and seed (stories: around their attested text)"


@dataclass(frozen=True)
class Verification:
    """What the gate did: how many prompts it verified, or that it was turned off.

    ``method`` says how; ``records`` counts every record checked (prompts, their
    instances and the records those name) and ``story_attested`` the story fields
    taken on trust, when the gate ran ``certify``'s checks.
    """

    verified: int
    skipped: bool = False
    method: str = METHOD
    records: int | None = None
    story_attested: int = 0

    def to_json(self) -> dict[str, Any]:
        """The record kept in the run store and the manifest.

        >>> Verification(0, skipped=True).to_json()["verify"]
        'off (--no-verify)'
        """
        out: dict[str, Any] = {
            "verify": "off (--no-verify)" if self.skipped else "on",
            "prompts_verified": self.verified,
            "method": None if self.skipped else self.method,
        }
        if self.records is not None:
            out["records_certified"] = self.records
        if not self.skipped:
            out["story_fields_attested"] = self.story_attested
        return out


def _refuse(prompt: Any, why: str) -> UnverifiedPromptError:
    return UnverifiedPromptError(f"prompt {prompt.id}: {why}; nothing was sent")


def verify_item(item: EvalItem) -> int:
    """Re-derive one item's prompt from its formula; raise if it differs.

    Returns the number of its fields taken on trust: a story's attested fields (what
    the story model wrote), 0 for a template prompt.

    Raises
    ------
    UnverifiedPromptError
        Naming the prompt and the first differing fields.
    """
    prompt = item.prompt
    if isinstance(prompt, StoryPrompt):
        return _verify_story(prompt, item)
    from twosat_formal.verbalize import example_formula, verbalize
    from twosat_formal.verbalize.prompts import prompt_id

    seed = getattr(prompt, "seed", None)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise _refuse(prompt, "it has no seed, so its text cannot be re-derived")
    ask_cycle = bool(getattr(prompt, "ask_cycle", False))
    ask = str(getattr(prompt, "ask", "decision"))
    transforms = item.instance.get("transforms") if item.instance is not None else None
    try:
        example = example_formula(
            item.formula, transforms if isinstance(transforms, list | tuple) else None
        )
        again = verbalize(
            item.formula,
            prompt.template,
            seed=seed,
            ask_cycle=ask_cycle,
            example_from=example,
            ask=ask,
        )
    except TwoSatFormalError as exc:
        raise _refuse(prompt, f"it cannot be rendered again from its instance ({exc})") from None
    stored = {
        "id": prompt.id,
        "text": prompt.text,
        "entities": dict(prompt.entities),
        "true_value": prompt.true_value,
        "false_value": prompt.false_value,
        "reference": getattr(prompt, "reference", None),
    }
    expected = {
        "id": prompt_id(prompt.instance_id, prompt.template, seed, ask_cycle=ask_cycle, ask=ask),
        "text": again.text,
        "entities": again.entity_map(),
        "true_value": again.true_value,
        "false_value": again.false_value,
        "reference": None if again.reference is None else dict(again.reference),
    }
    result = compare_record("prompt", stored, expected, limit=2)
    if result.differences:
        raise _refuse(
            prompt,
            f"its text is not what {prompt.template} renders from instance "
            f"{prompt.instance_id} with seed {seed}: " + "; ".join(result.differences),
        )
    return 0


def _verify_story(prompt: StoryPrompt, item: EvalItem) -> int:
    from twosat_formal.certify.rederive import rederive_story

    if prompt.story is None:
        raise _refuse(prompt, "it carries no story record")
    record = prompt.story.to_record()
    try:
        expected = rederive_story(record, item.formula)
    except TwoSatFormalError as exc:
        raise _refuse(prompt, f"the story does not re-derive from its instance ({exc})") from None
    result = compare_record("story", record, expected, limit=2)
    if result.differences:
        raise _refuse(prompt, "the story does not re-derive: " + "; ".join(result.differences))
    return result.counts[ATTESTED]


def verify_items(items: Sequence[EvalItem]) -> Verification:
    """Verify every item (see the module docstring); the count, or the first refusal.

    Raises
    ------
    UnverifiedPromptError
        For the first prompt whose text is not its re-derivation.
    """
    attested = sum(verify_item(item) for item in items)
    return Verification(len(items), story_attested=attested)
