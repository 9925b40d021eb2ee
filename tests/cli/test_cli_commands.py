"""The command table and lazy loading: ``--help`` imports Typer, Rich and the table only."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli
from twosat_formal.cli import app, main
from twosat_formal.cli.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[2]

#: Modules that must never load for ``--help`` or ``import twosat_formal``.
HEAVY = ("scipy", "numpy", "z3", "pysat", "aiohttp", "matplotlib", "networkx", "lark", "pydantic")

#: The packages ``--help`` may load: the CLI toolkit and its own dependencies.
CLI_TOOLKIT = {"typer", "click", "rich", "shellingham", "annotated_doc", "typing_extensions"}

#: The package's modules ``--help`` may load: the package (its version, its errors), the
#: CLI entry point and the command table.
CLI_MODULES = {
    "twosat_formal",
    "twosat_formal._version",
    "twosat_formal.errors",
    "twosat_formal.cli",
    "twosat_formal.cli.app",
    "twosat_formal.cli.commands",
}


def modules_after(code: str) -> set[str]:
    """The modules ``code`` loads in a fresh interpreter (beyond those at start-up)."""
    probe = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        f"{code}\n"
        "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    loaded = json.loads(done.stderr.rsplit("MODULES ", 1)[1])
    return set(loaded)


def top(name: str) -> str:
    return name.split(".", 1)[0]


def test_help_imports_only_the_cli_toolkit_and_the_table() -> None:
    loaded = modules_after(
        "from twosat_formal.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "twosat_formal.cli.commands" in loaded  # the probe did run the CLI
    assert not [m for m in loaded if top(m) in HEAVY]
    ours = {m for m in loaded if top(m) == "twosat_formal"}
    assert ours <= CLI_MODULES, sorted(ours - CLI_MODULES)
    others = {top(m) for m in loaded} - set(sys.stdlib_module_names) - {"twosat_formal"}
    assert others <= CLI_TOOLKIT, sorted(others - CLI_TOOLKIT)


def test_import_of_the_package_loads_nothing_heavy() -> None:
    loaded = modules_after("import twosat_formal")
    assert "twosat_formal" in loaded
    assert not [m for m in loaded if top(m) in HEAVY]


def test_a_command_loads_only_its_own_module() -> None:
    loaded = modules_after(
        "from twosat_formal.cli import main\n"
        "try:\n    main(['solve', '--help'])\nexcept SystemExit:\n    pass"
    )
    cmd_modules = {m for m in loaded if m.startswith("twosat_formal.cli.") and m.endswith("_cmd")}
    assert cmd_modules == {"twosat_formal.cli.solve_cmd"}


def test_the_package_names_still_resolve() -> None:
    import twosat_formal

    assert twosat_formal.Formula.__name__ == "Formula"
    assert {"Clause", "Formula", "Literal"} <= set(twosat_formal.__all__)
    with pytest.raises(AttributeError):
        _ = twosat_formal.NoSuchThing


def _first_paragraph(text: str) -> str:
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split())


def test_every_row_names_a_module_that_registers_it_with_that_help() -> None:
    for row in COMMANDS.values():
        importlib.import_module(row.module)
    registered = {}
    for info in app.registered_commands:
        assert info.callback is not None
        name = info.name or info.callback.__name__.replace("_", "-")
        registered[name] = (info.callback.__module__, _first_paragraph(info.callback.__doc__ or ""))
    for group in app.registered_groups:  # commands with subcommands: help from the group
        sub = group.typer_instance
        assert sub is not None and group.name is not None
        module = sub.registered_commands[0].callback.__module__
        registered[group.name] = (module, _first_paragraph(sub.info.help or ""))
    # A command some module registers but the table lacks would be unreachable.
    assert set(registered) == set(COMMANDS)
    for name, row in COMMANDS.items():
        assert registered[name] == (row.module, row.help), name


def test_every_command_module_is_in_the_table() -> None:
    files = {p.stem for p in (ROOT / "twosat_formal" / "cli").glob("*_cmd.py")}
    assert files == {row.module.rsplit(".", 1)[1] for row in COMMANDS.values()}


def test_help_lists_the_table_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code in (0, None)
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("Commands:", 1)[1].splitlines() if line.strip()]
    assert listed == list(COMMANDS)


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["no-such-command"])
    assert stop.value.code == 2
    assert "No such command" in capsys.readouterr().err


@pytest.mark.parametrize("words", [["--json"], []], ids=["json", "plain"])
def test_solve_of_a_small_file_loads_no_rich_scipy_or_solver(
    tmp_path: Path, words: list[str]
) -> None:
    path = tmp_path / "five.cnf"
    path.write_text("p cnf 5 5\n1 -2 0\n2 -3 0\n3 4 0\n-4 5 0\n-5 1 0\n")
    loaded = modules_after(
        "from twosat_formal.cli import main\n"
        f"try:\n    main(['solve', {str(path)!r}, *{words!r}])\nexcept SystemExit:\n    pass"
    )
    assert "twosat_formal.solve._kernel" in loaded  # the probe did solve
    assert "twosat_formal._util.atomic" not in loaded  # a solve writes no file
    heavy = {"rich", "scipy", "pysat", "z3", "networkx", "lark", "aiohttp", "matplotlib"}
    assert not {top(m) for m in loaded} & heavy
    cmd_modules = {m for m in loaded if m.startswith("twosat_formal.cli.") and m.endswith("_cmd")}
    assert cmd_modules == {"twosat_formal.cli.solve_cmd"}


def _imported_names(tree: ast.AST) -> set[str]:
    """Every module an ``import`` statement of ``tree`` names (in functions too), with
    each ``from X import Y`` giving both ``X`` and ``X.Y``; relative imports are left
    relative (``.entry``, ``..entry``), as are ``import_module`` calls on a literal."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            joiner = "" if base.endswith(".") else "."
            names.update(base + joiner + alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def _resolve(name: str, package: str) -> str:
    """``name`` as an absolute module name, for a module of ``package``."""
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)]
    rest = name[level:]
    return ".".join(base + ([rest] if rest else []))


def test_imported_names_sees_every_form_of_import() -> None:
    tree = ast.parse(
        "import a.b\nfrom c import d\nfrom .. import e\nfrom .f import g\n"
        "def h():\n    import_module('i.j')\n    importlib.import_module('k')\n"
    )
    names = {_resolve(n, "p.q") for n in _imported_names(tree)}
    assert {"a.b", "c.d", "p.e", "p.q.f.g", "i.j", "k"} <= names


def test_nothing_in_the_cli_imports_the_console_script_module() -> None:
    """``twosat_formal.cli.entry`` calls into the CLI; the CLI never imports it back (no
    cycle), in a function body or by name either."""
    folder = ROOT / "twosat_formal" / "cli"
    files = sorted(folder.rglob("*.py"))
    assert folder / "app.py" in files
    for path in files:
        names = {
            _resolve(name, "twosat_formal.cli")
            for name in _imported_names(ast.parse(path.read_text(encoding="utf-8")))
        }
        bad = {
            n
            for n in names
            if n == "twosat_formal.cli.entry" or n.startswith("twosat_formal.cli.entry.")
        }
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_reading_dimacs_loads_no_lark(tmp_path: Path) -> None:
    path = tmp_path / "five.cnf"
    path.write_text("p cnf 2 1\n1 -2 0\n")
    loaded = modules_after(
        f"from twosat_formal.io import read_formula\nassert read_formula({str(path)!r})"
    )
    assert "twosat_formal.io._dimacs" in loaded
    assert "lark" not in {top(m) for m in loaded}


def test_the_root_group_is_built_once_and_again_for_a_new_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Running the CLI again in one process reuses the root group, with the same help;
    a command registered afterwards builds it again, and it answers."""
    cli_app = importlib.import_module("twosat_formal.cli.app")

    def run(*args: str) -> str:
        with pytest.raises(SystemExit):
            main(list(args))
        return capsys.readouterr().out

    first = run("version", "--help")
    root = cli_app._root_command()
    assert run("version", "--help") == first
    assert cli_app._root_command() is root

    def probe_once() -> None:
        """A command added after the root group was built."""
        print("probe ran")

    try:
        app.command("probe-once")(probe_once)
        assert cli_app._root_command() is not root
        assert run("probe-once") == "probe ran\n"
        assert run("version", "--help") == first
    finally:
        app.registered_commands.pop()
    assert "probe-once" not in run("--help")


def test_a_choice_option_given_another_value_names_the_choices_plainly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Typer's check through pydantic said "Value error, 'xyz' is not one of ..."."""
    for argv, option, choices in (
        (["parse", "-", "--to", "xyz"], "'--to'", "'dsl', 'dimacs'"),
        (["edit", "-", "--mode", "xyz"], "'--mode'", "'cumulative', 'individual'"),
        (["solve", "-", "--format", "xyz"], "'--format'", "'dimacs', 'dsl'"),
    ):
        code, _, err = cli(capsys, *argv)
        assert code == 2
        assert err.startswith(
            f"error: Invalid value for {option}: 'xyz' is not one of {choices}. (see "
        ), err
