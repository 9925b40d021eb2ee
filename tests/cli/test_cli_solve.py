"""``twosat-formal solve`` and ``twosat-formal inspect`` through the CLI entry point."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import cli, feed_stdin, python_stdout, run
from tests.support.formula_strategies import formulas
from twosat_formal.cli.solve_cmd import describe, solve_file
from twosat_formal.core.formula import Formula, is_valid_name
from twosat_formal.io import write_dimacs
from twosat_formal.solve import check_certificate_json

SAT_DSL = "a | b\n~a | b\na | ~b\n"
UNSAT_DSL = "a | b\n~a | b\na | ~b\n~a | ~b\nc | d\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "sat": tmp_path / "sat.dsl",
        "unsat": tmp_path / "unsat.dsl",
        "wide": tmp_path / "wide.cnf",
        "empty_clause": tmp_path / "empty_clause.cnf",
        "empty": tmp_path / "nothing.dsl",
    }
    paths["sat"].write_text(SAT_DSL)
    paths["unsat"].write_text(UNSAT_DSL)
    paths["wide"].write_text("p cnf 3 2\n1 2 3 0\n-1 0\n")
    paths["empty_clause"].write_text("p cnf 2 2\n1 2 0\n0\n")
    paths["empty"].write_text("# no clauses\n")
    return paths


def names_formula(text: str) -> Formula:
    from twosat_formal.io import parse_dsl

    return parse_dsl(text)


def test_solve_json_sat(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["solve", str(files["sat"]), "--json"], capsys)
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj == {
        "status": "SAT",
        "model": {"a": True, "b": True},
        "backend": "scc",
        "checked": True,
    }


def test_solve_json_unsat_cycle_is_checked(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["solve", str(files["unsat"]), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and list(obj) == ["status", "cycle", "backend", "checked"]
    assert obj["status"] == "UNSAT" and obj["checked"] is True
    check_certificate_json(names_formula(UNSAT_DSL), obj)


@pytest.mark.parametrize("backend", ["scc", "pysat", "z3"])
def test_solve_each_backend(
    backend: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for name, status in (("sat", "SAT"), ("unsat", "UNSAT")):
        code, out, _ = run(["solve", str(files[name]), "--json", "--backend", backend], capsys)
        obj = json.loads(out)
        assert code == 0 and obj["status"] == status and obj["backend"] == backend


def test_solve_human_output(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["solve", str(files["sat"])], capsys)
    assert code == 0 and out.splitlines()[0].startswith("SAT")
    assert "model: a b" in out and "certificate: checked" in out
    code, out, _ = run(["solve", str(files["unsat"])], capsys)
    assert out.splitlines()[0].startswith("UNSAT") and "contradiction cycle" in out


#: Variable names: identifiers, the DSL's words that are not keywords among them.
NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.sampled_from(["x1", "x10", "model", "SAT", "emoji", "smile", "b", "i", "link"]),
).filter(is_valid_name)


def rich_printed(lines: list[str], terminal: bool) -> str:
    """What a Rich console (``highlight=False``, ``soft_wrap=True``: the CLI's consoles)
    prints for ``lines``, markup off: how ``solve`` printed them before it printed plain
    text. Narrow, so that any wrapping would show."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=terminal, width=12, highlight=False, soft_wrap=True
    )
    for line in lines:
        console.print(line, markup=False)
    return buffer.getvalue()


def assert_prints_as_rich(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``solve PATH`` prints the bytes a Rich console prints for its lines, on a
    terminal or not."""
    code, out, err = cli(capsys, "solve", str(path))
    assert (code, err) == (0, "")
    formula, result = solve_file(str(path))
    lines = describe(result, formula)
    assert out == rich_printed(lines, terminal=False) == rich_printed(lines, terminal=True)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(formula=formulas(NAMES, max_vars=6, max_width=3))
def test_solve_prints_plain_what_a_rich_console_printed(
    formula: Formula, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "formula.cnf"
    path.write_text(write_dimacs(formula))
    assert_prints_as_rich(path, capsys)


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(f"~v{i} | v{i + 1}" for i in range(1, 150)) + "\n",  # a model of 150
        "\n".join(f"~v{i} | v{i + 1}" for i in range(1, 120)) + "\nv1\n~v120\n",  # a cycle
    ],
    ids=["long model", "long cycle"],
)
def test_solve_prints_long_lists_as_a_rich_console_did(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.dsl"
    path.write_text(text)
    _, out, _ = cli(capsys, "solve", str(path))
    assert "more; --json prints all)" in out
    assert_prints_as_rich(path, capsys)


def test_general_cnf_says_so(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["solve", str(files["wide"]), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["backend"] == "pysat" and obj["general_cnf"] is True
    code, out, _ = run(["solve", str(files["wide"])], capsys)
    assert "general CNF" in out


def test_empty_clause_and_empty_formula(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(["solve", str(files["empty_clause"]), "--json"], capsys)
    obj = json.loads(out)
    assert obj["status"] == "UNSAT" and obj["empty_clause"] == 1 and "cycle" not in obj
    _, out, _ = run(["solve", str(files["empty"]), "--json"], capsys)
    assert json.loads(out) == {"status": "SAT", "model": {}, "backend": "scc", "checked": True}


def test_stdin_and_format_override(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b"p cnf 2 2\n1 0\n-1 2 0\n"
    feed_stdin(monkeypatch, data)
    code, out, _ = run(["solve", "-", "--json", "--format", "dimacs"], capsys)
    assert code == 0 and json.loads(out)["model"] == {"x1": True, "x2": True}


def test_bad_input_is_one_line_exit_2(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        ["solve", str(files["sat"]), "--backend", "minisat"],
        ["solve", str(tmp_path / "missing.cnf")],
        ["solve", str(tmp_path)],
        ["inspect", str(files["wide"])],
    ]
    (tmp_path / "bad.cnf").write_text("p cnf 2 1\n1 x 0\n")
    cases.append(["solve", str(tmp_path / "bad.cnf")])
    for argv in cases:
        code, out, err = run(argv, capsys)
        assert code == 2 and out == "", argv
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (argv, err)
        assert "Traceback" not in err


def test_inspect_json(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["inspect", str(files["unsat"]), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0
    assert obj["satisfiable"] is False and obj["conflicting_variables"] == ["a", "b"]
    assert obj["pure_literals"] == ["c", "d"] and obj["backbone"] == []
    code, out, _ = run(["inspect", str(files["sat"]), "--json"], capsys)
    assert json.loads(out)["backbone"] == ["a", "b"]


def test_inspect_human(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["inspect", str(files["sat"])], capsys)
    assert code == 0 and "backbone literals (2)" in out and "satisfiable" in out


def test_help_lists_both_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "solve" in out and "inspect" in out
    code, out, _ = run(["solve", "--help"], capsys)
    assert "--backend" in out and "--format" in out and "--json" in out


@pytest.mark.parametrize(("name", "code"), [("sat", 10), ("unsat", 20)])
def test_exit_codes_follow_the_sat_competition_on_request(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], name: str, code: int
) -> None:
    assert run(["solve", str(files[name])], capsys)[0] == 0
    status, out, _ = run(["solve", str(files[name]), "--exit-codes", "--json"], capsys)
    assert status == code and json.loads(out)["status"] == name.upper()


@pytest.mark.parametrize("given", [None, "3"])
def test_the_cli_runs_one_blas_thread_unless_told(given: str | None) -> None:
    probe = (
        "import os\n"
        "from twosat_formal.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    assert python_stdout(probe, env=env).split()[-1] == (given or "1")


ROOT = Path(__file__).resolve().parents[2]


def _process(argv: list[str], cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """A fresh interpreter running ``argv`` (a script and its arguments) in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, input=stdin, capture_output=True, env=env
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "words", "code"),
    [("sat", ["--json"], 0), ("unsat", ["--json", "--exit-codes"], 20), ("wide", [], 0)],
)
def test_the_console_script_is_the_cli(
    files: dict[str, Path], name: str, words: list[str], code: int
) -> None:
    """``python cli.py`` and the console script's entry point print what the CLI's
    :func:`~twosat_formal.cli.main` prints, with its exit code, in a fresh process."""
    folder = files[name].parent
    argv = ["solve", files[name].name, *words]
    runs = [
        _process([str(ROOT / "cli.py"), *argv], folder),
        _process(["-c", "from twosat_formal.cli.entry import main; main()", *argv], folder),
        _process(["-c", "from twosat_formal.cli import main; main()", *argv], folder),
    ]
    assert runs[0].returncode == code, runs[0].stderr
    if "--json" in words:
        answer = json.loads(runs[0].stdout)
        assert answer["status"] == name.upper() and answer["checked"] is True
        check_certificate_json(names_formula(files[name].read_text()), answer)
    else:
        assert runs[0].stdout.startswith(b"SAT  (backend pysat, general CNF")
    for other in runs[1:]:
        assert (other.returncode, other.stdout, other.stderr) == (
            runs[0].returncode,
            runs[0].stdout,
            runs[0].stderr,
        )


@pytest.mark.parametrize(
    "extra", [["--json"], ["--json", "--"], []], ids=["options", "after --", "plain"]
)
def test_a_closed_output_pipe_ends_quietly_with_exit_code_1(extra: list[str]) -> None:
    """A reader gone before the answer is written (``| head -0``): exit 1, stderr empty."""
    script = "from twosat_formal.cli.entry import main; main()"
    argv = [sys.executable, "-c", script, "solve", *extra, "-"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdout.close()  # before the process can have written anything
    _, err = process.communicate(b"p cnf 3 3\n1 -2 0\n2 3 0\n-1 0\n")
    assert process.returncode == 1, err
    assert err == b""


@pytest.mark.parametrize(
    ("text", "clause", "width"),
    [("p cnf 3 2\n1 2 0\n1 2 3 0\n", 2, 3), ("a | b\n()\n", 2, 0), ("a | b | c\n", 1, 3)],
)
@pytest.mark.parametrize("graph", [False, True])
def test_inspect_of_a_formula_that_is_no_2cnf_names_the_file_and_the_clause(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    clause: int,
    width: int,
    graph: bool,
) -> None:
    """One located line, exit 2, no graph written (it named neither the file nor stdin)."""
    path = tmp_path / "wide.txt"
    path.write_text(text, encoding="utf-8")
    extra = ["--graph", str(tmp_path / "g.dot")] if graph else []
    code, out, err = cli(capsys, "inspect", str(path), *extra)
    says = f"structure analysis needs a 2-CNF, but clause {clause} has {width} literals"
    assert (code, out, err) == (2, "", f"error: {path}: {says}\n")
    monkey = pytest.MonkeyPatch()
    feed_stdin(monkey, text.encode())
    try:
        code, out, err = cli(capsys, "inspect", "-", *extra)
    finally:
        monkey.undo()
    assert (code, err) == (2, f"error: <stdin>: {says}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["wide.txt"]
