"""`report A B C --out DIR`: a leaderboard across run stores, same dataset or refused.

The stores are real: instances generated and verbalized, answered by the reference
reasoners into SQLite stores. Each leaderboard number is recomputed here from the rows
`twosat-formal results` exports, by the rule stated in docs/reports.md (average per
formula, then across formulas), not by the report's code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import cli, run_ok
from twosat_formal.report.compare import dataset_key, run_labels


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Stores ``a`` (oracle, coin) and ``b`` (bounded) of one dataset, ``c`` of another."""
    folder = tmp_path_factory.mktemp("compare")
    out = {}
    for name, count in (("data", "3"), ("other", "2")):
        data = folder / f"{name}.jsonl"
        run_ok("generate", "backbone", "--clauses", "10", "--count", count, "-o", str(data))
        run_ok("verbalize", str(data), "-t", "logic", "-o", str(folder / f"{name}-prompts.jsonl"))
    for store, data, models in (
        ("a", "data", ("ref/oracle", "ref/coin")),
        ("b", "data", ("ref/bounded",)),
        ("c", "other", ("ref/oracle",)),
    ):
        path = folder / f"{store}.sqlite"
        chosen = [arg for model in models for arg in ("-m", model)]
        prompts, dataset = folder / f"{data}-prompts.jsonl", folder / f"{data}.jsonl"
        run_ok("eval", str(prompts), "--dataset", str(dataset), *chosen, "--store", str(path),
            "--no-progress")  # fmt: skip
        run_ok("results", str(path), "-o", str(folder / f"{store}-rows.jsonl"))
        out[store] = path
    return out


def success_by_hand(rows: list[dict[str, object]]) -> dict[str, float]:
    """Per model: success (decision on UNSAT, valid witness on SAT) per formula, then
    the mean across formulas."""
    per: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        ok = row["decision_correct"] is True and (
            row["label"] == "UNSAT" or row["witness_valid"] is True
        )
        per.setdefault(str(row["model"]), {}).setdefault(str(row["instance_id"]), []).append(
            1.0 if ok else 0.0
        )
    return {
        model: math.fsum(sum(v) / len(v) for v in formulas.values()) / len(formulas)
        for model, formulas in per.items()
    }


def test_a_leaderboard_across_stores_ranks_every_run_and_model(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "report", str(stores["a"]), str(stores["b"]),
                         "-o", str(tmp_path / "cmp"))  # fmt: skip
    assert (code, err) == (0, "")
    data = json.loads((tmp_path / "cmp" / "report.json").read_text())
    assert data["same_dataset"] and [r["label"] for r in data["runs"]] == ["a", "b"]
    assert len({r["dataset"] for r in data["runs"]}) == 1
    expected = {}
    for store in ("a", "b"):
        rows_path = stores[store].parent / f"{store}-rows.jsonl"
        rows = [json.loads(line) for line in rows_path.read_text().splitlines()]
        expected.update({(store, m): v for m, v in success_by_hand(rows).items()})
    board = data["leaderboard"]
    assert {(r["run"], r["model"]) for r in board} == set(expected)
    for entry in board:
        assert entry["success"]["mean"] == pytest.approx(expected[(entry["run"], entry["model"])])
        assert entry["success"]["low"] <= entry["success"]["mean"] <= entry["success"]["high"]
    means = [r["success"]["mean"] for r in board]
    assert means == sorted(means, reverse=True)
    assert [r["rank"] for r in board] == list(range(1, len(board) + 1))
    md = (tmp_path / "cmp" / "report.md").read_text()
    assert "## Leaderboard" in md and "figures/leaderboard.svg" in md
    assert (tmp_path / "cmp" / "figures" / "leaderboard.svg").is_file()
    assert 'src="data:image/svg+xml;base64,' in (tmp_path / "cmp" / "report.html").read_text()


def test_runs_of_different_datasets_are_refused_unless_told(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("report", str(stores["a"]), str(stores["c"]), "-o", str(tmp_path / "cmp"))
    code, _, err = cli(capsys, *args)
    assert code == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and "different datasets" in err
    assert "run c" in err and "--allow-different-datasets" in err
    assert not (tmp_path / "cmp").exists()
    code, _, err = cli(capsys, *args, "--allow-different-datasets")
    assert code == 0
    data = json.loads((tmp_path / "cmp" / "report.json").read_text())
    assert data["same_dataset"] is False and len(data["differences"]) == 1
    assert "different datasets" in (tmp_path / "cmp" / "report.md").read_text()


def test_a_missing_run_is_a_located_error(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothing-here"
    code, _, err = cli(capsys, "report", str(stores["a"]), str(missing), "-o", str(tmp_path / "o"))
    assert code == 2 and "Traceback" not in err and "nothing-here" in err


def test_a_run_given_twice_is_refused(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twice = stores["a"].parent / "." / stores["a"].name
    code, _, err = cli(capsys, "report", str(stores["a"]), str(twice), "-o", str(tmp_path / "o"))
    assert code == 2 and "given twice" in err and "Traceback" not in err


@given(st.lists(st.sampled_from(["a", "b", "x/a", "y/a", "a.sqlite", "c.jsonl"]), max_size=6))
def test_run_labels_are_distinct_for_distinct_runs(names: list[str]) -> None:
    paths = [Path(n) for n in dict.fromkeys(names)]
    labels = run_labels(paths)
    assert len(set(labels)) == len(labels) == len(paths)


@given(st.sets(st.text(max_size=5)), st.sets(st.text(max_size=5)))
def test_the_dataset_digest_tells_sets_apart(one: set[str], two: set[str]) -> None:
    assume_distinct = {"\n".join(sorted(one)), "\n".join(sorted(two))}
    if len(assume_distinct) == 2 and not any("\n" in x for x in one | two):
        assert dataset_key(one) != dataset_key(two)
    assert dataset_key(one) == dataset_key(set(sorted(one, reverse=True)))


def _bold_rows(md: str) -> list[str]:
    board = md.split("## Leaderboard", 1)[1]
    return [line for line in board.splitlines() if line.startswith("| ") and "**" in line]


def test_the_best_success_is_bold_only_when_no_other_row_shares_it(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rule of every table of the report (a tie is not a best): a model alone at the
    top is bold; the same store under a second name ties it, and then nothing is."""
    folder = stores["a"].parent
    coin = tmp_path / "coin.sqlite"
    run_ok("eval", str(folder / "data-prompts.jsonl"), "--dataset", str(folder / "data.jsonl"),
        "-m", "ref/coin", "--store", str(coin), "--no-progress")  # fmt: skip
    code, _, _ = cli(capsys, "report", str(coin), str(stores["b"]), "-o", str(tmp_path / "one"))
    assert code == 0
    data = json.loads((tmp_path / "one" / "report.json").read_text())
    first, second = (r["success"]["mean"] for r in data["leaderboard"])
    assert first > second
    (line,) = _bold_rows((tmp_path / "one" / "report.md").read_text())
    assert line.startswith("| 1 | b | ref/bounded |")
    copy = tmp_path / "again.sqlite"
    copy.write_bytes(stores["a"].read_bytes())
    code, _, _ = cli(capsys, "report", str(stores["a"]), str(copy), "-o", str(tmp_path / "tie"))
    assert code == 0
    data = json.loads((tmp_path / "tie" / "report.json").read_text())
    means = [r["success"]["mean"] for r in data["leaderboard"]]
    assert means[0] == means[1]
    assert _bold_rows((tmp_path / "tie" / "report.md").read_text()) == []


def test_a_folder_and_its_own_store_are_one_run(
    stores: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes(stores["a"].read_bytes())
    code, _, err = cli(capsys, "report", str(folder), str(folder / "results.sqlite"),
                       "-o", str(tmp_path / "o"))  # fmt: skip
    assert code == 2 and "given twice" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_compare_runs_refuses_one_store_under_two_names(
    stores: dict[str, Path], tmp_path: Path
) -> None:
    """The library refuses what the command refuses: a hard link to a store, and a
    folder beside its own store, are the store given twice (the Python API has no
    command line to check the paths first)."""
    from twosat_formal.errors import ConfigError
    from twosat_formal.report.compare import compare_runs

    link = tmp_path / "link.sqlite"
    link.hardlink_to(stores["a"])
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.sqlite").hardlink_to(stores["b"])
    for runs in ([stores["a"], link], [stores["b"], folder]):
        with pytest.raises(ConfigError, match="is given twice") as info:
            compare_runs(runs, tmp_path / "o")
        assert info.value.parameter == "sources" and str(runs[1]) in str(info.value)
        assert not (tmp_path / "o").exists()
