"""Files shipped with the package: grammars and data.

The grammars live in the top-level ``grammar/`` folder of a checkout and are copied to
``twosat_formal/grammar/`` inside the wheel; :func:`grammar_text` finds either.

>>> "start" in grammar_text("formula.lark") or True
True
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["data_text", "grammar_text"]


@cache
def _package() -> Path:
    """The package's folder, found on first use (not at import: a command that reads no
    grammar or data file pays nothing for it)."""
    return Path(__file__).resolve().parents[1]


@cache
def grammar_text(name: str) -> str:
    """The text of grammar file ``name`` (e.g. ``"dimacs.lark"``)."""
    packaged = _package() / "grammar" / name
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    return (_package().parent / "grammar" / name).read_text(encoding="utf-8")


@cache
def data_text(name: str) -> str:
    """The text of data file ``name`` shipped in ``twosat_formal/data/``.

    Read beside the package's own files, as the grammars are: an editable install can
    make ``importlib.resources`` see the package in several folders at once.
    """
    return (_package() / "data" / name).read_text(encoding="utf-8")
