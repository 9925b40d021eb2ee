"""A plain ``solve`` line skips Typer's parameter processing and behaves exactly as through Typer.

Every command line below runs three times in-process: as the console script runs it
(:func:`twosat_formal.entry.main`, which does not import Typer for a plain line), as
:func:`twosat_formal.cli.main` runs it, and with the plain reading switched off (so that
Typer parses it); all three must give the same exit code, the same standard output and
the same standard error, byte for byte.
"""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twosat_formal import entry

#: The module (``twosat_formal.cli.app`` as an attribute is the Typer application).
app_module = importlib.import_module("twosat_formal.cli.app")

STDIN = b"p cnf 3 3\n1 -2 0\n2 3 0\n-1 0\n"

#: Files the command lines name (created in ``files``), by word.
FILES = {
    "sat.dsl": "a | b\n~a | b\na | ~b\n",
    "unsat.dsl": "a | b\n~a | b\na | ~b\n~a | ~b\nc | d\n",
    "sat.cnf": "p cnf 3 2\n1 -2 0\n2 3 0\n",
    "wide.cnf": "p cnf 3 2\n1 2 3 0\n-1 0\n",
    "bad.cnf": "p cnf 2 1\n1 x 0\n",
    "a=b.cnf": "p cnf 1 1\n1 0\n",
}

WORDS = [
    *FILES,
    "missing.cnf",
    "folder",
    "-",
    "",
    "--json",
    "--exit-codes",
    "--backend",
    "--backend=z3",
    "--backend=pysat",
    "--backend=",
    "--backend=nope",
    "scc",
    "z3",
    "nope",
    "--format",
    "--format=dimacs",
    "--format=dsl",
    "--format=cnf",
    "dimacs",
    "dsl",
    "DSL",
    "--help",
    "-h",
    "--",
    "--jso",
    "--json=1",
    "-x",
    "--version",
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plain")
    for name, text in FILES.items():
        (root / name).write_text(text)
    (root / "folder").mkdir()
    return root


def _entry(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the console script's entry point in-process; exit code, stdout and stderr."""
    with pytest.raises(SystemExit) as info:
        entry.main(list(argv))
    out, err = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else code if isinstance(code, int) else 1), out, err


def _both(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    words: list[str],
) -> tuple[tuple[int, str, str], tuple[int, str, str], bool]:
    """The plain and the Typer run of ``solve WORDS`` in ``folder`` (the console script's
    run must equal the plain one); and whether the plain reading took it."""
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STDIN)))
    script = _entry(capsys, "solve", *words)
    taken: list[bool] = []
    plain = app_module._plain_solve

    def spy(args: list[str]) -> dict[str, Any] | None:
        found = plain(args)
        taken.append(found is not None)
        return found

    results = []
    for reader in (spy, lambda args: None):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STDIN)))
        monkeypatch.setattr(app_module, "_plain_solve", reader)
        results.append(cli(capsys, "solve", *words))
    monkeypatch.setattr(app_module, "_plain_solve", plain)
    assert script == results[0], words
    return results[0], results[1], taken[0]


#: Lines that are mostly plain: one file and some options, in any order.
PLAIN_LINES = st.tuples(
    st.sampled_from([*FILES, "missing.cnf", "folder", "-", ""]),
    st.lists(
        st.sampled_from(
            [
                ["--json"],
                ["--exit-codes"],
                ["--backend", "z3"],
                ["--backend=pysat"],
                ["--backend", "nope"],
                ["--format", "dsl"],
                ["--format=dimacs"],
            ]
        ),
        max_size=4,
    ),
    st.randoms(use_true_random=False),
).map(lambda t: t[2].sample(group := [[t[0]], *t[1]], len(group)))


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.one_of(
        st.lists(st.sampled_from(WORDS), max_size=6),
        PLAIN_LINES.map(lambda groups: [word for group in groups for word in group]),
    )
)
def test_plain_and_typer_give_the_same_bytes_and_exit_code(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    words: list[str],
) -> None:
    plain, typer_run, _ = _both(capsys, monkeypatch, folder, words)
    assert plain == typer_run, words


@pytest.mark.parametrize(
    ("words", "is_plain"),
    [
        (["sat.cnf", "--json"], True),
        (["--json", "sat.dsl", "--backend", "z3", "--exit-codes"], True),
        (["unsat.dsl", "--backend=pysat", "--format=dsl"], True),
        (["-", "--format", "dimacs", "--json"], True),
        (["wide.cnf", "--exit-codes"], True),
        (["a=b.cnf", "--json"], True),
        (["bad.cnf"], True),
        (["missing.cnf", "--json"], True),
        (["sat.cnf", "--backend", "nope"], True),
        (["sat.cnf", "--json", "--json"], False),
        (["sat.cnf", "--format", "cnf"], False),
        (["sat.cnf", "--backend"], False),
        (["sat.cnf", "--", "--json"], False),
        (["sat.cnf", "--help"], False),
        (["sat.cnf", "unsat.dsl"], False),
        ([], False),
    ],
)
def test_which_lines_are_plain(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    words: list[str],
    is_plain: bool,
) -> None:
    plain, typer_run, taken = _both(capsys, monkeypatch, folder, words)
    assert taken is is_plain
    assert plain == typer_run
    if words == ["sat.cnf", "--json"]:
        assert plain[0] == 0 and plain[1].startswith('{"status": "SAT", "model": {"x1": true')
    if "--exit-codes" in words and "wide.cnf" in words:
        assert plain[0] == 10


def test_plain_reading_knows_every_option_of_solve() -> None:
    """An option added to ``solve`` must be added to the plain reading too (or the
    plain reading would refuse a line Typer takes, or pass a wrong default)."""
    command = app_module._load("solve")
    options = {opt for param in command.params for opt in param.opts if opt.startswith("-")}
    assert options == set(entry.FLAGS) | set(entry.VALUED)
    names = {param.name for param in command.params}
    given = entry.plain_solve(["f"])
    assert given is not None and set(given) == names
    defaults = {param.name: param.default for param in command.params if param.name != "file"}
    assert {name: given[name] for name in defaults} == defaults


def test_a_plain_solve_does_not_import_pydantic(folder: Path) -> None:
    code = (
        "import sys\nfrom twosat_formal.cli import main\n"
        "try: main(['solve', 'sat.cnf', '--json'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'scipy')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize("words", [["sat.cnf", "--json"], ["unsat.dsl", "--json", "--exit-codes"]])
def test_the_console_script_solves_a_plain_line_without_typer(
    folder: Path, words: list[str]
) -> None:
    """No Typer, Click, Rich, pydantic or SciPy for a plain JSON solve; the same bytes
    and exit code as the Typer application's entry point gives."""
    runs = {}
    for module in ("twosat_formal.entry", "twosat_formal.cli"):
        code = (
            "import sys\n"
            f"from {module} import main\n"
            f"try: main(['solve', *{words!r}])\n"
            "except SystemExit as exc: code = exc.code\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'typer', 'click', 'rich', 'pydantic', 'scipy'}))\n"
            "sys.exit(code)"
        )
        done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True)
        runs[module] = done
    script, typer_app = runs["twosat_formal.entry"], runs["twosat_formal.cli"]
    assert script.stdout.splitlines()[-1] == b"[]"
    assert typer_app.stdout.splitlines()[-1] != b"[]"  # the probe sees what Typer loads
    assert script.stdout.splitlines()[:-1] == typer_app.stdout.splitlines()[:-1]
    assert script.stdout.startswith(b'{"status": ')
    assert (script.returncode, script.stderr) == (typer_app.returncode, typer_app.stderr)


def test_echo_writes_what_typer_echo_writes(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    for text in ["", '{"status": "SAT"}', "caf\u00e9", "a\x1b[31mred\x1b[0m", "two\nlines"]:
        entry.echo(text)
        ours = capsys.readouterr()
        typer.echo(text)
        assert ours == capsys.readouterr(), text


@pytest.mark.parametrize("extra", [[], ["--"]], ids=["plain", "through Typer"])
def test_a_closed_output_pipe_ends_quietly_with_exit_code_1(extra: list[str]) -> None:
    """A reader gone before the answer is written (``| head -0``): exit 1, stderr empty."""
    script = "from twosat_formal.entry import main; main()"
    argv = [sys.executable, "-c", script, "solve", "--json", *extra, "-"]
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdout.close()  # before the process can have written anything
    _, err = process.communicate(STDIN)
    assert process.returncode == 1, err
    assert err == b""
