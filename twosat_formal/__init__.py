"""twosat-formal: certified diagnostic 2-SAT benchmarks for LLM reasoners.

Importing the package is cheap: :class:`Formula`, :class:`Clause` and
:class:`Literal` (and with them NumPy) load on first use, and no solver, SciPy or
HTTP module is imported until a function that needs it runs.

The pipeline is offered in a few names (:mod:`twosat_formal.api`): ``parse``,
``solve``, ``generate``, ``perturb``, ``verbalize``, ``certify``, ``evaluate`` (and
``evaluate_async``), ``score`` and ``report``. Where a name is also a subpackage
(``twosat_formal.solve``...), the subpackage is callable and calls the function, so
``tf.solve(formula)`` works whichever was imported first, and
``import twosat_formal.solve`` still gives the module.

>>> from twosat_formal import Formula
>>> Formula.from_named([["a", "b"], ["~a"]]).evaluate({"a": False, "b": True})
True
>>> import twosat_formal as tf
>>> tf.solve(tf.parse("a | b\\n~a")).status
'SAT'
"""

import importlib
import sys
import types
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
    from twosat_formal.api import (
        certify,
        evaluate,
        evaluate_async,
        generate,
        parse,
        perturb,
        report,
        score,
        solve,
        verbalize,
    )
    from twosat_formal.core.formula import Clause, Formula, Literal

from twosat_formal._version import __version__

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
    "certify",
    "evaluate",
    "evaluate_async",
    "generate",
    "parse",
    "perturb",
    "report",
    "score",
    "solve",
    "verbalize",
]


_LAZY = {"Clause", "Formula", "Literal"}

#: The pipeline's names, the functions of :mod:`twosat_formal.api` (listed here, where
#: importing costs nothing; the api module offers them as ``NAMES``).
_API = (
    "parse",
    "solve",
    "generate",
    "perturb",
    "verbalize",
    "certify",
    "evaluate",
    "evaluate_async",
    "score",
    "report",
)


class _CallableModule(types.ModuleType):
    """A subpackage named like a pipeline function: calling it calls the function."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call :mod:`twosat_formal.api`'s function of this name."""
        api = importlib.import_module("twosat_formal.api")
        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)


class _Package(types.ModuleType):
    """This package: a subpackage named like a pipeline function is made callable."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (
            name in _API
            and isinstance(value, types.ModuleType)
            and type(value) is types.ModuleType
            and value.__name__ == f"{__name__}.{name}"
        ):
            value.__class__ = _CallableModule
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """Load :mod:`twosat_formal.core.formula`'s classes (and NumPy) on first use, and the
    pipeline's functions (:mod:`twosat_formal.api`)."""
    if name in _LAZY:
        from twosat_formal.core import formula

        return getattr(formula, name)
    if name in _API:
        try:  # a subpackage of that name (made callable when imported), else the function
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
        return getattr(importlib.import_module(f"{__name__}.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
