"""The formula model: immutable literals, clauses and CNF formulas.

Inside, a literal is a non-zero int in the DIMACS convention (``v`` or ``-v`` for
variable ``v >= 1``); outside, variables have names from the formula's name table
(``x1``, ``x2``, ... unless told otherwise). A :class:`Formula` keeps its clauses in
order, duplicates included, as two read-only numpy arrays (a flat literal array and
clause offsets), so that million-clause formulas stay cheap; :attr:`Formula.clauses`
materialises :class:`Clause` tuples on demand.

Examples
--------
>>> f = Formula.from_named([["a", "~b"], ["b"]])
>>> f.num_vars, f.num_clauses, f.is_2cnf
(2, 2, True)
>>> f.clauses
(Clause(1, -2), Clause(2))
>>> f.literal_name(-2)
'~b'
>>> f.evaluate({"a": True, "b": True})
True
>>> f.evaluate([False, True])
False
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate, chain, pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from twosat_formal._util.lazy import cached_property
from twosat_formal.errors import (
    ArgumentTypeError,
    ConfigError,
    NotTwoCNFError,
    expect_items,
    expect_type,
)

__all__ = [
    "KEYWORDS",
    "MAX_SIZE",
    "NAME_PATTERN",
    "Assignment",
    "Clause",
    "Formula",
    "Literal",
    "default_name",
    "default_var",
    "is_valid_name",
    "take_clauses",
]

#: A variable name: an identifier that the DSL can print and read back.
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Words of the DSL that cannot be variable names.
KEYWORDS = frozenset({"not", "or", "and", "vars"})
#: The most variables, clauses, instances or steps any size parameter may ask for
#: (a generator's ``--clauses``, ``--set n=``, ``--count``, an operator's ``count``,
#: a DIMACS header): more is refused as an absurd number, before anything is sized.
MAX_SIZE = 10_000_000

#: An assignment: ``{var_or_name: bool}`` or a sequence of bools indexed by ``var - 1``.
Assignment = Mapping[int, bool] | Mapping[str, bool] | Sequence[bool]


def default_name(var: int) -> str:
    """The name variable ``var`` gets when nobody names it.

    >>> default_name(7)
    'x7'
    """
    return f"x{var}"


def default_var(name: str) -> int | None:
    """The variable whose default name is ``name``, if any.

    A number of more than 18 digits is no variable's (none has one, and Python will not
    convert more than 4,300 digits), so its name is no default name.

    >>> default_var("x7"), default_var("x07"), default_var("a"), default_var("x" + "9" * 5000)
    (7, None, None, None)
    """
    digits = name[1:]
    if (
        name[:1] == "x"
        and 0 < len(digits) <= 18
        and digits.isascii()
        and digits.isdigit()
        and digits[0] != "0"
    ):
        return int(digits)
    return None


def is_valid_name(name: str) -> bool:
    """Whether ``name`` may name a variable (an identifier that is not a DSL keyword).

    >>> is_valid_name("door_3"), is_valid_name("not"), is_valid_name("3x")
    (True, False, False)
    """
    return bool(NAME_PATTERN.match(name)) and name not in KEYWORDS


#: What a literal may be, as messages say it.
_LITERAL = "an int (not a bool)"
#: What a clause may be, as messages say it.
_CLAUSE = "an iterable of int literals (not a str)"


def _int_literal(value: object) -> int:
    """``value`` as a literal's int: an int or NumPy integer, not a bool, a float or a str.

    Raises
    ------
    ArgumentTypeError
        ``value`` is not an integer, or is a bool.
    """
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise ArgumentTypeError(
            f"a literal must be {_LITERAL}, not {type(value).__name__}",
            parameter="literal",
            valid=_LITERAL,
        )
    return operator.index(value)  # type: ignore[arg-type]


def _named(value: object, parameter: str, what: str) -> str:
    """``value``, a name (or named literal) of :meth:`Formula.from_named`: a str."""
    expect_type(value, str, parameter=parameter, valid="a str", what=what)
    return value  # type: ignore[return-value]  # a str: expect_type refused the rest


def _int_row(clause: object) -> tuple[int, ...]:
    """One clause's literals as ints, each checked by :func:`_int_literal`.

    The common case (every literal an int) costs two passes in C: the conversion
    and a look for a bool; any other item is found again, to name it.
    """
    items = expect_items(clause, parameter="clause", valid=_CLAUSE)
    try:
        row = tuple(map(operator.index, items))
    except TypeError:
        row = tuple(map(_int_literal, items))  # raises, naming the item
    if bool in map(type, items):
        row = tuple(map(_int_literal, items))  # raises, naming the bool
    return row


def _int_rows(clauses: object) -> Sequence[Sequence[int]]:
    """Every clause's literals as ints, each clause checked as :func:`_int_row` does.

    The common case (lists or tuples of Python ints) is checked by the types found,
    in a few passes in C, and its clauses are kept as given; any other is checked
    clause by clause, which names what is wrong.
    """
    listed = expect_items(clauses, parameter="clauses", valid="an iterable of clauses")
    kinds = set(map(type, listed))
    if kinds <= _PLAIN_ROWS or all(issubclass(kind, list | tuple) for kind in kinds):
        kinds = set(map(type, chain.from_iterable(listed)))
        if kinds <= _PLAIN_INTS or all(_is_int_type(kind) for kind in kinds):
            return listed  # lists or tuples of ints: checked
    return list(map(_int_row, listed))


#: The clause and literal types of the common case, checked at once.
_PLAIN_ROWS = frozenset({list, tuple})
_PLAIN_INTS = frozenset({int})


def _is_int_type(kind: type) -> bool:
    """Whether items of type ``kind`` are ints (a bool is none)."""
    return issubclass(kind, int) and not issubclass(kind, bool)


class Literal(int):
    """A literal: a non-zero int, ``v`` for the variable ``v`` and ``-v`` for its negation.

    >>> lit = Literal(-3)
    >>> lit.var, lit.positive, -lit
    (3, False, Literal(3))

    Raises
    ------
    ArgumentTypeError
        A value that is no int (a bool, a float or a str is none).
    ConfigError
        The value 0.
    """

    __slots__ = ()

    def __new__(cls, value: int) -> Literal:
        value = _int_literal(value)
        if value == 0:
            raise ConfigError("a literal cannot be 0", parameter="literal", valid="non-zero int")
        return super().__new__(cls, value)

    @classmethod
    def of(cls, var: int, positive: bool = True) -> Literal:
        """The literal of ``var`` with the given polarity."""
        return cls(var if positive else -var)

    @property
    def var(self) -> int:
        """The variable of this literal (always >= 1)."""
        return abs(int(self))

    @property
    def positive(self) -> bool:
        """True for ``v``, False for ``-v``."""
        return int(self) > 0

    def __neg__(self) -> Literal:
        return Literal(-int(self))

    def __repr__(self) -> str:
        return f"Literal({int(self)})"


class Clause(tuple[int, ...]):
    """A disjunction of literals, in the order given (duplicates kept).

    >>> c = Clause((-1, 2))
    >>> c.width, c.variables, c.is_tautology
    (2, (1, 2), False)

    Raises
    ------
    ArgumentTypeError
        Literals that are no iterable (a str is none), or a literal that is no int.
    ConfigError
        The literal 0.
    """

    __slots__ = ()

    def __new__(cls, literals: Iterable[int] = ()) -> Clause:
        lits = _int_row(literals)
        if 0 in lits:
            raise ConfigError("a clause cannot contain the literal 0", parameter="literal")
        return super().__new__(cls, lits)

    @property
    def width(self) -> int:
        """Number of literals."""
        return len(self)

    @property
    def variables(self) -> tuple[int, ...]:
        """The variables of the literals, in order (repeats kept)."""
        return tuple(abs(lit) for lit in self)

    @property
    def is_tautology(self) -> bool:
        """Whether the clause holds a literal and its negation."""
        lits = set(self)
        return any(-lit in lits for lit in lits)

    def __repr__(self) -> str:
        return f"Clause({', '.join(str(lit) for lit in self)})"


IntArray = npt.NDArray[np.int64]
#: A name table: one name per variable, some variables' names, or ``None`` (defaults).
Names = Sequence[str] | Mapping[int, str] | None


def take_clauses(lits: IntArray, offsets: IntArray, indices: IntArray) -> tuple[IntArray, IntArray]:
    """The clauses at ``indices`` (valid, in range) of a flat literal array and its offsets.

    Returns the new literal array and offsets, clause ``indices[i]`` becoming clause
    ``i``: a permutation, a subset or repeats, in one gather.

    >>> lits, offsets = take_clauses(
    ...     np.array([1, -2, 3]), np.array([0, 2, 3]), np.array([1, 0, 1])
    ... )
    >>> lits.tolist(), offsets.tolist()
    ([3, 1, -2, 3], [0, 1, 3, 4])
    """
    starts = offsets[indices]
    lengths = offsets[indices + 1] - starts
    taken = np.zeros(len(indices) + 1, dtype=np.int64)
    np.add.accumulate(lengths, out=taken[1:])  # np.cumsum, without its wrapper's cost
    gather = np.repeat(starts - taken[:-1], lengths) + np.arange(taken[-1])
    return lits[gather], taken


def _sparse_names(names: Mapping[int, str], num_vars: int) -> dict[int, str] | None:
    """Check a mapping of some variables to names; the non-default ones, by variable.

    ``None`` when every name is the default. A name must be valid and name one
    variable: not another given name, nor the default name of a variable not given.
    """
    sparse: dict[int, str] = {}
    owner: dict[str, int] = {}
    for var, name in sorted((int(v), str(n)) for v, n in names.items()):
        if not 1 <= var <= num_vars:
            raise ConfigError(f"variable {var} is not in 1..{num_vars}", parameter="names")
        if not is_valid_name(name):
            raise _invalid_name(name)
        if name in owner:
            raise _used_twice(name)
        owner[name] = var
        if name != default_name(var):
            sparse[var] = name
    _check_default_clash(owner, num_vars)
    return sparse or None


def _check_default_clash(owner: dict[str, int], num_vars: int) -> None:
    """Refuse a given name that is the default name of a variable given no name."""
    given = set(owner.values())
    for name, var in owner.items():
        clash = default_var(name)
        if clash is not None and clash != var and clash <= num_vars and clash not in given:
            raise _used_twice(name)


def _largest_var(lits: IntArray, offsets: IntArray) -> int:
    """Check a flat literal array and its clause offsets; the largest variable used."""
    if lits.ndim != 1 or offsets.ndim != 1 or len(offsets) < 1:
        raise ConfigError("literals and offsets must be flat arrays", parameter="arrays")
    # few calls, each on a whole array: numpy's fixed cost per call (about 1 us) is
    # most of the work for a formula of a few clauses
    rising = offsets[0] == 0 and offsets[-1] == len(lits)
    rising = rising and not np.count_nonzero(offsets[1:] < offsets[:-1])
    if not rising:
        raise ConfigError(
            "clause offsets must rise from 0 to the number of literals", parameter="offsets"
        )
    if np.count_nonzero(lits) != len(lits):
        raise ConfigError("a clause cannot contain the literal 0", parameter="literal")
    return _largest_magnitude(lits)


def _largest_magnitude(lits: IntArray) -> int:
    """The largest ``|literal|``; -2**63, whose absolute value wraps round, is refused."""
    if not len(lits):
        return 0
    largest = int(np.abs(lits).view(np.uint64).max())  # |-2**63| wraps round to 2**63
    if largest >= 2**63:
        raise ConfigError(
            "a literal is beyond the 64-bit integers", parameter="literal", valid=_LITERAL
        )
    return largest


def _name_table(
    names: Names, num_vars: int | None, used: int
) -> tuple[int, tuple[str, ...] | None, dict[int, str] | None]:
    """The variable count, the full name table and the sparse names, checked.

    The table is ``None`` when every name is the default or the names are a mapping;
    the sparse names are those of :func:`_sparse_names`, for a mapping alone.
    """
    sparse = None
    _check_num_vars(num_vars)
    names = _typed_names(names)
    if isinstance(names, Mapping):
        num_vars = max(used, max(names, default=0)) if num_vars is None else num_vars
        sparse = _sparse_names(names, num_vars)
        names = None
    elif num_vars is None:
        num_vars = max(used, len(names) if names is not None else 0)
    if num_vars < used:
        raise ConfigError(
            f"literal {used} is beyond the {num_vars} declared variables",
            parameter="num_vars",
            valid=f">= {used}",
        )
    table = None if names is None else _dense_names(names, num_vars)
    return int(num_vars), table, sparse


def _check_num_vars(num_vars: object) -> None:
    """Refuse a declared variable count that is no int (a bool is none) or is negative.

    Raises
    ------
    ArgumentTypeError
        ``num_vars`` is neither an int nor ``None``.
    ConfigError
        ``num_vars`` is negative.
    """
    if num_vars is None:
        return
    if isinstance(num_vars, bool) or not isinstance(num_vars, int):
        raise ArgumentTypeError(
            f"num_vars must be an int (not a bool) or None, not {type(num_vars).__name__}",
            parameter="num_vars",
            valid="an int (not a bool) or None",
        )
    if num_vars < 0:
        raise ConfigError(
            f"num_vars must be >= 0, not {num_vars}", parameter="num_vars", valid=">= 0"
        )


def _int_array(values: object, parameter: str) -> IntArray:
    """``values`` as a new int64 array: integers only (a float, a bool or a str is refused,
    not truncated or parsed); an empty sequence is an empty array.

    Raises
    ------
    ArgumentTypeError
        ``values`` holds something other than integers, or is ragged.
    ConfigError
        An integer beyond the 64-bit integers.
    """
    valid = "an array or sequence of ints"
    try:
        array = np.asarray(values)
    except ValueError:  # ragged nesting
        array = np.asarray(None)
    if array.size and array.dtype.kind not in "iu":
        raise ArgumentTypeError(
            f"{parameter} must be {valid}, not {type(values).__name__} of {array.dtype}",
            parameter=parameter,
            valid=valid,
        )
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ConfigError(f"{parameter} holds an integer beyond 64 bits", parameter=parameter)
    return np.array(array, dtype=np.int64)


def _typed_names(names: object) -> Names:
    """``names`` with its types checked: ``None``, a sequence of str (a str is none), or a
    mapping of int variables to str.

    Raises
    ------
    ArgumentTypeError
        ``names`` is none of these, or holds a name that is no str or a variable that is
        no int.
    """
    if names is None:
        return None
    valid = "None, a sequence of names (str) or a mapping of variables (int) to names"
    if isinstance(names, Mapping):
        for var, name in names.items():
            if isinstance(var, bool) or not isinstance(var, int):
                expect_type(var, (), parameter="names", valid="an int", what="a named variable")
            expect_type(name, str, parameter="names", valid="a str", what="a name")
        return names
    table = expect_items(names, parameter="names", valid=valid)
    for name in table:
        expect_type(name, str, parameter="names", valid="a str", what="a name")
    return table  # of str: checked


def _dense_names(names: Sequence[str], num_vars: int) -> tuple[str, ...] | None:
    """Check one name per variable; the names, or ``None`` when all are the defaults."""
    table = tuple(str(n) for n in names)
    if len(table) != num_vars:
        raise ConfigError(f"{len(table)} names given for {num_vars} variables", parameter="names")
    bad = [n for n in table if not is_valid_name(n)]
    if bad:
        raise _invalid_name(bad[0])
    if len(set(table)) != len(table):
        raise _used_twice(_first_repeat(table))
    if all(n == default_name(i) for i, n in enumerate(table, 1)):
        return None
    return table


def _first_repeat(names: Sequence[str]) -> str:
    """The first name of ``names`` that an earlier one repeats (there must be one)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    raise AssertionError("no name is repeated")


def _invalid_name(name: str) -> ConfigError:
    return ConfigError(
        f"invalid variable name {name!r}",
        parameter="names",
        valid="an identifier [A-Za-z_][A-Za-z0-9_]* that is not not/or/and/vars",
    )


def _used_twice(name: str) -> ConfigError:
    return ConfigError(f"variable name {name!r} is used twice", parameter="names")


class Formula:
    """An immutable CNF formula over variables ``1..num_vars`` with a name table.

    Parameters
    ----------
    clauses:
        Clauses as iterables of non-zero ints (DIMACS literals).
    num_vars:
        Number of variables; defaults to the largest variable used (or the number
        of names). Variables that occur in no clause are allowed.
    names:
        One name per variable (index ``v - 1``), or ``None`` for ``x1, x2, ...``,
        or a mapping from some variables to their names (the others keep ``x<v>``):
        kept as given, so a formula with a few named variables among very many
        unused ones costs memory for the names it has, not for its variable count.

    Raises
    ------
    ArgumentTypeError
        Clauses that are no iterable of iterables of int literals (a str, a mapping, a
        bool or a float is none), a ``num_vars`` that is no int, names of the wrong type.
    ConfigError
        The literal 0, a literal beyond 64 bits or beyond ``num_vars``, a negative
        ``num_vars``, an invalid or repeated name.

    Notes
    -----
    A clause may have any width (0 is the empty clause). 2-SAT-only operations
    call :meth:`require_2cnf`, which refuses clauses of width 0 or above 2.
    """

    __slots__ = ("__dict__", "_lits", "_offsets", "_sparse", "_widths", "num_vars")

    _lits: IntArray
    _offsets: IntArray
    _widths: IntArray
    _sparse: dict[int, str] | None
    num_vars: int

    def __init__(
        self,
        clauses: Iterable[Iterable[int]] = (),
        num_vars: int | None = None,
        names: Names = None,
    ) -> None:
        rows = _int_rows(clauses)
        bounds = accumulate(map(len, rows), initial=0)
        offsets = np.fromiter(bounds, dtype=np.int64, count=len(rows) + 1)
        try:
            lits = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(offsets[-1]))
        except OverflowError:
            raise ConfigError(
                "a literal is beyond the 64-bit integers", parameter="literal", valid=_LITERAL
            ) from None
        self._setup(lits, offsets, num_vars, names)

    # -- construction -----------------------------------------------------------------

    @classmethod
    def from_arrays(
        cls,
        lits: npt.ArrayLike,
        offsets: npt.ArrayLike,
        num_vars: int | None = None,
        names: Names = None,
    ) -> Formula:
        """Build from a flat literal array and ``num_clauses + 1`` clause offsets.

        The arrays are copied: the caller's arrays stay writable, and changing them
        later does not change the formula.

        >>> Formula.from_arrays([1, -2, 2], [0, 2, 3]).clauses
        (Clause(1, -2), Clause(2))
        """
        self = cls.__new__(cls)
        self._setup(_int_array(lits, "lits"), _int_array(offsets, "offsets"), num_vars, names)
        return self

    @classmethod
    def from_pairs(
        cls, pairs: npt.ArrayLike, num_vars: int | None = None, names: Sequence[str] | None = None
    ) -> Formula:
        """Build a formula of two-literal clauses from an ``(m, 2)`` int array.

        >>> Formula.from_pairs([[1, 2], [-1, -2]]).num_clauses
        2
        """
        arr = _int_array(pairs, "pairs")
        if arr.size % 2:
            raise ConfigError(
                f"pairs holds {arr.size} literals, an odd number",
                parameter="pairs",
                valid="an (m, 2) array of literals",
            )
        arr = arr.reshape(-1, 2)
        offsets = np.arange(0, 2 * len(arr) + 1, 2, dtype=np.int64)
        return cls.from_arrays(arr.reshape(-1), offsets, num_vars, names)

    @classmethod
    def from_named(cls, clauses: Iterable[Iterable[str]], variables: Iterable[str] = ()) -> Formula:
        """Build from clauses of named literals (``"a"``, ``"~a"``, ``"-a"``, ``"!a"``).

        Variables are numbered in order of first appearance, ``variables`` first.

        >>> f = Formula.from_named([["~b", "a"]], variables=["a"])
        >>> f.names, f.clauses
        (('a', 'b'), (Clause(-2, 1),))
        """
        index: dict[str, int] = {}

        def var_of(name: str) -> int:
            if name not in index:
                index[name] = len(index) + 1
            return index[name]

        for name in expect_items(variables, parameter="variables", valid="an iterable of names"):
            var_of(_named(name, "variables", "a name"))
        rows: list[list[int]] = []
        for clause in expect_items(clauses, parameter="clauses", valid="an iterable of clauses"):
            row = []
            for item in expect_items(
                clause, parameter="clause", valid="an iterable of named literals"
            ):
                text = _named(item, "literal", "a named literal")
                negative = text[:1] in ("~", "-", "!", "¬")
                name = text[1:] if negative else text
                row.append(-var_of(name) if negative else var_of(name))
            rows.append(row)
        return cls(rows, num_vars=len(index), names=list(index))

    def _setup(
        self,
        lits: IntArray,
        offsets: IntArray,
        num_vars: int | None,
        names: Names,
    ) -> None:
        used = _largest_var(lits, offsets)
        widths = offsets[1:] - offsets[:-1]  # np.diff's result, without its wrapper
        num_vars, table, sparse = _name_table(names, num_vars, used)
        lits = np.ascontiguousarray(lits, dtype=np.int64)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        lits.flags.writeable = False
        offsets.flags.writeable = False
        widths.flags.writeable = False
        object.__setattr__(self, "_lits", lits)
        object.__setattr__(self, "_offsets", offsets)
        object.__setattr__(self, "_widths", widths)
        object.__setattr__(self, "num_vars", num_vars)
        object.__setattr__(self, "_sparse", sparse)
        if sparse is None:  # else :attr:`_names` builds the table on first use
            object.__setattr__(self, "_names", table)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Formula is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Formula is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Formula.from_arrays, (self._lits, self._offsets, self.num_vars, self._table))

    # -- views --------------------------------------------------------------------------

    @property
    def num_clauses(self) -> int:
        """Number of clauses (duplicates counted)."""
        return len(self._offsets) - 1

    def __len__(self) -> int:
        return self.num_clauses

    @property
    def literals(self) -> IntArray:
        """All literals of all clauses, flat and read-only (see :attr:`offsets`)."""
        return self._lits

    @property
    def offsets(self) -> IntArray:
        """Clause ``i`` is ``literals[offsets[i]:offsets[i + 1]]``."""
        return self._offsets

    @property
    def widths(self) -> IntArray:
        """The number of literals of each clause (read-only)."""
        return self._widths

    @cached_property
    def clauses(self) -> tuple[Clause, ...]:
        """The clauses as :class:`Clause` tuples, in order."""
        flat = self._lits.tolist()
        bounds = self._offsets.tolist()
        new = tuple.__new__
        return tuple(new(Clause, flat[a:b]) for a, b in pairwise(bounds))

    def clause(self, index: int) -> Clause:
        """Clause number ``index`` (0-based)."""
        if not -self.num_clauses <= index < self.num_clauses:
            raise IndexError(f"clause index {index} out of range for {self.num_clauses} clauses")
        index %= self.num_clauses
        return Clause(self._lits[self._offsets[index] : self._offsets[index + 1]].tolist())

    def __iter__(self) -> Any:
        return iter(self.clauses)

    @cached_property
    def clause_of_literal(self) -> IntArray:
        """For each entry of :attr:`literals`, the index of its clause."""
        ids = np.repeat(np.arange(self.num_clauses, dtype=np.int64), self.widths)
        ids.flags.writeable = False
        return ids

    @cached_property
    def is_2cnf(self) -> bool:
        """Whether every clause has one or two literals (an empty formula is 2-CNF)."""
        widths = self._widths
        return not len(widths) or bool(widths.min() >= 1 and widths.max() <= 2)

    def require_2cnf(self, operation: str = "this operation") -> None:
        """Raise :class:`NotTwoCNFError` naming the first clause that is not 2-CNF."""
        if self.is_2cnf:  # cached
            return
        bad = np.flatnonzero((self.widths < 1) | (self.widths > 2))
        if len(bad):
            i = int(bad[0])
            raise NotTwoCNFError(
                f"{operation} needs a 2-CNF, but clause {i + 1} has {int(self.widths[i])} literals",
                clause_index=i,
            )

    def require_size(self, operation: str = "this operation") -> None:
        """Raise :class:`ConfigError` if the formula has more than :data:`MAX_SIZE`
        variables: an operation that sizes its work by the variable count (a solver's
        graph, a verbalizer's entities) would ask for absurd memory.

        A formula may declare very many unused variables (its names cost memory for
        those it has); solving or verbalizing it is refused here, before anything is
        sized.

        >>> try:
        ...     Formula([[1]], num_vars=10**12).require_size("solve")
        ... except ConfigError as error:
        ...     print(error.parameter, error.valid)
        num_vars at most 10000000
        """
        if self.num_vars > MAX_SIZE:
            raise ConfigError(
                f"{operation}: {self.num_vars} variables is more than the {MAX_SIZE} "
                "a formula may have",
                parameter="num_vars",
                valid=f"at most {MAX_SIZE}",
            )

    def pairs(self) -> IntArray:
        """The clauses as an ``(m, 2)`` array; a unit clause ``(a)`` becomes ``(a, a)``.

        >>> Formula([[1, -2], [3]]).pairs().tolist()
        [[1, -2], [3, 3]]
        """
        self.require_2cnf("pairs()")
        if len(self._lits) == 2 * self.num_clauses:  # widths 1 or 2: all are 2
            return self._lits.reshape(-1, 2)
        first = self._lits[self._offsets[:-1]]
        second = self._lits[self._offsets[1:] - 1]
        return np.stack([first, second], axis=1)

    @cached_property
    def used_variables(self) -> frozenset[int]:
        """Variables that occur in some clause."""
        return frozenset(np.unique(np.abs(self._lits)).tolist())

    # -- names --------------------------------------------------------------------------

    @cached_property
    def _names(self) -> tuple[str, ...] | None:
        """The whole name table (``None``: default names), built from a sparse one."""
        sparse = self._sparse or {}
        return tuple(sparse.get(v) or default_name(v) for v in range(1, self.num_vars + 1))

    @property
    def _table(self) -> Sequence[str] | Mapping[int, str] | None:
        """The names as given: the sparse mapping when there is one (nothing built)."""
        return self._sparse if self._sparse is not None else self._names

    @property
    def names(self) -> tuple[str, ...]:
        """One name per variable, index ``v - 1``."""
        if self._names is not None:
            return self._names
        return self._default_names

    @cached_property
    def _default_names(self) -> tuple[str, ...]:
        """``x1, x2, ...``: built once per formula (the formula cannot change)."""
        return tuple(map(default_name, range(1, self.num_vars + 1)))

    @property
    def named(self) -> dict[int, str]:
        """The variables whose name is not ``x<v>``, with their names, in order.

        >>> Formula.from_arrays([1], [0, 1], 1_000_000, {3: "c"}).named
        {3: 'c'}
        """
        if self._sparse is not None:
            return dict(self._sparse)
        if self._names is None:
            return {}
        return {v: n for v, n in enumerate(self._names, 1) if n != default_name(v)}

    @property
    def has_default_names(self) -> bool:
        """Whether every variable ``v`` is called ``x<v>``."""
        return self._sparse is None and self._names is None

    def name(self, var: int) -> str:
        """The name of variable ``var``."""
        if not 1 <= var <= self.num_vars:
            raise ConfigError(f"variable {var} is not in 1..{self.num_vars}", parameter="var")
        if self._sparse is not None:
            return self._sparse.get(var) or default_name(var)
        return self._names[var - 1] if self._names is not None else default_name(var)

    def literal_name(self, lit: int) -> str:
        """A literal as the DSL writes it: ``a`` or ``~a``."""
        return ("~" if lit < 0 else "") + self.name(abs(lit))

    def clause_text(self, clause: Iterable[int]) -> str:
        """A clause as the DSL writes it, with this formula's names.

        >>> Formula.from_named([["p", "~q"]]).clause_text((1, -2))
        'p | ~q'
        """
        return " | ".join(self.literal_name(lit) for lit in clause)

    def literal_names(self, lits: npt.ArrayLike) -> list[str]:
        """Many literals as the DSL writes them, built in bulk (no Python call per literal).

        >>> Formula([[1, -2]]).literal_names([-2, 1])
        ['~x2', 'x1']
        """
        values = np.asarray(lits, dtype=np.int64).reshape(-1)
        if values.size == 0:
            return []
        variables = np.abs(values)
        if bool(np.any(values == 0)) or int(variables.max()) > self.num_vars:
            bad = int(values[(values == 0) | (variables > self.num_vars)][0])
            raise ConfigError(f"variable {abs(bad)} is not in 1..{self.num_vars}", parameter="var")
        if self._sparse is not None:
            return [self.literal_name(lit) for lit in values.tolist()]
        names = self._names
        if names is None:  # "x5 x-3" -> ["x5", "~x3"]: two passes over one string
            return ("x" + " x".join(map(str, values.tolist()))).replace("x-", "~x").split(" ")
        prefixes = map(("", "~").__getitem__, (values < 0).tolist())
        bare = map(names.__getitem__, (variables - 1).tolist())
        return list(map(operator.add, prefixes, bare))

    @cached_property
    def _index(self) -> dict[str, int]:
        return {n: v for v, n in enumerate(self.names, 1)}

    def var(self, name: str) -> int:
        """The variable called ``name``."""
        try:
            return self._index[name]
        except KeyError:
            raise ConfigError(f"no variable is called {name!r}", parameter="name") from None

    # -- semantics ----------------------------------------------------------------------

    def _truth_table(self, assignment: Assignment) -> npt.NDArray[np.int8]:
        """Per variable: 1 true, 0 false, -1 unassigned (index ``v``; slot 0 unused)."""
        table = np.full(self.num_vars + 1, -1, dtype=np.int8)
        if isinstance(assignment, Mapping):
            for key, value in assignment.items():
                var = self.var(key) if isinstance(key, str) else _int_literal(key)
                if not 1 <= var <= self.num_vars:
                    raise ConfigError(
                        f"variable {var} is not in 1..{self.num_vars}", parameter="assignment"
                    )
                table[var] = 1 if value else 0
        else:
            values = expect_items(
                assignment, parameter="assignment", valid="a mapping or a sequence of bools"
            )
            if len(values) > self.num_vars:
                raise ConfigError(
                    f"{len(values)} values for {self.num_vars} variables", parameter="assignment"
                )
            table[1 : len(values) + 1] = [1 if v else 0 for v in values]
        return table

    def satisfied_mask(self, assignment: Assignment) -> npt.NDArray[np.bool_]:
        """Per clause, whether some literal is true (unassigned variables make nothing true)."""
        table = self._truth_table(assignment)
        values = table[np.abs(self._lits)]
        true_lit = np.where(self._lits > 0, values == 1, values == 0)
        counts = np.bincount(self.clause_of_literal, weights=true_lit, minlength=self.num_clauses)
        return counts > 0

    def falsified_clauses(self, assignment: Assignment) -> list[int]:
        """Indices of clauses with no true literal under ``assignment``."""
        return np.flatnonzero(~self.satisfied_mask(assignment)).tolist()

    def evaluate(self, assignment: Assignment) -> bool:
        """Whether every clause has a literal made true by ``assignment``."""
        return bool(np.all(self.satisfied_mask(assignment)))

    # -- building new formulas -----------------------------------------------------------

    def with_clauses(self, clauses: Iterable[Iterable[int]]) -> Formula:
        """A formula over the same variables and names with other clauses."""
        return Formula(clauses, num_vars=self.num_vars, names=self._table)

    def with_names(self, names: Names) -> Formula:
        """The same clauses under another name table (``None``: default names)."""
        return Formula.from_arrays(self._lits, self._offsets, self.num_vars, names)

    def select(self, indices: Sequence[int] | npt.ArrayLike) -> Formula:
        """The clauses at ``indices``, in that order (a permutation, subset or repeat).

        >>> Formula([[1], [2], [3]]).select([2, 0]).clauses
        (Clause(3), Clause(1))
        """
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if len(idx) and (idx.min() < 0 or idx.max() >= self.num_clauses):
            raise ConfigError(
                "clause index out of range", parameter="indices", valid=f"0..{self.num_clauses - 1}"
            )
        lits, offsets = take_clauses(self._lits, self._offsets, idx)
        return Formula.from_arrays(lits, offsets, self.num_vars, self._table)

    # -- sympy ------------------------------------------------------------------------------

    def to_sympy(self) -> Any:
        """The formula as a sympy Boolean expression (``And`` of ``Or``; names as symbols).

        >>> Formula.from_named([["a", "~b"], ["b"]]).to_sympy()
        b & (a | ~b)
        """
        import sympy

        symbols = [sympy.Symbol(name) for name in self.names]
        return sympy.And(
            *(
                sympy.Or(*(symbols[lit - 1] if lit > 0 else ~symbols[-lit - 1] for lit in clause))
                for clause in self.clauses
            )
        )

    @classmethod
    def from_sympy(cls, expr: Any, variables: Iterable[str] = ()) -> Formula:
        """The 2-CNF formula equivalent to a sympy Boolean expression over symbols.

        A conjunction of clauses of at most two literals is read as it stands; any
        other expression is converted as a DSL formula line is
        (:func:`~twosat_formal.core.two_cnf.convert`, proven by Z3) and refused with the
        same message when no 2-CNF is equivalent to it. Variables are numbered
        ``variables`` first, then in sympy's order of the expression.

        >>> import sympy
        >>> a, b, c = sympy.symbols("a b c")
        >>> f = Formula.from_sympy(~(a & b) & sympy.Implies(b, c), variables="abc")
        >>> f.names, sorted(f.clauses)
        (('a', 'b', 'c'), [Clause(-2, -1), Clause(-2, 3)])
        >>> Formula.from_sympy(a | b | c)
        Traceback (most recent call last):
        ...
        twosat_formal.errors.NotTwoCNFError: not 2-SAT: it needs the clause a | b | c of 3 literals
        """
        from twosat_formal.core.two_cnf import (
            convert,
            direct_clauses,
            from_sympy,
            prove_equivalent,
        )

        parsed = from_sympy(expr)
        clauses = direct_clauses(parsed)
        if clauses is None:
            clauses = convert(parsed)
            prove_equivalent(parsed, clauses)
        return cls.from_named(clauses, variables=[*variables, *parsed.variables()])

    # -- comparison and display -----------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formula):
            return NotImplemented
        if self._sparse is None and other._sparse is None:
            same_names = self._names == other._names
        else:
            same_names = self.named == other.named
        return (
            self.num_vars == other.num_vars
            and same_names
            and np.array_equal(self._offsets, other._offsets)
            and np.array_equal(self._lits, other._lits)
        )

    def __hash__(self) -> int:
        # the names are left out: equal formulas still hash alike, whichever table they keep
        return hash((self.num_vars, self._offsets.tobytes(), self._lits.tobytes()))

    def same_clauses(self, other: Formula) -> bool:
        """Equal clause lists and variable count, whatever the names."""
        return (
            self.num_vars == other.num_vars
            and np.array_equal(self._offsets, other._offsets)
            and np.array_equal(self._lits, other._lits)
        )

    def __repr__(self) -> str:
        shown = " & ".join(f"({self.clause_text(c)})" for c in self.clauses[:6])
        more = " & ..." if self.num_clauses > 6 else ""
        return f"<Formula {self.num_vars} vars, {self.num_clauses} clauses: {shown}{more}>"
