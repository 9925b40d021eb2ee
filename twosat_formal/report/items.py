"""The answers of a run for the HTML report's item browser.

:func:`load_items` reads every stored answer of a run store (or of the
``results.jsonl`` rows of an experiment folder, with the ``prompts.jsonl`` beside
them) with its prompt's text, and :func:`browser_data` joins them with the report's
rows (family), and the trace checker's claims into one JSON-ready object: the prompts
once each, by prompt id, and one item per answer (model, family, template, failure
kind, label, decision, the answer's text, the judgement and the claims).

Examples
--------
>>> data = browser_data(
...     [{"prompt_id": "p", "instance_id": "i", "model": "m", "sample": 0,
...       "template": "logic", "label": "SAT", "decision": "SAT", "failure": None,
...       "decision_correct": True, "witness_valid": True, "response": "SAT"}],
...     {"p": "Is it satisfiable?"}, families={"i": "backbone"})
>>> data["items"][0]["family"], data["items"][0]["failure"], data["prompts"]["p"]
('backbone', 'correct', 'Is it satisfiable?')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.report.files import PROMPTS_FILE, RESULTS_FILE, STORE_FILE

__all__ = ["ITEM_COLUMNS", "browser_data", "load_items"]

#: The columns of a stored answer the browser shows.
ITEM_COLUMNS = (
    "instance_id",
    "prompt_id",
    "template",
    "model",
    "sample",
    "label",
    "decision",
    "decision_correct",
    "witness_valid",
    "witness_reason",
    "failure",
    "finish_reason",
    "response",
)


def load_items(source: str | Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every answer of ``source`` (columns :data:`ITEM_COLUMNS`) and each prompt's text
    by prompt id.

    ``source`` is a run store, an experiment folder (its ``results.sqlite``), or a
    ``results.jsonl`` (with ``prompts.jsonl`` beside it when there is one). A source
    with neither gives no items.
    """
    from twosat_formal.report.load import _is_sqlite

    path = Path(source)
    store = path / STORE_FILE if path.is_dir() else path
    if store.is_file() and _is_sqlite(store):
        return _store_items(store)
    results = path / RESULTS_FILE if path.is_dir() else path
    if not results.is_file():
        return [], {}
    return _jsonl_items(results)


def _store_items(store: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The answers and prompt texts of a run store."""
    from twosat_formal.evaluate.store import RunStore

    with RunStore(store, readonly=True) as run:
        rows = list(run.export_rows(columns=ITEM_COLUMNS))
        prompts = {str(p.prompt_id): p.text for _, p in run.prompts_by_hash()}
    return rows, prompts


def _jsonl_items(results: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The answers of a ``results.jsonl`` and the texts of the ``prompts.jsonl`` beside it."""
    from twosat_formal.report.load import read_jsonl

    rows = [{c: r.get(c) for c in ITEM_COLUMNS} for r in read_jsonl(results)]
    prompts_path = results.parent / PROMPTS_FILE
    records = read_jsonl(prompts_path) if prompts_path.is_file() else []
    prompts = {}
    for record in records:
        key, text = record.get("id"), record.get("text")
        if key is not None and isinstance(text, str):
            prompts[str(key)] = text
    return rows, prompts


def _judgement(row: Mapping[str, Any]) -> str:
    """One line saying how the answer was judged.

    >>> _judgement({"label": "SAT", "decision": "UNSAT", "decision_correct": False,
    ...             "failure": "wrong-decision"})
    'wrong-decision: decided UNSAT on a SAT instance'
    >>> _judgement({"label": "SAT", "decision": "SAT", "decision_correct": True,
    ...             "witness_valid": False, "witness_reason": "clause 3 false",
    ...             "failure": "invalid-witness"})
    'invalid-witness: decided SAT on a SAT instance; witness invalid (clause 3 false)'
    """
    failure = row.get("failure") or "correct"
    decision = row.get("decision") or "nothing"
    label = str(row.get("label"))
    article = "an" if label.startswith("U") else "a"
    text = f"{failure}: decided {decision} on {article} {label} instance"
    if row.get("witness_valid") is not None:
        text += "; witness " + ("valid" if row.get("witness_valid") else "invalid")
        if row.get("witness_reason"):
            text += f" ({row['witness_reason']})"
    if row.get("finish_reason") == "length":
        text += "; cut by the token budget"
    return text


def browser_data(
    rows: Iterable[Mapping[str, Any]],
    prompts: Mapping[str, str],
    *,
    families: Mapping[str, Any] | None = None,
    traces: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The item browser's data: ``{"prompts": {id: text}, "items": [...]}``.

    ``families`` maps an instance id to its family; ``traces`` are trace-checker rows
    (:func:`twosat_formal.evaluate.diagnostics.trace.trace_rows`), whose claims are joined
    to the answer with the same prompt id, model and sample. A failure kind of ``None``
    (a correct answer) reads ``correct``. A claim is ``[kind, start, end]``: its kind
    (supported, contradicted, unsupported) and where its sentence lies in the answer
    (``answer[start:end]``), so the text is stored once. Only the prompts some item asks
    are kept.
    """
    claims = _claims(traces)
    items = []
    asked: dict[str, str] = {}
    for row in rows:
        prompt_id = str(row.get("prompt_id"))
        if prompt_id in prompts:
            asked[prompt_id] = prompts[prompt_id]
        key = (prompt_id, str(row.get("model")), row.get("sample"))
        items.append(_item(row, families or {}) | {"claims": claims.get(key, [])})
    return {"prompts": asked, "items": items}


def _claims(traces: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str, Any], list[list[Any]]]:
    """Each answer's claims ``[kind, start, end]``, by prompt id, model and sample."""
    return {
        (str(t.get("prompt_id")), str(t.get("model")), t.get("sample")): [
            [str(c.get("kind")), *(int(v) for v in c.get("span") or (0, 0))]
            for c in t.get("claims") or ()
        ]
        for t in traces
    }


def _item(row: Mapping[str, Any], families: Mapping[str, Any]) -> dict[str, Any]:
    """One answer of the browser, but its claims."""
    return {
        "model": str(row.get("model")),
        "family": str(families.get(str(row.get("instance_id"))) or "unknown"),
        "template": str(row.get("template") or "unknown"),
        "failure": str(row.get("failure") or "correct"),
        "instance": str(row.get("instance_id")),
        "prompt": str(row.get("prompt_id")),
        "sample": row.get("sample"),
        "label": row.get("label"),
        "decision": row.get("decision"),
        "judgement": _judgement(row),
        "answer": row.get("response") if row.get("response") is not None else "",
    }
