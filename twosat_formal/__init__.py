"""twosat-formal: certified diagnostic 2-SAT benchmarks for LLM reasoners.

Importing the package is cheap: :class:`Formula`, :class:`Clause` and
:class:`Literal` (and with them NumPy) load on first use, and no solver, SciPy or
HTTP module is imported until a function that needs it runs.

>>> from twosat_formal import Formula
>>> Formula.from_named([["a", "b"], ["~a"]]).evaluate({"a": False, "b": True})
True
"""

from typing import TYPE_CHECKING, Any

from twosat_formal.errors import (
    CertificateError,
    ConfigError,
    NotTwoCNFError,
    ParseError,
    ProofError,
    TwoSatFormalError,
)

if TYPE_CHECKING:
    from twosat_formal.formula import Clause, Formula, Literal

__version__ = "0.1.0"

__all__ = [
    "CertificateError",
    "Clause",
    "ConfigError",
    "Formula",
    "Literal",
    "NotTwoCNFError",
    "ParseError",
    "ProofError",
    "TwoSatFormalError",
    "__version__",
]


_LAZY = {"Clause", "Formula", "Literal"}


def __getattr__(name: str) -> Any:
    """Load :mod:`twosat_formal.formula`'s classes (and NumPy) on first use."""
    if name in _LAZY:
        from twosat_formal import formula

        return getattr(formula, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
