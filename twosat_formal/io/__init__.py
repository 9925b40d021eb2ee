"""Reading and writing formulas: DIMACS CNF and the human-readable DSL.

Both formats have a Lark grammar of record in ``grammar/``; DIMACS is read by one
compiled recogniser that the tests hold to its grammar. Every malformed input raises
:class:`~twosat_formal.errors.ParseError` with its line, column and source.

>>> from twosat_formal.io import parse_dsl, write_dsl
>>> f = parse_formula("rain -> wet\\nrain")
>>> print(write_dimacs(f).split("\\n", 1)[1], end="")
c var 1 rain
c var 2 wet
p cnf 2 2
-1 2 0
1 0
>>> parse_formula(write_dimacs(f)) == f and parse_dsl(write_dsl(f)) == f
True
"""

from typing import TYPE_CHECKING, Any

from twosat_formal.io.detect import detect_format, parse_formula, parse_reading, read_formula
from twosat_formal.io.dimacs import parse_dimacs, write_dimacs

if TYPE_CHECKING:
    from twosat_formal.io.dsl import parse_dsl, write_dsl

__all__ = [
    "detect_format",
    "parse_dimacs",
    "parse_dsl",
    "parse_formula",
    "parse_reading",
    "read_formula",
    "write_dimacs",
    "write_dsl",
]


def __getattr__(name: str) -> Any:
    """The DSL reader and writer, loaded (with Lark) on first use: DIMACS needs neither."""
    if name in ("parse_dsl", "write_dsl"):
        from twosat_formal.io import dsl

        return getattr(dsl, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
