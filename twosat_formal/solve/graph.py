"""The implication graph of a 2-CNF as CSR arrays.

Node ``2*(v-1)`` is the literal ``v`` and node ``2*(v-1)+1`` is ``-v``, so the
negation of node ``i`` is ``i ^ 1``. A clause ``(a | b)`` gives the edges
``-a -> b`` and ``-b -> a``; a unit clause ``(a)`` is read as ``(a | a)`` and gives
the edge ``-a -> a``. Parallel edges (from repeated clauses) are merged, and each
node's successors are sorted: the order in which the solver's searches
(:mod:`twosat_formal.solve.scc`) take them, and so a part of the certificate's
definition (``docs/certificates.md``).

Everything here is numpy; no Python loop touches a clause or a literal.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> g = implication_graph(Formula([[1, 2], [-1]]))
>>> g.num_nodes, g.num_edges
(4, 3)
>>> sorted(g.edges())
[(-2, 1), (-1, 2), (1, -1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import twosat_formal.solve._kernel as _kernel
from twosat_formal.core.formula import Formula
from twosat_formal.errors import NotTwoCNFError, raises

__all__ = [
    "ImplicationGraph",
    "implication_arrays",
    "implication_graph",
    "index_literal",
    "literal_index",
]

IntArray = npt.NDArray[np.int64]
#: CSR index arrays: int32, or int64 for graphs past 2**31 entries.
IndexArray = npt.NDArray[np.signedinteger[Any]]


def literal_index(lits: npt.ArrayLike) -> IntArray:
    """Graph node of each DIMACS literal: ``2*(v-1)`` for ``v``, ``2*(v-1)+1`` for ``-v``.

    >>> literal_index([1, -1, 3, -3]).tolist()
    [0, 1, 4, 5]
    """
    arr = np.asarray(lits, dtype=np.int64)
    return 2 * (np.abs(arr) - 1) + (arr < 0)


def index_literal(nodes: npt.ArrayLike) -> IntArray:
    """DIMACS literal of each graph node (the inverse of :func:`literal_index`).

    >>> index_literal([0, 1, 4, 5]).tolist()
    [1, -1, 3, -3]
    """
    arr = np.asarray(nodes, dtype=np.int64)
    out = arr >> 1
    out += 1
    negative = arr & 1
    out ^= -negative  # ~v == -v - 1: negate where the node is a negation
    out += negative
    return out


@dataclass(frozen=True, eq=False)
class ImplicationGraph:
    """The implication graph over the ``2 * num_vars`` literals of a formula.

    Attributes
    ----------
    num_vars:
        Number of variables; the graph has ``2 * num_vars`` nodes.
    indptr, indices:
        The CSR arrays (:func:`implication_arrays`): the successors of node ``i`` are
        ``indices[indptr[i]:indptr[i + 1]]``, ascending, without repeats (see
        :func:`literal_index` for the node numbering).
    """

    num_vars: int
    indptr: IndexArray
    indices: IndexArray

    @property
    def num_nodes(self) -> int:
        """Number of nodes (two per variable)."""
        return 2 * self.num_vars

    @property
    def num_edges(self) -> int:
        """Number of distinct edges."""
        return int(self.indices.size)

    def edge_arrays(self) -> tuple[IntArray, IntArray]:
        """Source and target node of every edge, as two int64 arrays."""
        src = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(self.indptr))
        return src, self.indices.astype(np.int64)

    def edges(self) -> list[tuple[int, int]]:
        """All edges as pairs of DIMACS literals (for small graphs and tests)."""
        src, dst = self.edge_arrays()
        return list(zip(index_literal(src).tolist(), index_literal(dst).tolist(), strict=True))

    def successors(self, lit: int) -> list[int]:
        """The literals that ``lit`` implies in one step.

        >>> from twosat_formal.core.formula import Formula
        >>> implication_graph(Formula([[1, 2], [1, 3]])).successors(-1)
        [2, 3]
        """
        node = int(literal_index(lit))
        lo, hi = self.indptr[node], self.indptr[node + 1]
        return index_literal(self.indices[lo:hi]).tolist()


@raises(NotTwoCNFError)
def implication_arrays(formula: Formula) -> tuple[IndexArray, IndexArray]:
    """The implication graph's canonical CSR arrays ``(indptr, columns)``.

    Row ``i`` of the graph is ``columns[indptr[i]:indptr[i + 1]]``, sorted and without
    repeats (the arrays of :func:`implication_graph`).

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> indptr, columns = implication_arrays(Formula([[1, -2], [2]]))
    >>> indptr.tolist(), columns.tolist()
    ([0, 0, 1, 2, 3], [3, 0, 2])
    """
    pairs = formula.pairs()
    num_nodes = 2 * formula.num_vars
    # Two counting sorts of the edges in the kernel (by target, then by source): the
    # canonical rows in linear time, whatever order the clauses come in, made in int32
    # when the numbers fit (no copy to convert here then).
    indptr, columns = _kernel.implication_csr(np.ascontiguousarray(literal_index(pairs)), num_nodes)
    index_type = np.int32 if max(num_nodes, columns.size) < 2**31 - 1 else np.int64
    return indptr.astype(index_type, copy=False), columns.astype(index_type, copy=False)


@raises(NotTwoCNFError)
def implication_graph(
    formula: Formula, arrays: tuple[IndexArray, IndexArray] | None = None
) -> ImplicationGraph:
    """Build the implication graph of a 2-CNF (unit clauses included).

    Parameters
    ----------
    formula:
        A formula whose clauses all have one or two literals.
    arrays:
        Its :func:`implication_arrays`, when already computed.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> g = implication_graph(Formula([[1, -2], [1, -2]]))
    >>> g.edges()
    [(-1, -2), (2, 1)]
    """
    indptr, columns = implication_arrays(formula) if arrays is None else arrays
    return ImplicationGraph(formula.num_vars, indptr, columns)
