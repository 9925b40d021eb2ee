"""Write (or check) the golden outputs: same seeds, same dataset, prompts and report bytes.

Small runs of the ``table1`` (plain grid), ``order`` (a proven perturbation) and
``edits`` (symbolic edits) experiments on the reference reasoners write their
experiment folders; this script keeps the files whose bytes must not change when the
code is restructured (``dataset.jsonl``, ``design.jsonl``, ``prompts.jsonl``,
``results.jsonl``, ``report.json``), with the measured fields masked (durations and
clock times: see :data:`MASKED`).

Usage (from the repository root)::

    python tests/golden/regenerate.py           # rewrite tests/golden/<experiment>/
    python tests/golden/regenerate.py --check   # compare; exit 1 and name what differs

``tests/study/test_golden.py`` runs the same comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent

#: The experiments and how small they are run: (spec, formulas, templates, max clauses).
RUNS: tuple[tuple[str, int, tuple[str, ...], int], ...] = (
    ("table1", 1, ("logic", "room"), 15),
    ("order", 1, ("team",), 20),
    ("edits", 1, ("letter",), 10),
)
#: The reference reasoners asked (all deterministic for a given seed).
MODELS = ("ref/oracle", "ref/sat-biased", "ref/coin", "ref/bounded")
#: The files compared, in each experiment folder.
FILES = ("dataset.jsonl", "design.jsonl", "prompts.jsonl", "results.jsonl", "report.json")
#: Keys whose values are measured (durations, clock times, latencies), never compared.
MASKED = frozenset(
    {
        "seconds",
        "time_s",
        "elapsed_s",
        "latency_s",
        "z3_seconds",
        "created",
        "created_at",
        "started",
        "finished",
        "generated",
    }
)


def mask(value: Any) -> Any:
    """``value`` with every :data:`MASKED` key's value replaced by ``"<measured>"``.

    >>> mask({"a": 1, "proof": {"seconds": 0.25, "ok": True}, "rows": [{"time_s": 2}]})
    {'a': 1, 'proof': {'seconds': '<measured>', 'ok': True}, 'rows': [{'time_s': '<measured>'}]}
    """
    if isinstance(value, dict):
        return {k: "<measured>" if k in MASKED else mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def masked_text(path: Path) -> str:
    """The file's text with measured fields masked (JSON Lines line by line, or one JSON)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        lines = [
            json.dumps(mask(json.loads(line)), ensure_ascii=False) for line in text.splitlines()
        ]
        return "\n".join(lines) + "\n"
    return json.dumps(mask(json.loads(text)), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def produce(out: Path) -> dict[str, str]:
    """Run every experiment of :data:`RUNS` under ``out``; return ``{path: masked text}``."""
    from twosat_formal.study.experiments.runner import run_experiment
    from twosat_formal.study.experiments.spec import load_spec

    texts: dict[str, str] = {}
    for name, formulas, templates, max_clauses in RUNS:
        spec = load_spec(name).with_formulas(formulas).with_templates(templates)
        spec = spec.with_max_clauses(max_clauses)
        folder = out / name
        run_experiment(spec, MODELS, out_dir=folder, concurrency=4)
        for file in FILES:
            texts[f"{name}/{file}"] = masked_text(folder / file)
    return texts


def compare(texts: dict[str, str]) -> list[str]:
    """The golden files that differ from ``texts`` (or are missing)."""
    differ = []
    for relative, text in sorted(texts.items()):
        golden = GOLDEN / relative
        if not golden.is_file() or golden.read_text(encoding="utf-8") != text:
            differ.append(relative)
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        texts = produce(Path(tmp))
    if args.check:
        differ = compare(texts)
        for relative in differ:
            print(f"differs: tests/golden/{relative}", file=sys.stderr)
        return 1 if differ else 0
    for relative, text in texts.items():
        target = GOLDEN / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote tests/golden/{relative}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(GOLDEN.parent.parent))
    raise SystemExit(main())
