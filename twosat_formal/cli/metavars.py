"""One look for every command's ``--help``: metavars in capitals, no Python types.

Typer prints a parameter's Python type as its metavar (``<list[str]>``,
``<int range>``, ``<path>``) and wraps arguments in braces (``{file}``). :func:`tidy`
sets the public ``metavar`` and ``help`` of a loaded command's parameters once, and
:class:`Command` (each command's class, given through Typer's public ``cls``) writes
the arguments, so that every command reads alike:

* an option's value is a word in capitals: its declared metavar (``SPEC``), else
  ``N`` for whole numbers, ``X`` for other numbers, ``FILE`` for paths, ``A|B`` for a
  choice, and otherwise the last word of the option's name (``--base-url URL``);
* an argument is its metavar or its name in capitals (``PROMPTS``), ``NAME...`` when
  it takes several, ``[NAME]`` when it is optional; no type follows it.

Examples
--------
>>> metavar_of(["--max-tokens"], annotation=int), metavar_of(["--base-url"])
('N', 'URL')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, get_args, get_origin

from typer.core import TyperArgument, TyperCommand, TyperOption

__all__ = ["Command", "argument_name", "metavar_of", "plain", "tidy"]

#: The metavar of an option's value, by its type (paths are ``FILE``).
_TYPE_METAVARS: dict[Any, str] = {bool: "BOOL", int: "N", float: "X"}


def metavar_of(
    opts: Sequence[str],
    declared: str | None = None,
    annotation: Any = str,
    choices: Sequence[Any] | None = None,
) -> str:
    """The metavar of an option named ``opts``: ``declared`` (in capitals), or derived
    from its ``choices`` or its type ``annotation`` (that of one value when repeatable).

    >>> from pathlib import Path
    >>> metavar_of(["--max-tokens"], annotation=int), metavar_of(["-o", "--out"], None, Path)
    ('N', 'FILE')
    >>> metavar_of(["--to"], choices=["dsl", "dimacs"]), metavar_of(["--base-url"])
    ('dsl|dimacs', 'URL')
    >>> metavar_of(["--model"], "spec", list[str])
    'SPEC'
    """
    if declared:
        return declared if "|" in declared else declared.upper()
    if choices:
        return "|".join(str(getattr(choice, "value", choice)) for choice in choices)
    while get_origin(annotation) in (list, tuple):
        annotation = get_args(annotation)[0]
    if annotation in _TYPE_METAVARS:
        return _TYPE_METAVARS[annotation]
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return "FILE"
    longest = max(opts, key=len).lstrip("-")
    return longest.rsplit("-", 1)[-1].upper()


def _option_metavar(option: TyperOption) -> str:
    descriptor = option.type_descriptor
    choices = descriptor.choices if descriptor.is_choice else None
    return metavar_of(option.opts, option.metavar, descriptor.annotation, choices)


def argument_name(argument: TyperArgument) -> str:
    """How ``argument`` shows in help: its metavar or name in capitals, ``...`` if several."""
    name = (argument.metavar or argument.name or "ARG").upper().removesuffix("...")
    return name + ("..." if argument.nargs != 1 else "")


class Command(TyperCommand):
    """A Typer command whose arguments show by name alone, in usage and in help.

    Typer writes a required argument as ``{NAME}`` in the usage line and follows its
    name with its Python type (``FILE <path>``); this class overrides Click's public
    :meth:`collect_usage_pieces` and :meth:`format_options` to write ``NAME``,
    ``[NAME]`` when optional and ``NAME...`` when it takes several. It is given to
    every command through Typer's ``cls`` (:class:`~twosat_formal.cli.app.App`).
    """

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """``[OPTIONS]`` and each argument as :func:`argument_name` writes it."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def help_rows(self, ctx: Any) -> list[tuple[Any, str, str]]:
        """Each parameter shown in help, with its left column and its help text."""
        rows = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            shown = argument_name(param) if isinstance(param, TyperArgument) else record[0]
            rows.append((param, shown, record[1]))
        return rows

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The ``Arguments`` section, then the ``Options`` section."""
        rows = self.help_rows(ctx)
        for title, kind in (("Arguments", TyperArgument), ("Options", TyperOption)):
            section = [(shown, text) for param, shown, text in rows if isinstance(param, kind)]
            if section:
                with formatter.section(title):
                    formatter.write_dl(section)


def plain(text: str | None) -> str | None:
    """Help text as a terminal shows it: reST literals (````x````) as plain backticks.

    >>> plain("unless ``--no-verify``.")
    'unless `--no-verify`.'
    """
    return text.replace("``", "`") if text else text


def tidy(command: Any) -> Any:
    """Give every parameter of ``command`` (and of its subcommands) the common look."""
    command.help = plain(getattr(command, "help", None))
    command.short_help = plain(getattr(command, "short_help", None))
    for param in getattr(command, "params", ()):
        if getattr(param, "help", None):
            param.help = plain(param.help)
        if isinstance(param, TyperOption) and not param.is_flag and not param.count:
            param.metavar = _option_metavar(param)
        elif isinstance(param, TyperArgument):
            param.metavar = argument_name(param).removesuffix("...")
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
    return command
