"""The command table: every ``twosat-formal`` command, its module and its one-line help.

The CLI loads commands lazily. ``twosat-formal --help`` lists the commands from
:data:`COMMANDS` alone, and ``twosat-formal NAME ...`` imports only the module that
defines ``NAME``; so start-up costs Typer, Rich and this table, not the solver,
SciPy or the HTTP stack. This module imports nothing beyond the standard library.

Registering a new command
-------------------------
1. Write ``twosat_formal/cli/NAME_cmd.py``; import ``app`` from
   :mod:`twosat_formal.cli.app` and decorate the command with
   ``@app.command("NAME")``. Import heavy modules (SciPy, Z3, PySAT, aiohttp,
   matplotlib, networkx) in the module or in the function body, never in
   ``twosat_formal/cli/__init__.py`` or ``app.py``.
2. Add one row to :data:`COMMANDS`, where it belongs in pipeline order::

       Command("NAME", "twosat_formal.cli.NAME_cmd", "First line of the docstring.")

   The help text is the first paragraph of the command's docstring, word for word;
   ``tests/cli/test_cli_commands.py`` checks that and that every command the modules
   register has a row (a command missing from the table is not reachable).

Examples
--------
>>> COMMANDS["solve"].module
'twosat_formal.cli.solve_cmd'
>>> list(COMMANDS)[:3]
['parse', 'solve', 'inspect']
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMANDS", "Command"]


class Command(NamedTuple):
    """One row of the command table.

    Attributes
    ----------
    name:
        The command as typed: ``twosat-formal NAME``.
    module:
        The module whose import registers the command on :data:`~twosat_formal.cli.app.app`.
    help:
        The one-line help ``--help`` lists (the first paragraph of the docstring).
    """

    name: str
    module: str
    help: str


_P = "twosat_formal.cli."

#: Every command in pipeline order, as ``twosat-formal --help`` lists them.
COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "parse",
            _P + "parse_cmd",
            "Parse FILE and print the formula in canonical form (DSL or DIMACS).",
        ),
        Command(
            "solve",
            _P + "solve_cmd",
            "Decide FILE (SAT or UNSAT) and print the checked certificate.",
        ),
        Command(
            "inspect",
            _P + "solve_cmd",
            "Print the implication-graph structure of a 2-CNF in FILE.",
        ),
        Command(
            "families",
            _P + "generate_cmd",
            "List the generator families with their knobs, ranges and defaults.",
        ),
        Command(
            "generate",
            _P + "generate_cmd",
            "Draw labelled instances of a family (or a named grid) as JSON Lines.",
        ),
        Command(
            "operators",
            _P + "perturb_cmd",
            "List the perturbation operators, the relation each proves, and their parameters.",
        ),
        Command(
            "perturb",
            _P + "perturb_cmd",
            "Apply a chain of proven perturbations to a formula file or a dataset.",
        ),
        Command(
            "edit",
            _P + "edit_cmd",
            "Make solver-verified symbolic edits, label-preserving or label-changing.",
        ),
        Command(
            "pairs",
            _P + "pairs_cmd",
            "Make a minimal twin of each instance: one clause changed, the opposite label.",
        ),
        Command(
            "templates",
            _P + "verbalize_cmd",
            "List the templates with an example of each: six schemes (App. G.1), four formats.",
        ),
        Command(
            "verbalize",
            _P + "verbalize_cmd",
            "Turn a formula or a dataset into evaluation prompts, each with its round-trip proof.",
        ),
        Command(
            "backparse",
            _P + "verbalize_cmd",
            "Read a template verbalization back into a formula (variables named after entities).",
        ),
        Command(
            "story-stats",
            _P + "story_cmd",
            "First-attempt validation rate and fallback rate of story records, beside the paper's.",
        ),
        Command(
            "certify",
            _P + "certify_cmd",
            "Re-check every record of a dataset; exit 1 listing each failing record.",
        ),
        Command(
            "eval",
            _P + "eval_cmd",
            "Ask models every prompt, score the answers and keep them in the run store.",
        ),
        Command(
            "results",
            _P + "eval_cmd",
            "Export one row per sample: ids, model, label, decision, failure kind, response.",
        ),
        Command(
            "store",
            _P + "store_cmd",
            "Run store tools: merge the stores of shards or machines into one.",
        ),
        Command(
            "score",
            _P + "score_cmd",
            "Score answers produced elsewhere exactly as `eval` scores its own.",
        ),
        Command(
            "batch",
            _P + "batch_cmd",
            "Batch API request files; their output goes to `score`.",
        ),
        Command(
            "trace",
            _P + "trace_cmd",
            "Check each claim of every stored answer's reasoning against the formula.",
        ),
        Command(
            "export",
            _P + "export_cmd",
            "Export a certified dataset for Hugging Face, SAT solvers, inspect or lm-eval.",
        ),
        Command(
            "experiments",
            _P + "report_cmd",
            "List the experiment protocols of the paper that `run-experiment` runs.",
        ),
        Command(
            "run-experiment",
            _P + "report_cmd",
            "Run an experiment: generate, perturb, verbalize, certify, evaluate, report.",
        ),
        Command(
            "report",
            _P + "report_cmd",
            "Write the report of a run (tables, significance tests and figures), or compare runs.",
        ),
        Command(
            "bench",
            _P + "report_cmd",
            "Run the offline benchmark: reduced Table 1 on the reference reasoners, certified.",
        ),
        Command(
            "version",
            _P + "list_cmd",
            "Print the tool version and the versions of the solvers it uses.",
        ),
    )
}
