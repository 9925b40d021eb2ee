"""Children that a test stops with a signal start with the signal's default action.

A test suite launched from a background job runs with Ctrl-C ignored (the shell sets
``SIGINT`` to ``SIG_IGN`` for it, and children inherit an ignored signal): a child
sent ``SIGINT`` there would never stop. Each such test passes
:func:`default_signals` as its child's ``preexec_fn``.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence

__all__ = ["default_signals", "spawn"]


def default_signals() -> None:
    """In the child, before it runs: ``SIGINT`` and ``SIGTERM`` at their default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def spawn(
    command: Sequence[str],
    *,
    start: Callable[[], None] | None = None,
    env: Mapping[str, str] | None = None,
    new_session: bool = False,
) -> subprocess.Popen[str]:
    """Start ``command`` with text pipes for its output, to be stopped by a signal.

    ``start`` runs in the child before it execs (default :func:`default_signals`);
    ``env`` is its whole environment (default: this one's); ``new_session`` starts it
    as the leader of a new session, so that a signal to its group reaches only it and
    its children.
    """
    return subprocess.Popen(
        list(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=None if env is None else dict(env),
        start_new_session=new_session,
        preexec_fn=default_signals if start is None else start,
    )
