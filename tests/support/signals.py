"""Children that a test stops with a signal start with the signal's default action.

A test suite launched from a background job runs with Ctrl-C ignored (the shell sets
``SIGINT`` to ``SIG_IGN`` for it, and children inherit an ignored signal): a child
sent ``SIGINT`` there would never stop. Each such test passes
:func:`default_signals` as its child's ``preexec_fn``.
"""

from __future__ import annotations

import signal

__all__ = ["default_signals"]


def default_signals() -> None:
    """In the child, before it runs: ``SIGINT`` and ``SIGTERM`` at their default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
