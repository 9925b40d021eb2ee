"""Every command refuses an output that is one of its inputs, before it runs.

A command's outputs are its ``--out``, ``--output``, ``--store`` and ``--graph`` options
(:data:`OUTPUT_OPTIONS`); its inputs are every
other parameter whose value is a path (or a list of paths), and every argument that
names an existing file or is ``-`` (standard input: ``pairs - --out d.jsonl <
d.jsonl`` is refused too), but for
the registry names of :data:`NAMES`. :func:`guard_outputs` wraps a loaded command so
that ``trace runs.sqlite --out runs.sqlite``, ``eval d.jsonl --store d.jsonl`` or
``certify d.jsonl --output d.jsonl`` stop
with exit code 2 and one line naming both, and nothing is read or written
(:func:`twosat_formal._util.atomic.refuse_aliases` says when two paths alias). A
parameter of several paths (``certify DATASET...``, ``export INPUT...``, ``store merge
STORE...``, ``report STORE_OR_DIR...``) refuses one file given twice the same way
(``certify d.jsonl ./d.jsonl``, a link and what it names), since its records would
count twice (:func:`twosat_formal._util.atomic.refuse_repeats`). And ``-`` given to two
inputs (``eval - --dataset -``) is refused, since standard input is read once
(:func:`twosat_formal.io.jsonl.refuse_shared_stdin`): every command that reads two
inputs has an output, so the guard wraps it.

Examples
--------
>>> import click
>>> from pathlib import Path
>>> from twosat_formal.errors import ConfigError
>>> @click.command()
... @click.argument("source", type=click.Path(path_type=Path))
... @click.option("--out", type=click.Path(path_type=Path))
... def copy(source: Path, out: Path) -> None:
...     print("copied")
>>> command = guard_outputs(copy)
>>> command.main(["a.jsonl", "--out", "b.jsonl"], standalone_mode=False)
copied
>>> try:
...     command.main(["a.jsonl", "--out", "a.jsonl"], standalone_mode=False)
... except ConfigError as error:
...     print(error)
--out a.jsonl is the input a.jsonl (SOURCE); write to another file
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

__all__ = ["NAMES", "OUTPUT_OPTIONS", "guard_outputs"]

#: The options whose path a command writes (every one: an option that writes a path
#: and is missing here would replace an input unchecked).
OUTPUT_OPTIONS = frozenset({"--out", "--output", "--store", "--graph"})
#: Arguments that are registry names, never files (``generate FAMILY``).
NAMES = frozenset({"family"})
#: What a parameter of several paths names, in messages (else its name, singular).
_NOUNS = {"sources": "run"}


def _paths(value: Any) -> list[PurePath] | None:
    """``value`` as a list of paths, or None when it holds none."""
    if isinstance(value, PurePath):
        return [value]
    if isinstance(value, list | tuple) and value and all(isinstance(v, PurePath) for v in value):
        return list(value)
    return None


def _shown(param: Any) -> str:
    """How a parameter is named in messages: ``INPUT`` for an argument, else ``--prompts``."""
    if param.param_type_name == "argument":
        return str(param.metavar or param.name).upper().removesuffix("...")
    return str(max(param.opts, key=len))


def _inputs(
    kwargs: dict[str, Any], outputs: list[str], arguments: set[str], shown: dict[str, str]
) -> dict[str, list[PurePath]]:
    """The input paths of a call, by the name its parameter shows: paths of options, and
    of string arguments that name a file (or ``-``)."""
    inputs: dict[str, list[PurePath]] = {}
    for name, value in kwargs.items():
        if name in outputs:
            continue
        paths = _paths(value)
        if paths is None and name in arguments and isinstance(value, str):
            paths = [Path(value)] if value == "-" or os.path.isfile(value) else None
        if paths is not None:
            inputs[shown.get(name, name)] = paths
    return inputs


def _stdin(paths: list[PurePath]) -> PurePath | None:
    """The ``-`` among ``paths`` (standard input), if one is."""
    return next((path for path in paths if os.fspath(path) == "-"), None)


def guard_outputs(command: Any) -> Any:
    """Make ``command`` (and its subcommands) refuse an output that aliases an input,
    a file given twice to one parameter, and standard input given to two inputs."""
    for sub in getattr(command, "commands", {}).values():
        guard_outputs(sub)
    callback = getattr(command, "callback", None)
    if callback is not None and not getattr(callback, "_guarded", False):
        _guard(command, callback)
    return command


def _repeated(kwargs: dict[str, Any], lists: list[str]) -> None:
    """Refuse a file given twice to a parameter that takes several (``certify d.jsonl
    ./d.jsonl``): each is named once (:func:`~twosat_formal._util.atomic.refuse_repeats`)."""
    from twosat_formal._util.atomic import refuse_repeats

    for name in lists:
        paths = _paths(kwargs.get(name))
        if paths is not None:
            refuse_repeats(paths, noun=_NOUNS.get(name, name.removesuffix("s")), parameter=name)


def _parameters(command: Any) -> tuple[list[str], list[str], set[str]]:
    """The names of a command's output options, of its parameters of several values,
    and of its arguments (but registry names)."""
    params = command.params
    outputs = [p.name for p in params if OUTPUT_OPTIONS & set(p.opts)]
    lists = [p.name for p in params if getattr(p, "multiple", False) or p.nargs == -1]
    arguments = {p.name for p in params if p.param_type_name == "argument" and p.name not in NAMES}
    return outputs, lists, arguments


def _guard(command: Any, callback: Callable[..., Any]) -> None:
    """Wrap the ``callback`` of a command that has an output option, or a parameter of
    several paths, in the checks."""
    outputs, lists, arguments = _parameters(command)
    if not outputs and not lists:
        return
    shown = {p.name: _shown(p) for p in command.params}

    @functools.wraps(callback)
    def checked(*args: Any, **kwargs: Any) -> Any:
        # imported here: a command without an output (``solve``) starts without them
        from twosat_formal._util.atomic import refuse_aliases
        from twosat_formal.io.jsonl import refuse_shared_stdin

        _repeated(kwargs, lists)
        inputs = _inputs(kwargs, outputs, arguments, shown)
        # in the order of the command's parameters, as its usage line shows them
        refuse_shared_stdin(
            {name: _stdin(inputs[name]) for name in shown.values() if name in inputs}
        )
        refuse_aliases({name: kwargs.get(name) for name in outputs}, inputs)
        return callback(*args, **kwargs)

    checked._guarded = True  # type: ignore[attr-defined]
    command.callback = checked
