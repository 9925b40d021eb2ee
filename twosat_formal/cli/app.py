"""The Typer application and the entry point that turns user errors into exit code 2.

Exit codes (:mod:`twosat_formal.errors`): 0 success, 1 a check that failed, 2 bad usage
or input, 3 model requests that failed, 130 Ctrl-C, 143 ``SIGTERM``. An error carries
its own code (:attr:`~twosat_formal.errors.TwoSatFormalError.exit_code`). ``SIGTERM``
stops a command as Ctrl-C does (:func:`terminate_as_interrupt`): no partial output,
workers ended, an ``eval`` run stored as ``interrupted``.

Command modules (``twosat_formal/cli/*_cmd.py``) register their commands on
:data:`app`; the root group (:class:`LazyCommandGroup`) imports a command's module only
when that command runs, from the table in :mod:`twosat_formal.cli.commands`. No logic
lives in the CLI beyond argument handling and printing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import import_module
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from twosat_formal.cli.commands import COMMANDS
from twosat_formal.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, TwoSatFormalError

if TYPE_CHECKING:  # Rich is imported when a console is first used (see __getattr__)
    from rich.console import Console

    out_console: Console
    err_console: Console

__all__ = [
    "App",
    "LazyCommandGroup",
    "app",
    "console",
    "err_console",
    "fail",
    "main",
    "out_console",
    "stopped",
    "sub_app",
    "terminate_as_interrupt",
]


class LazyCommandGroup(TyperGroup):
    """The root command: lists :data:`COMMANDS` and imports a command's module on use.

    ``--help`` formats the list from the table alone; :meth:`get_command` imports the
    one module that registers the command asked for (see :mod:`twosat_formal.cli.commands`
    for how to add one). Commands registered on :data:`app` but missing from the table
    are listed after the table's, by name.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        extra = sorted(name for name in super().list_commands(ctx) if name not in COMMANDS)
        return [*COMMANDS, *extra]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in COMMANDS:
            return _load(cmd_name)
        if command is None:
            return None
        from twosat_formal.cli.metavars import tidy
        from twosat_formal.cli.outputs import guard_outputs

        return guard_outputs(tidy(command))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in COMMANDS:
                # Shortened exactly as Click shortens a docstring, without the import.
                short = TyperCommand(name, help=COMMANDS[name].help).get_short_help_str(limit)
            else:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                short = command.get_short_help_str(limit)
            rows.append((name, short))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


#: Commands converted to Click on first use, by name.
_LOADED: dict[str, Any] = {}


def _load(name: str) -> Any:
    """Import the module of command ``name`` and return it as a Click command.

    The command gets the common look (:func:`~twosat_formal.cli.metavars.tidy`) and
    refuses an output that is one of its inputs
    (:func:`~twosat_formal.cli.outputs.guard_outputs`).
    """
    from twosat_formal.cli.metavars import tidy
    from twosat_formal.cli.outputs import guard_outputs

    if name not in _LOADED:
        import_module(COMMANDS[name].module)
        _LOADED[name] = guard_outputs(tidy(_click_command(name)))
    return _LOADED[name]


def _click_command(name: str) -> Any:
    """The Click command ``name`` registered on ``app``: a command, or a command with
    subcommands (``batch``)."""
    for info in app.registered_commands:
        callback_name = info.callback.__name__ if info.callback else ""
        if (info.name or callback_name.replace("_", "-")) == name:
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group in app.registered_groups:
        if group.name == name:
            return typer.main.get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise LookupError(f"{COMMANDS[name].module} does not register the command {name!r}")


class App(typer.Typer):
    """A Typer application whose commands are of :class:`~twosat_formal.cli.metavars.Command`.

    Only the default of Typer's public ``cls`` changes; a command may still name its own.
    """

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[Any], Any]:
        """Typer's :meth:`typer.Typer.command`, with :class:`Command` as the default ``cls``."""
        from twosat_formal.cli.metavars import Command

        return super().command(name, cls=cls or Command, **kwargs)


app = App(
    cls=LazyCommandGroup,
    name="twosat-formal",
    help="Certified diagnostic 2-SAT benchmarks for LLM reasoners.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from twosat_formal.core.provenance import tool_version

        typer.echo(f"twosat-formal {tool_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_print_version,
        help="Print the version and exit (`version` also lists the solvers').",
    ),
) -> None:
    """Certified diagnostic 2-SAT benchmarks for LLM reasoners."""


def __getattr__(name: str) -> Any:
    """``from twosat_formal.cli.app import out_console`` makes the console then."""
    if name in ("out_console", "err_console"):
        return console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The consoles for results (stdout) and for messages, progress and errors (stderr),
#: made on first use by :func:`console`.
_CONSOLES: dict[str, Console] = {}


def console(name: str) -> Console:
    """``"out_console"`` or ``"err_console"``, made (and Rich imported) on first use."""
    if name not in _CONSOLES:
        from rich.console import Console

        _CONSOLES[name] = Console(stderr=name == "err_console", highlight=False, soft_wrap=True)
    return _CONSOLES[name]


def sub_app(name: str, help: str) -> typer.Typer:
    """A command group ``twosat-formal NAME ...`` (``batch``, ``store``), registered on ``app``."""
    group = App(
        name=name,
        help=help,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
    )
    app.add_typer(group, name=name)
    return group


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    console("err_console").print(f"error: {message}", markup=False)
    raise SystemExit(code)


#: Whether ``SIGTERM`` stopped the running command (exit code 143, not Ctrl-C's 130).
_terminated = False


def _on_sigterm(signum: int, frame: Any) -> None:
    """``SIGTERM``: do what Ctrl-C does (Python's handler, or ``asyncio.run``'s, which
    cancels the running evaluation so that it stores what it has)."""
    global _terminated
    _terminated = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # Ctrl-C ignored (a background job): SIGTERM still stops the command
        raise KeyboardInterrupt


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, ``SIGTERM`` stops the command as Ctrl-C does.

    Only in the main thread, and only where ``SIGTERM`` has its default action (an
    ignored ``SIGTERM`` stays ignored); the previous handler comes back after.
    """
    global _terminated
    _terminated = False
    main_thread = threading.current_thread() is threading.main_thread()
    if not main_thread or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped() -> NoReturn:
    """End a command that Ctrl-C (exit code 130) or ``SIGTERM`` (143) stopped.

    Prints ``interrupted`` or ``terminated`` on stderr; a command that caught the
    interruption itself, to store what it had (``eval``), ends through here too.
    """
    console("err_console").print("terminated" if _terminated else "interrupted", markup=False)
    raise SystemExit(EXIT_TERMINATED if _terminated else EXIT_INTERRUPTED)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; user errors print one line on stderr and exit with code 2.

    Unless the environment says otherwise, NumPy's and SciPy's OpenBLAS run one thread:
    no command does dense linear algebra, and starting their thread pools cost each
    process about 0.1 s of CPU (set before a command imports NumPy).
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with terminate_as_interrupt():
        _finish(
            lambda: _root_command().main(
                args=list(argv) if argv is not None else None,
                prog_name="twosat-formal",
                standalone_mode=False,
            )
        )


#: The root Click group, by how many commands and groups ``app`` had when it was built.
_ROOT: dict[tuple[int, int], Any] = {}


def _root_command() -> Any:
    """The root Click group of :data:`app`, built once for the commands registered.

    A process that runs :func:`main` again (a test, a notebook) reuses it: converting
    every registered command to Click costs about 20 ms each time. A command registered
    later builds it again.
    """
    key = (len(app.registered_commands), len(app.registered_groups))
    if key not in _ROOT:
        _ROOT.clear()
        _ROOT[key] = typer.main.get_command(app)
    return _ROOT[key]


def _finish(run: Callable[[], Any]) -> NoReturn:
    """Call ``run`` and exit with its code; user errors as one line and exit code 2."""
    try:
        result = run()
    except (typer.Abort, KeyboardInterrupt):
        stopped()
    except typer.TyperException as exc:  # usage errors: one line, exit code 2
        _usage_error(exc)
    except TwoSatFormalError as exc:
        fail(str(exc), exc.exit_code)
    except (OSError, UnicodeDecodeError) as exc:
        fail(_describe_os_error(exc))
    if result == EXIT_INTERRUPTED:  # Typer's answer to KeyboardInterrupt: Ctrl-C or SIGTERM
        stopped()
    sys.exit(result if isinstance(result, int) else 0)


def _usage_error(exc: Exception) -> NoReturn:
    """Exit on a usage error: the help text a bare command asks for, else one line."""
    show = getattr(exc, "show", None)
    if type(exc).__name__.startswith("NoArgsIsHelp") and callable(show):
        show()  # the help text a bare command asks for
        raise SystemExit(getattr(exc, "exit_code", 2)) from None
    format_message = getattr(exc, "format_message", None)
    message = format_message() if callable(format_message) else str(exc)
    # Typer checks choices through pydantic, whose message leads with its error class
    message = message.replace(": Value error, ", ": ", 1)
    context = getattr(exc, "ctx", None)
    hint = f" (see '{context.command_path} --help')" if context is not None else ""
    console("err_console").print(f"error: {message}{hint}", markup=False)
    raise SystemExit(getattr(exc, "exit_code", 2)) from None


def _describe_os_error(exc: BaseException) -> str:
    """One line for an error of the file system or of decoding: the file's name and what
    went wrong, worded as the readers word it
    (:func:`~twosat_formal.io.inputs.os_error_reason`); ``-`` missing is ``-`` given
    where no input takes it (a missing folder of an output is a
    :class:`~twosat_formal.errors.MissingFolderError`, which says so)."""
    from twosat_formal.io.inputs import os_error_reason

    if isinstance(exc, UnicodeDecodeError):
        return f"input is not UTF-8 text (byte {exc.start})"
    if not isinstance(exc, OSError) or not exc.filename:
        return str(exc)
    if isinstance(exc, FileNotFoundError) and exc.filename == "-":
        return "-: this input is not read from standard input: give a file"
    return f"{exc.filename}: {os_error_reason(exc) or exc.strerror or exc}"
