"""The gate before a judgement: a record ``certify`` rejects is never evaluated.

``eval``, ``score``, ``batch prepare``, ``run-experiment`` and ``bench`` judge answers
to prompts against their instances. With the dataset at hand, :func:`gate_items` runs
``certify``'s checks (:func:`twosat_formal.certify.certify_files` with ``only``) on
every record a judgement depends on: each prompt (its text re-derived), its instance
(formula, label and certificate solved again, the record re-derived) and the records
that instance names (its root, a twin's source). The first failure stops the command
with :class:`~twosat_formal.errors.UnverifiedPromptError` (exit code 2), naming the
record and the check, before anything is written or sent. Without the dataset, each
prompt is re-derived from the formula read back from it
(:func:`twosat_formal.evaluate.run.verify_items`).

Examples
--------
>>> import pathlib, tempfile
>>> from twosat_formal.evaluate.run import load_items
>>> from twosat_formal.make.generators import generate
>>> from twosat_formal.io.instance import write_instances
>>> from twosat_formal.verbalize.prompts import write_prompts
>>> from twosat_formal.verbalize import prompt_record
>>> inst = generate("backbone", clauses=6, seed=3)
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = write_instances([inst], folder / "d.jsonl")
>>> record = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1)
>>> _ = write_prompts([record], folder / "p.jsonl")
>>> items = load_items(folder / "p.jsonl", dataset=folder / "d.jsonl")
>>> gate_items(items, prompts=folder / "p.jsonl", dataset=folder / "d.jsonl").records
2
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from twosat_formal.certify import CertifyReport, certify_files
from twosat_formal.errors import UnverifiedPromptError
from twosat_formal.evaluate.run import EvalItem, Verification, verify_items

__all__ = ["CERTIFY_METHOD", "certify_judged", "gate_items", "refusal"]

#: How the gate verifies when it has the dataset (recorded with the run).
CERTIFY_METHOD = "certify's checks on each prompt, its instance and the records that instance names"


def certify_judged(
    ids: Sequence[str], paths: Sequence[str | os.PathLike[str]], *, action: str
) -> CertifyReport:
    """Certify the records ``ids`` of ``paths`` and every record they name.

    Raises
    ------
    UnverifiedPromptError
        Naming the first failing record and check, and saying that ``action`` did not
        happen ("nothing was sent").
    """
    files: dict[str, str] = {}  # one file given twice (prompts beside their instances)
    for path in paths:
        files.setdefault(os.path.realpath(path), os.fspath(path))
    report = certify_files(list(files.values()), only=ids)
    if report.failures:
        raise refusal(report, action)
    return report


def refusal(report: CertifyReport, action: str) -> UnverifiedPromptError:
    """The error of a gate that ``report`` fails: its first failure, and how many more.

    >>> from twosat_formal.certify import CheckFailure
    >>> failure = CheckFailure("i1", 3, "certificate", "the model falsifies clause 2", "d.jsonl")
    >>> print(refusal(CertifyReport(("d.jsonl",), 1, 5, (failure,), 0.0, 0.0), "nothing was sent"))
    certify refuses d.jsonl:3 i1 [certificate] the model falsifies clause 2; nothing was sent
    """
    more = len(report.failures) - 1
    extra = f" (and {more} more failed checks; `certify` lists them)" if more else ""
    return UnverifiedPromptError(f"certify refuses {report.failures[0]}{extra}; {action}")


def gate_items(
    items: Sequence[EvalItem],
    *,
    prompts: str | os.PathLike[str],
    dataset: str | os.PathLike[str] | None,
    skip: bool = False,
    action: str = "nothing was sent",
) -> Verification:
    """Verify every record the judgements of ``items`` depend on (see the module).

    Parameters
    ----------
    items:
        The prompts to ask or score, as :func:`twosat_formal.evaluate.run.load_items` read
        them from ``prompts`` (and ``dataset``).
    skip:
        ``--no-verify``: check nothing, and say so in the record kept with the run.
    action:
        What a refusal says did not happen.

    Raises
    ------
    UnverifiedPromptError
        The first record that fails (exit code 2).
    """
    if skip:
        return Verification(0, skipped=True)
    if dataset is None:
        return verify_items(items)
    ids = list(dict.fromkeys(item.prompt.id for item in items))
    report = certify_judged(ids, [dataset, prompts], action=action)
    return Verification(
        len(items),
        method=CERTIFY_METHOD,
        records=report.records,
        story_attested=report.story_attested,
    )
