"""One look for every command's ``--help``: metavars in capitals, no Python types.

Typer prints a parameter's Python type as its metavar (``<list[str]>``,
``<int range>``, ``<path>``) and wraps arguments in braces (``{file}``). :func:`tidy`
rewrites the parameters of a loaded command once, so that every command reads alike:

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

from typer.core import TyperArgument, TyperOption

__all__ = ["metavar_of", "plain", "tidy"]


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
    if annotation is bool:
        return "BOOL"
    if annotation is int:
        return "N"
    if annotation is float:
        return "X"
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return "FILE"
    longest = max(opts, key=len).lstrip("-")
    return longest.rsplit("-", 1)[-1].upper()


def _option_metavar(option: TyperOption) -> str:
    descriptor = option.type_descriptor
    choices = descriptor.choices if descriptor.is_choice else None
    return metavar_of(option.opts, option.metavar, descriptor.annotation, choices)


class _Option(TyperOption):
    """A Typer option whose value shows as its metavar alone."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return self.metavar

    def display_type(self, ctx: Any) -> str:
        return self.metavar or ""


class _Argument(TyperArgument):
    """A Typer argument shown by its name in capitals, with no type after it."""

    def _name(self) -> str:
        name = (self.metavar or self.name or "ARG").upper()
        return name + ("..." if self.nargs != 1 and not name.endswith("...") else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        return self._name()

    def _usage_display_name(self) -> str:
        return self._name() if self.required else f"[{self._name()}]"


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
            param.__class__ = _Option
        elif isinstance(param, TyperArgument):
            param.metavar = (param.metavar or param.name or "ARG").upper().removesuffix("...")
            param.__class__ = _Argument
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
    return command
