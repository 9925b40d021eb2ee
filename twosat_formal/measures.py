"""Structural measures of a 2-CNF, from the engine's implication graph.

:func:`structural_measures` gives, for a 2-CNF:

* ``shortest_cycle``: for an UNSAT formula, the length (in implication steps) of its
  shortest contradiction cycle: the least ``d(x, ~x) + d(~x, x)`` over the conflicting
  variables ``x``, ``d`` the shortest-path distance; ``None`` when SAT;
* ``longest_path``: the most implication steps between strong components on one path of
  the condensation (0 when no edge joins two components);
* ``scc_count``, ``largest_scc`` and ``nontrivial_sccs``: as
  :func:`~twosat_formal.analysis.analyze` counts them;
* ``backbone``: for a SAT formula, how many literals are true in every model; ``None``
  when UNSAT;
* ``forced_depth``: for a SAT formula, the depth of the deepest forced literal: the
  largest ``d(~l, l)`` over the backbone literals ``l``, the length of the shortest
  chain that refutes ``~l`` (``(a) & (~a | b) & (~b | c)`` forces ``c`` by
  ``~c -> ~b -> ~a -> a -> b -> c``: 5); 0 without a backbone; ``None`` when UNSAT;
* ``proof_length``: the length (in implication steps) of the shortest proof of the
  label that the hardest part of the formula needs: ``shortest_cycle`` for an UNSAT
  formula (its shortest refutation), ``forced_depth`` for a SAT one (the longest of
  the shortest chains that force a backbone literal; 0 when nothing is forced).

Every instance record carries these measures (``measures``,
:meth:`~twosat_formal.instance.Instance.to_record`): each builder that makes an
instance (a family's draw, a formula file's root, a perturbation, an edit, a minimal
twin) fills its ``measures`` field through :func:`instance_measures`. ``certify``
derives them again by another algorithm
(:func:`twosat_formal.measures_check.check_measures`), and re-derives the rest of the
record inside :func:`unmeasured`, where the builders leave the measures out, so that
they are computed once per record, by that other algorithm.

The distances are breadth-first searches of the engine's graph, one per conflicting
variable or backbone literal: the cost is that many searches of the whole graph, fine
for benchmark instances (thousands of clauses), long for a million-clause formula with
a large backbone. As ``solve`` does (:mod:`twosat_formal.solve.small`), a formula of at
most :data:`~twosat_formal.solve.small.SMALL_CLAUSES` clauses is measured in plain
Python on the engine's successor lists and Tarjan components, with no SciPy to import
(about 0.2 ms for tens of clauses, where SciPy's set-up alone takes milliseconds); a
larger one on its CSR graph, the searches run in batches by SciPy. The tests compare
the two paths value for value.

Examples
--------
>>> from twosat_formal.formula import Formula
>>> structural_measures(Formula.from_named([["a"], ["~a", "b"], ["~b", "c"]]))["forced_depth"]
5
>>> both = [["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]]
>>> m = structural_measures(Formula.from_named(both))
>>> m["shortest_cycle"], m["backbone"], m["scc_count"], m["proof_length"]
(4, None, 1, 4)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from twosat_formal.errors import NotTwoCNFError, raises
from twosat_formal.formula import Formula

__all__ = ["MEASURES", "instance_measures", "structural_measures", "unmeasured"]

#: The measures :func:`structural_measures` gives, in order.
MEASURES = (
    "shortest_cycle",
    "longest_path",
    "scc_count",
    "largest_scc",
    "nontrivial_sccs",
    "backbone",
    "forced_depth",
    "proof_length",
)
#: Most distance entries one batch of searches may hold.
_BATCH_ENTRIES = 1 << 22
#: Whether the builders measure the instances they make (off inside :func:`unmeasured`).
_MEASURING: ContextVar[bool] = ContextVar("measuring", default=True)


def instance_measures(formula: Formula) -> dict[str, int | None] | None:
    """The ``measures`` a builder gives the instance it makes of ``formula``: its
    :func:`structural_measures`, or ``None`` (no claim) inside :func:`unmeasured`.

    Examples
    --------
    >>> f = Formula([[1], [-1, 2]])
    >>> instance_measures(f)["backbone"]
    2
    >>> with unmeasured():
    ...     print(instance_measures(f))
    None
    """
    return structural_measures(formula) if _MEASURING.get() else None


@contextmanager
def unmeasured() -> Iterator[None]:
    """Within it, the builders make instances without measures (``certify`` re-derives
    a record inside it and checks the record's measures by its own derivation).

    >>> with unmeasured():
    ...     _MEASURING.get()
    False
    >>> _MEASURING.get()
    True
    """
    token = _MEASURING.set(False)
    try:
        yield
    finally:
        _MEASURING.reset(token)


@raises(NotTwoCNFError)
def structural_measures(formula: Formula) -> dict[str, int | None]:
    """The structural measures of a 2-CNF (see the module documentation).

    Examples
    --------
    >>> structural_measures(Formula())["longest_path"]
    0
    """
    from twosat_formal.solve.small import is_small

    formula.require_2cnf("structural measures")
    return _small_measures(formula) if is_small(formula) else _scipy_measures(formula)


def _small_measures(formula: Formula) -> dict[str, int | None]:
    """:func:`structural_measures` of a small formula in plain Python, on the engine's
    successor lists, Tarjan components and breadth-first paths
    (:mod:`twosat_formal.solve.small`, as ``solve`` takes them): no SciPy to import.

    >>> _small_measures(Formula([[1], [-1, 2], [-2, 3]]))["forced_depth"]
    5
    """
    from twosat_formal.solve.small import _shortest_path, small_components, successor_lists

    succ = successor_lists(formula)
    count, label = small_components(succ)
    members: list[list[int]] = [[] for _ in range(count)]
    for node, c in enumerate(label):
        members[c].append(node)
    level = [0] * count
    for c in reversed(range(count)):  # an edge goes from a higher number to a lower one
        for node in members[c]:
            for w in succ[node]:
                if label[w] != c and level[label[w]] <= level[c]:
                    level[label[w]] = level[c] + 1
    sizes = [len(m) for m in members]
    measures: dict[str, int | None] = dict.fromkeys(MEASURES)
    measures["longest_path"] = max(level, default=0)
    measures["scc_count"] = count
    measures["largest_scc"] = max(sizes, default=0)
    measures["nontrivial_sccs"] = sum(1 for size in sizes if size > 1)

    def steps(start: int, goal: int, limit: int) -> int:
        """Edges from ``start`` to ``goal``; ``limit + 1`` when more than ``limit``."""
        path = _shortest_path(succ, start, goal, limit)
        return limit + 1 if path is None else len(path) - 1

    conflicts = [v for v in range(formula.num_vars) if label[2 * v] == label[2 * v + 1]]
    if conflicts:
        cycle = 2 * len(succ)  # above any two simple paths; each search stops past it
        for v in conflicts:
            there = steps(2 * v, 2 * v + 1, cycle - 2)
            if there <= cycle - 2:
                cycle = min(cycle, there + steps(2 * v + 1, 2 * v, cycle - there - 1))
        measures["shortest_cycle"] = measures["proof_length"] = cycle
        return measures
    reach = [0] * count  # the components each one reaches, as bits
    for c in range(count):
        bits = 1 << c
        for node in members[c]:
            for w in succ[node]:
                bits |= reach[label[w]]
        reach[c] = bits
    forced = [n for n in range(len(succ)) if reach[label[n ^ 1]] >> label[n] & 1]  # ~n ~> n
    measures["backbone"] = len(forced)
    depth = max((steps(n ^ 1, n, len(succ)) for n in forced), default=0)
    measures["forced_depth"] = measures["proof_length"] = depth
    return measures


def _scipy_measures(formula: Formula) -> dict[str, int | None]:
    """:func:`structural_measures` on the engine's CSR graph, with SciPy.

    >>> _scipy_measures(Formula([[1], [-1, 2], [-2, 3]]))["forced_depth"]
    5
    """
    from twosat_formal.analysis import backbone_literals
    from twosat_formal.solve.graph import implication_graph, literal_index
    from twosat_formal.solve.scc import (
        condensation,
        conflicting_variables,
        dag_levels,
        strong_components,
    )

    graph = implication_graph(formula)
    components = strong_components(graph)
    sizes = components.sizes()
    conflicts = conflicting_variables(components)
    levels = dag_levels(condensation(graph, components.labels, components.count))
    measures: dict[str, int | None] = {
        "shortest_cycle": None,
        "longest_path": int(levels.max()) if levels.size else 0,
        "scc_count": int(components.count),
        "largest_scc": int(sizes.max()) if sizes.size else 0,
        "nontrivial_sccs": int(np.count_nonzero(sizes > 1)),
        "backbone": None,
        "forced_depth": None,
        "proof_length": None,
    }
    if conflicts.size:
        there = _distances(graph.matrix, literal_index(conflicts), literal_index(-conflicts))
        back = _distances(graph.matrix, literal_index(-conflicts), literal_index(conflicts))
        measures["shortest_cycle"] = measures["proof_length"] = int((there + back).min())
        return measures
    backbone = backbone_literals(graph, components)
    measures["backbone"] = int(backbone.size)
    depth = _distances(graph.matrix, literal_index(-backbone), literal_index(backbone))
    measures["forced_depth"] = measures["proof_length"] = int(depth.max()) if depth.size else 0
    return measures


def _distances(matrix: object, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The shortest-path distance (in edges) from each source to its target."""
    from scipy.sparse.csgraph import shortest_path

    size = int(matrix.shape[0])  # type: ignore[attr-defined]
    batch = max(1, _BATCH_ENTRIES // max(size, 1))
    found = np.zeros(len(sources), dtype=np.int64)
    for start in range(0, len(sources), batch):
        rows = sources[start : start + batch]
        dist = shortest_path(matrix, unweighted=True, indices=rows)
        found[start : start + batch] = dist[np.arange(len(rows)), targets[start : start + batch]]
    return found
