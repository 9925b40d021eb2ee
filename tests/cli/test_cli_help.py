"""One consistent CLI: every command's ``--help`` follows the same rules.

The test walks every command of the command table (and the subcommands of groups),
renders its help as a user sees it, and checks: metavars in capitals with no Python
type, a default shown for every option that has one, ``-o/--out`` wherever a command
writes, ``--json`` on every listing and summary, and ``--version``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from typer.core import TyperArgument, TyperOption

from twosat_formal.cli import app, main
from twosat_formal.cli.commands import COMMANDS
from twosat_formal.cli.metavars import Command

#: A metavar: a word in capitals (``SPEC``, ``KEY=VALUE``, ``FILE...``) or a choice.
METAVAR = re.compile(r"^(?:[A-Z][A-Z0-9_.=/]*(?:\.\.\.)?|[a-z0-9:-]+(?:\|[a-z0-9:-]+)+)$")
#: Commands that list things or print a summary: each has --json.
JSON_COMMANDS = (
    "experiments", "families", "templates", "operators", "bench", "report",
    "run-experiment", "version", "eval", "certify", "solve", "inspect",
)  # fmt: skip


def commands() -> Iterator[tuple[str, click.Command]]:
    root = typer.main.get_command(app)
    ctx = click.Context(root)
    for name in COMMANDS:
        command = root.get_command(ctx, name)  # type: ignore[attr-defined]
        assert command is not None, name
        yield name, command
        for sub_name, sub in getattr(command, "commands", {}).items():
            yield f"{name} {sub_name}", sub


ALL = list(commands())


def help_records(command: click.Command) -> list[tuple[click.Parameter, str, str]]:
    """The rows of the command's help, each checked to be in the help as printed."""
    ctx = click.Context(command, info_name="x")
    if isinstance(command, Command):
        rows = command.help_rows(ctx)
    else:  # a group (``batch``): options only, as Typer writes them
        assert not any(isinstance(p, TyperArgument) for p in command.params), command
        rows = [(p, *r) for p in command.get_params(ctx) if (r := p.get_help_record(ctx))]
    printed = "".join(command.get_help(ctx).split())  # as wrapped, without the spaces
    for _, shown, text in rows:
        assert "".join(shown.split()) in printed and "".join(text.split()) in printed, shown
    return rows


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_parameters_are_typers_own_classes(name: str, command: Any) -> None:
    """Only Typer's public API shapes the help: no parameter of a class of ours."""
    for param in command.params:
        assert type(param) in (TyperOption, TyperArgument), f"{name}: {type(param)}"


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_metavars_are_capitals_without_python_types(name: str, command: Any) -> None:
    ctx = click.Context(command, info_name=name)
    usage = " ".join(command.collect_usage_pieces(ctx))
    assert not re.search(r"[<>{}]", usage), usage
    for param, shown, _ in help_records(command):
        assert not re.search(r"[<>{}]|list\[|\bint\b|\bstr\b|\bpath\b", shown), shown
        if isinstance(param, TyperOption) and not param.is_flag:
            metavar = shown.split()[-1]
            assert METAVAR.match(metavar), f"{name}: {shown}"
        if isinstance(param, TyperArgument):
            assert METAVAR.match(shown.strip("[]")), f"{name}: {shown}"


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_every_option_with_a_value_says_its_default(name: str, command: Any) -> None:
    for param, shown, text in help_records(command):
        if not isinstance(param, TyperOption) or param.is_flag or param.required:
            continue
        if param.multiple:  # repeatable: none given means none, or the help says what
            continue
        assert "default" in text.lower(), f"{name} {shown}: {text!r}"


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_help_shows_no_restructuredtext_literals(name: str, command: Any) -> None:
    ctx = click.Context(command, info_name=name)
    assert "``" not in command.get_help(ctx), name


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_every_out_option_has_the_short_form(name: str, command: Any) -> None:
    for param in command.params:
        if isinstance(param, TyperOption) and "--out" in param.opts:
            assert "-o" in param.opts, name


#: Commands whose ``--out`` is a folder: the report, an experiment, an export.
FOLDER_COMMANDS = ("bench", "export", "report", "run-experiment")


@pytest.mark.parametrize(("name", "command"), ALL, ids=[n for n, _ in ALL])
def test_an_out_folder_is_dir_and_an_out_file_is_file(name: str, command: Any) -> None:
    """``--out DIR`` where the command writes a folder (as the docs write it), ``--out
    FILE`` where it writes a file."""
    for param, shown, _ in help_records(command):
        if isinstance(param, TyperOption) and "--out" in param.opts:
            expected = "DIR" if name in FOLDER_COMMANDS else "FILE"
            assert shown.split()[-1] == expected, f"{name}: {shown}"


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_listings_and_summaries_print_json(name: str) -> None:
    command = dict(ALL)[name]
    assert any("--json" in getattr(p, "opts", ()) for p in command.params), name


def test_keep_inputs_flag_has_one_name_in_perturb_and_edit() -> None:
    def pair(name: str) -> tuple[list[str], list[str]]:
        [flag] = [p for p in dict(ALL)[name].params if "--keep-base" in getattr(p, "opts", ())]
        return flag.opts, flag.secondary_opts

    assert pair("perturb") == pair("edit") == (["--keep-base"], ["--no-base"])


def test_eval_help_names_the_command_that_writes_prompts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", "--help"])
    assert info.value.code == 0
    assert "`verbalize`" in capsys.readouterr().out


def test_version_option(capsys: pytest.CaptureFixture[str]) -> None:
    from twosat_formal.core.provenance import tool_version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"twosat-formal {tool_version()}\n"


def test_the_pipeline_says_what_it_wrote_without_blank_lines_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*argv: str) -> str:
        with pytest.raises(SystemExit) as info:
            main(list(argv))
        err = capsys.readouterr().err
        assert info.value.code == 0, err
        assert "" not in err.splitlines(), err
        return err

    data, perturbed, prompts = (tmp_path / n for n in ("d.jsonl", "p.jsonl", "q.jsonl"))
    run("generate", "backbone", "--clauses", "8", "--count", "2", "-o", str(data))
    err = run("perturb", str(data), "--op", "reorder", "-o", str(perturbed), "--no-progress")
    assert err == f"wrote 4 records to {perturbed}\n"  # two bases, two perturbed
    assert len(perturbed.read_text().splitlines()) == 4
    run("verbalize", str(perturbed), "-t", "logic", "-o", str(prompts))
    store = str(tmp_path / "s.sqlite")
    run("eval", str(prompts), "--dataset", str(perturbed), "-m", "ref/oracle", "--store", store)
    run("results", store, "-o", str(tmp_path / "r.csv"))
