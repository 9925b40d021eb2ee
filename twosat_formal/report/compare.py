"""``report A B C --out DIR``: several runs side by side, a leaderboard across stores.

:func:`compare_runs` reads each run (a run store, an experiment folder or its
``results.jsonl``, as ``report`` does), checks that they answered the same dataset (the
same prompts, hence the same instances and templates), and writes ``report.md``,
``report.html``, ``report.json`` and ``figures/leaderboard.svg`` into the output
folder: one row per run and model with its strict and lenient success, decision
accuracy and witness validity, each with its 95% CI across base formulas. Runs whose
datasets differ are refused with a message that says how they differ, unless
``allow_different=True`` (``--allow-different-datasets``), and then the report says so.

Examples
--------
>>> run_labels([Path("runs/a"), Path("more/a"), Path("runs/b.sqlite")])
['runs/a', 'more/a', 'b']
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twosat_formal._util.atomic import refuse_repeats
from twosat_formal.errors import ConfigError
from twosat_formal.report import charts
from twosat_formal.report.blocks import Block, Heading, Image, Paragraph, Table
from twosat_formal.report.content import compute_content
from twosat_formal.report.files import (
    FIGURES_DIR,
    REPORT_HTML,
    REPORT_JSON,
    REPORT_MD,
    STORE_FILE,
)
from twosat_formal.report.load import ReportData, load_report_data, manifest_models
from twosat_formal.report.metrics import CI_METHOD, Estimate
from twosat_formal.report.page import render_html
from twosat_formal.report.plots import title_svg
from twosat_formal.report.render import render_markdown
from twosat_formal.report.sections.format import format_ci, plain_cells, ranked
from twosat_formal.report.sections.summary import ModelSummary

__all__ = ["RunEntry", "compare_runs", "dataset_key", "run_labels"]

#: How many differing prompt ids the refusal names, at most.
_SHOWN = 3


@dataclass(frozen=True)
class RunEntry:
    """One run of a comparison: its label, source, dataset and per-model summaries."""

    label: str
    source: Path
    prompts: frozenset[str]
    summaries: list[ModelSummary]
    experiment: str | None

    @property
    def digest(self) -> str:
        """A short digest of the run's dataset (its sorted prompt ids)."""
        return dataset_key(self.prompts)


def dataset_key(prompts: frozenset[str] | set[str]) -> str:
    """A 12-hex-digit digest of a set of prompt ids (same set, same digest).

    >>> dataset_key({"b", "a"}) == dataset_key({"a", "b"}), len(dataset_key(set()))
    (True, 12)
    """
    return hashlib.sha256("\n".join(sorted(prompts)).encode()).hexdigest()[:12]


def run_labels(sources: Sequence[Path]) -> list[str]:
    """A short, distinct label per run: the folder or file name without ``.sqlite`` or
    ``.jsonl``, or the whole path where two names are alike."""
    names = []
    for source in sources:
        name = source.name
        for suffix in (".sqlite", ".jsonl"):
            name = name.removesuffix(suffix)
        names.append(name)
    return [
        name if names.count(name) == 1 else source.as_posix()
        for name, source in zip(names, sources, strict=True)
    ]


def _entry(label: str, data: ReportData, method: str, seed: int) -> RunEntry:
    content = compute_content(
        data.rows,
        manifest=data.manifest,
        method=method,
        seed=seed,
        model_order=manifest_models(data.manifest),
    )
    prompts = frozenset(str(r.get("prompt_id")) for r in data.rows)
    experiment = (data.manifest or {}).get("experiment")
    return RunEntry(label, data.source, prompts, content.summaries, experiment)


def _difference(first: RunEntry, other: RunEntry) -> str:
    extra = [key[:12] for key in sorted(other.prompts - first.prompts)]
    missing = [key[:12] for key in sorted(first.prompts - other.prompts)]
    parts = []
    if extra:
        parts.append(f"{len(extra)} prompts {first.label} lacks (e.g. {', '.join(extra[:_SHOWN])})")
    if missing:
        parts.append(f"lacks {len(missing)} of its prompts (e.g. {', '.join(missing[:_SHOWN])})")
    return f"run {other.label} ({other.source}) " + " and ".join(parts)


def _board(entries: Sequence[RunEntry]) -> list[tuple[RunEntry, ModelSummary]]:
    """Every (run, model) with answers, best strict success first (ties: input order)."""
    pairs = [(e, s) for e in entries for s in e.summaries if s.rows]
    return sorted(pairs, key=lambda pair: -(pair[1].success.mean or 0.0))


def _distinct_runs(sources: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The runs' paths: two or more, none given twice (a link or hard link to a store
    included; an experiment folder is the run of the store it holds, so a folder and
    its own store are one run: :func:`~twosat_formal._util.atomic.refuse_repeats`)."""
    paths = [Path(s) for s in sources]
    if len(paths) < 2:
        raise ConfigError("a comparison needs two runs or more", parameter="sources")
    refuse_repeats(paths, noun="run", parameter="sources", of=_store_of)
    return paths


def _store_of(path: Path) -> Path:
    """The file a run's path names: an experiment folder's store, else the path itself."""
    return path / STORE_FILE if path.is_dir() else path


def _draw_leaderboard(board: list[tuple[RunEntry, ModelSummary]], figure: Path) -> None:
    """Draw the leaderboard across runs: each run and model's strict and lenient success."""
    charts.interval_dots(
        {
            f"{e.label} · {s.model}": {"strict": s.success, "lenient": s.lenient_success}
            for e, s in board
        },
        figure,
    )
    title_svg(figure, _FIGURE_TITLE, _FIGURE_CAPTION)


def compare_runs(
    sources: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    allow_different: bool = False,
    method: str = CI_METHOD,
    seed: int = 0,
    title: str = "twosat-formal comparison",
) -> Path:
    """Write the comparison of ``sources`` (two or more runs) into ``out_dir``.

    Raises :class:`~twosat_formal.errors.ConfigError` for fewer than two runs, for a run
    given twice, and for runs whose datasets (sets of prompts answered) differ unless
    ``allow_different``.
    Returns the path of ``report.md``.
    """
    paths = _distinct_runs(sources)
    labels = run_labels(paths)
    entries = [
        _entry(label, load_report_data(path), method, seed)
        for label, path in zip(labels, paths, strict=True)
    ]
    differ = [_difference(entries[0], e) for e in entries[1:] if e.prompts != entries[0].prompts]
    if differ and not allow_different:
        raise ConfigError(
            f"the runs answered different datasets: {'; '.join(differ)}; give "
            "--allow-different-datasets to compare them anyway",
            parameter="sources",
        )
    folder = Path(out_dir)
    board = _board(entries)
    if board:
        _draw_leaderboard(board, folder / FIGURES_DIR / "leaderboard.svg")
    blocks = _layout(title, entries, board, differ, bool(board))
    folder.mkdir(parents=True, exist_ok=True)
    md = folder / REPORT_MD
    md.write_text(render_markdown(blocks), encoding="utf-8")
    (folder / REPORT_HTML).write_text(render_html(blocks, folder), encoding="utf-8")
    (folder / REPORT_JSON).write_text(
        json.dumps(_json(title, entries, board, differ), indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return md


_FIGURE_TITLE = "Leaderboard across runs: strict and lenient success per run and model"
_FIGURE_CAPTION = (
    "Success (decision on UNSAT, valid witness on SAT) under the strict and the lenient "
    "reading of the answer, best on top; error bars: 95% CI across base formulas."
)


def _layout(
    title: str,
    entries: Sequence[RunEntry],
    board: Sequence[tuple[RunEntry, ModelSummary]],
    differ: Sequence[str],
    figure: bool,
) -> list[Block]:
    runs = Table(
        ["run", "source", "experiment", "models", "answers", "prompts", "dataset"],
        [
            plain_cells(
                e.label,
                e.source.as_posix(),
                e.experiment or "—",
                str(len(e.summaries)),
                str(sum(s.rows for s in e.summaries)),
                str(len(e.prompts)),
                e.digest,
            )
            for e in entries
        ],
    )
    same = (
        "Every run answered the same prompts (the same dataset digest)."
        if not differ
        else "The runs answered different datasets, compared as asked: " + "; ".join(differ) + "."
    )
    blocks: list[Block] = [Heading(title, 1), Heading("Runs", 2), runs, Paragraph(same)]
    blocks.append(Heading("Leaderboard", 2))
    if not board:
        blocks.append(Paragraph("No answers in these runs."))
        return blocks
    blocks.append(
        Paragraph(
            "Per run and model, best strict success first (in bold when no other run and "
            "model shares it). Success: the decision on UNSAT, "
            "a valid witness on SAT; lenient: the same under the lenient reading of the "
            "answer. 95% CIs across base formulas; n is the number of formulas."
        )
    )
    blocks.append(_leaderboard_table(board))
    if figure:
        blocks.append(Image(Path(FIGURES_DIR) / "leaderboard.svg", _FIGURE_TITLE, _FIGURE_CAPTION))
    return blocks


def _leaderboard_table(board: Sequence[tuple[RunEntry, ModelSummary]]) -> Table:
    """The leaderboard's table: the best strict success in bold, unless it is shared."""
    best = ["b" if style == "b" else "" for style in ranked([s.success.mean for _, s in board])]
    return Table(
        [
            "rank",
            "run",
            "model",
            "answers",
            "success",
            "lenient success",
            "decision accuracy",
            "witness validity (SAT)",
        ],
        [
            [
                *plain_cells(str(rank), e.label, s.model, str(s.rows)),
                (format_ci(s.success), style),
                *plain_cells(
                    format_ci(s.lenient_success), format_ci(s.accuracy), format_ci(s.witness)
                ),
            ]
            for rank, ((e, s), style) in enumerate(zip(board, best, strict=True), start=1)
        ],
    )


def _json(
    title: str,
    entries: Sequence[RunEntry],
    board: Sequence[tuple[RunEntry, ModelSummary]],
    differ: Sequence[str],
) -> dict[str, Any]:
    def est(e: Estimate) -> dict[str, Any] | None:
        return None if e.mean is None else e.to_json()

    return {
        "title": title,
        "runs": [
            {
                "label": e.label,
                "source": e.source.as_posix(),
                "experiment": e.experiment,
                "prompts": len(e.prompts),
                "dataset": e.digest,
            }
            for e in entries
        ],
        "same_dataset": not differ,
        "differences": list(differ),
        "leaderboard": [
            {
                "rank": rank,
                "run": e.label,
                "model": s.model,
                "answers": s.rows,
                "success": est(s.success),
                "lenient_success": est(s.lenient_success),
                "accuracy": est(s.accuracy),
                "witness": est(s.witness),
            }
            for rank, (e, s) in enumerate(board, start=1)
        ],
        "figures": [f"{FIGURES_DIR}/leaderboard.svg"] if board else [],
    }
