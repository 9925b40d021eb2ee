"""The package's import graph: no cycle among its modules, and every module in a layer.

The graph is grimp's (what ``lint-imports`` reads), in-function imports included and
imports under ``if TYPE_CHECKING:`` left out. A cycle is a strongly connected component
of more than one module (networkx), named in full on failure. The layers are those of
the ``layers`` contract of ``pyproject.toml`` (``[tool.importlinter]``): every
top-level module or package of ``twosat_formal`` must be one of them.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from functools import cache
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "twosat_formal"

#: Cycles known today, each the set of modules of one strongly connected component,
#: keyed by the subpackage that holds it; this table is to be kept empty, never grown.
ALLOWED: dict[str, frozenset[str]] = {}


@cache
def import_graph() -> nx.DiGraph:
    """The package's modules and the imports between them (grimp, no cache)."""
    found = grimp.build_graph(PACKAGE, exclude_type_checking_imports=True, cache_dir=None)
    graph = nx.DiGraph()
    graph.add_nodes_from(found.modules)
    for module in found.modules:
        for imported in found.find_modules_directly_imported_by(module):
            details = found.get_import_details(importer=module, imported=imported)
            targets = {compiled(d["line_contents"], imported) for d in details} or {imported}
            graph.add_edges_from((module, target) for target in targets)
    return graph


def compiled(line: str, imported: str) -> str:
    """The module an import line names when it is a compiled extension below
    ``imported`` (the solver's kernel): grimp reads no source there and takes the
    import for one of the package, which would close a false cycle; else ``imported``.

    >>> compiled("import twosat_formal.solve._kernel as k", "twosat_formal.solve")
    'twosat_formal.solve._kernel'
    >>> compiled("from twosat_formal.solve import backends", "twosat_formal.solve")
    'twosat_formal.solve'
    """
    match = re.match(r"\s*(?:from\s+([\w.]+)\s+import\s+(\w+)|import\s+([\w.]+))", line)
    if match is None:
        return imported
    name = match[3] or f"{match[1]}.{match[2]}"
    if not name.startswith(f"{imported}."):
        return imported
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a name of the module, not a module below it
        return imported
    origin = spec.origin if spec is not None else None
    is_extension = origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))
    return name if is_extension else imported


def cycles(graph: nx.DiGraph) -> list[frozenset[str]]:
    """Every strongly connected component of more than one module (or a self-import)."""
    return [
        frozenset(component)
        for component in nx.strongly_connected_components(graph)
        if len(component) > 1 or graph.has_edge(*(next(iter(component)),) * 2)
    ]


def describe(graph: nx.DiGraph, component: frozenset[str]) -> str:
    """One cycle through ``component``, written ``a -> b -> ... -> a``."""
    loop = nx.find_cycle(graph.subgraph(component))
    return " -> ".join([edge[0] for edge in loop] + [loop[0][0]])


def contract_modules() -> set[str]:
    """The names that the ``layers`` contract lists, in any layer."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return {name.strip() for layer in contract["layers"] for name in layer.split(":")}


def test_no_import_cycle_but_the_allowed_ones() -> None:
    graph = import_graph()
    unexpected = [c for c in cycles(graph) if c not in ALLOWED.values()]
    assert not unexpected, "import cycles:\n" + "\n".join(describe(graph, c) for c in unexpected)


def test_every_allowed_cycle_still_exists() -> None:
    found = set(cycles(import_graph()))
    gone = sorted(key for key, component in ALLOWED.items() if component not in found)
    assert not gone, f"cycles gone or changed, to be taken out of ALLOWED: {gone}"


def test_the_cycle_finder_names_a_cycle() -> None:
    graph = nx.DiGraph([("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")])
    (component,) = cycles(graph)
    assert component == {"p.a", "p.b", "p.c"}
    assert set(describe(graph, component).split(" -> ")) == {"p.a", "p.b", "p.c"}
    assert cycles(nx.DiGraph([("p.a", "p.b"), ("p.b", "p.c")])) == []


def test_every_module_is_in_a_layer_of_the_contract() -> None:
    top = {module.split(".")[1] for module in import_graph().nodes if module.count(".") >= 1}
    missing = sorted(top - contract_modules())
    assert not missing, f"modules in no layer of [tool.importlinter]: {missing}"


def test_the_contract_names_only_modules_that_exist() -> None:
    top = {module.split(".")[1] for module in import_graph().nodes if module.count(".") >= 1}
    assert contract_modules() <= top, sorted(contract_modules() - top)
