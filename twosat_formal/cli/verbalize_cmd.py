"""``twosat-formal verbalize``, ``backparse`` and ``templates``: the template verbalizers.

``verbalize INPUT --template NAME|all [--seed S] [--ask TYPE ...] [--out FILE.jsonl]``
    A formula file (DIMACS or DSL; ``-`` for stdin) prints its prompt, or writes prompt
    records with ``--out``. A dataset (a ``.jsonl`` file, or input whose first
    character is ``{``, stdin included) writes one prompt record per instance and
    template, to stdout or ``--out``. Every prompt carries its round-trip proof.
    ``--ask TYPE`` (repeatable: decision, chain, forced, entails, core, repair, maxsat;
    default decision)
    writes one prompt per question type; a dataset leaves out the types an instance
    does not allow. ``--ask-cycle`` is ``--ask chain``.
``backparse TEXT_FILE [--template NAME] [--to dsl|dimacs]``
    Reads a verbalization or a full prompt back into a formula.
``templates [--json]``
    Lists the schemes with an example each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from twosat_formal._util.executors import parse_shard
from twosat_formal.cli import story_cmd
from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    FormulaFormat,
    RunnerOptions,
    ShardOption,
    input_argument,
    json_option,
    model_option,
    option_groups,
    out_option,
    seed_option,
    store_option,
)
from twosat_formal.cli.progress import write_with_progress
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io import read_formula, write_dimacs, write_dsl
from twosat_formal.io.jsonl import is_dataset, read_text, rereadable
from twosat_formal.solve import solve
from twosat_formal.solve.questions import parse_ask
from twosat_formal.solve.questions.reference import applies
from twosat_formal.verbalize import TEMPLATES, backparse, prompt_record
from twosat_formal.verbalize.prompts import formula_id, write_prompts

__all__ = ["backparse_command", "templates_command", "verbalize_command"]


AskCycleOption = Annotated[
    bool,
    typer.Option(
        "--ask-cycle",
        help='Also ask for a contradiction chain as JSON when the answer is "No" '
        "(template prompts; see docs/evaluation.md); the same as --ask chain.",
    ),
]
"""``--ask-cycle``: the decision prompt also asks for a contradiction chain."""

AskOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ask",
        metavar="TYPE",
        help="Question type, repeatable: decision, chain, forced, entails, core, repair, "
        "maxsat (see docs/verbalization.md).",
        show_default="decision",
    ),
]
"""``--ask TYPE``, repeatable: the question types of the prompts."""


def _templates(choice: str) -> list[str]:
    if choice == "all":
        return TEMPLATES.names()
    TEMPLATES.get(choice)  # UnknownNameError lists the choices
    return [choice]


@app.command("verbalize")
@option_groups
def verbalize_command(
    input_path: Annotated[
        str,
        input_argument(
            "Formula file (DIMACS or DSL, - for stdin) or dataset of instances (.jsonl)."
        ),
    ],
    template: Annotated[
        str | None,
        typer.Option(
            "--template",
            "-t",
            help="Scheme name (see `twosat-formal templates`) or 'all'; required without --story.",
            show_default="none",
        ),
    ] = None,
    seed: Annotated[int, seed_option("Seed of the entity mapping.")] = 0,
    out: Annotated[
        Path | None,
        out_option("Write prompt records (JSON Lines) to this file.", "stdout"),
    ] = None,
    story: Annotated[
        str | None,
        typer.Option(
            "--story",
            metavar="THEME",
            help="Tell a story instead: detective, spy or heist.",
            show_default="none: templates",
        ),
    ] = None,
    model: Annotated[
        str | None,
        model_option("Model that writes the story (required with --story).", show_default="none"),
    ] = None,
    store: Annotated[
        Path | None,
        store_option(
            "Run store of the story's model calls (default story-calls.sqlite); "
            "a re-run reuses them."
        ),
    ] = None,
    running: RunnerOptions = RunnerOptions(),
    shard: ShardOption = None,
    ask_cycle: AskCycleOption = False,
    ask: AskOption = None,
) -> None:
    """Turn a formula or a dataset into evaluation prompts, each with its round-trip proof."""
    asks = parse_ask([*(ask or []), *(["chain"] if ask_cycle else [])])
    if story is not None or model is not None:
        if asks != ("decision",):
            raise ConfigError("--ask and --ask-cycle apply to template prompts, not to stories")
        story_cmd.verbalize_story(
            input_path, story, model, template=template, seed=seed, out=out, store=store
        )
        return
    names = _templates(story_cmd.require_template(template))
    part = parse_shard(shard) if shard is not None else None
    with rereadable(input_path) as (file, source):
        if is_dataset(file, source=source):
            _verbalize_dataset(file, source, names, seed, out, part, running, asks=asks)
            return
        if part is not None:
            raise ConfigError("--shard needs a dataset (JSON Lines), not one formula")
        formula = read_formula(file)  # a copy of stdin is named <stdin>
    _verbalize_formula(formula, names, seed, out, asks)


def _require_applies(asks: tuple[str, ...], formula: Formula) -> None:
    """Raise a :class:`ConfigError` if a question type of ``asks`` does not apply to ``formula``."""
    label = solve(formula, check=False).status
    for kind in asks:
        if not applies(kind, formula, label):
            raise ConfigError(
                f"question type {kind!r} does not apply to this formula "
                "(forced: a satisfiable 2-CNF with a forced value; entails: a satisfiable "
                "2-CNF with two variables whose value is not forced; core, repair, maxsat: an "
                "unsatisfiable 2-CNF)",
                parameter="--ask",
            )


def _verbalize_formula(
    formula: Formula, names: list[str], seed: int, out: Path | None, asks: tuple[str, ...]
) -> None:
    """Write the prompts of one formula, each template and question type, to ``out``.

    Without ``out`` the prompts are printed; several are each headed by their template
    and, with several question types, the question.
    """
    instance = formula_id(formula)
    _require_applies(asks, formula)
    records_list = [
        prompt_record(
            formula,
            n,
            instance_id=instance,
            seed=seed,
            ask_cycle=kind == "chain",
            ask="decision" if kind == "chain" else kind,
        )
        for n in names
        for kind in asks
    ]
    if out is not None:
        written = write_prompts(records_list, out)
        err_console.print(f"wrote {written} prompts to {out}", markup=False)
        return
    for i, record in enumerate(records_list):
        if len(records_list) > 1:
            asked = "" if len(asks) == 1 else f", question: {asks[i % len(asks)]}"
            typer.echo(("\n" if i else "") + f"# template: {record.template}{asked}")
        typer.echo(record.text)


def _verbalize_dataset(
    file: Path,
    source: str,
    names: list[str],
    seed: int,
    out: Path | None,
    part: tuple[int, int] | None,
    running: RunnerOptions,
    *,
    asks: tuple[str, ...] = ("decision",),
) -> None:
    from twosat_formal._util.executors import shard_range
    from twosat_formal.verbalize.lines import count_records, prompt_lines

    # a question type an instance does not allow is left out: no total known ahead
    counted = running.progress and all(kind in ("decision", "chain") for kind in asks)
    per_record = len(names) * len(asks)
    total = len(shard_range(count_records(file), part)) * per_record if counted else None
    with running.open() as runner:
        lines = prompt_lines(
            file,
            names,
            seed=seed,
            executor=runner,
            shard=part,
            source=source,
            asks=asks,
        )
        written = write_with_progress(lines, out, total, "verbalizing", enabled=running.progress)
    if out is not None:
        err_console.print(f"wrote {written} prompts to {out}", markup=False)


@app.command("backparse")
def backparse_command(
    text_file: Annotated[
        str,
        input_argument("A verbalization or a full prompt (- for stdin).", "TEXT_FILE"),
    ],
    template: Annotated[
        str | None,
        typer.Option(
            "--template",
            "-t",
            metavar="NAME",
            help="Scheme to read with.",
            show_default="detected from the preamble",
        ),
    ] = None,
    to: Annotated[
        FormulaFormat, typer.Option("--to", help="Output format of the formula.")
    ] = FormulaFormat.dsl,
) -> None:
    """Read a template verbalization back into a formula (variables named after entities)."""
    with rereadable(text_file) as (file, source):  # stdin within the bounds of a file
        text = read_text(file, source=source)
    parsed = backparse(text, template, source=source)
    if to is FormulaFormat.dimacs:
        output = write_dimacs(parsed.formula, provenance={"template": parsed.template})
    else:
        output = write_dsl(parsed.formula)
    typer.echo(output, nl=not output.endswith("\n"))


@app.command("templates")
def templates_command(
    as_json: Annotated[bool, json_option("Print the schemes and their examples as JSON.")] = False,
) -> None:
    """List the templates with an example of each: six schemes (App. G.1), four formats."""
    rows = [
        {
            "name": name,
            "true_value": scheme.true_value,
            "false_value": scheme.false_value,
            "naming": scheme.naming,
            "preamble": scheme.preamble,
            "question": scheme.question,
            "example": scheme.example(),
        }
        for name, scheme in TEMPLATES.items()
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        typer.echo(
            f"{row['name']}  (true: {row['true_value']}, false: {row['false_value']}; "
            f"entities: {row['naming']})"
        )
        typer.echo(f"  {row['preamble']}")
        for line in str(row["example"]).splitlines():
            typer.echo(f"  {line}")
        typer.echo(f"  {row['question']}")
        typer.echo("")
