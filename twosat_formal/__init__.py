"""twosat-formal: certified diagnostic 2-SAT benchmarks for LLM reasoners.

>>> from twosat_formal import Formula
>>> Formula.from_named([["a", "b"], ["~a"]]).evaluate({"a": False, "b": True})
True
"""

from twosat_formal.errors import (
    CertificateError,
    ConfigError,
    NotTwoCNFError,
    ParseError,
    ProofError,
    TwoSatFormalError,
)
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
