"""Families register themselves from their own modules; the registry keeps the paper's order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import twosat_formal.make.generators as generators
from twosat_formal.errors import TwoSatFormalError
from twosat_formal.make.generators import FAMILIES
from twosat_formal.make.generators.family import register_family

PACKAGE = Path(generators.__file__).parent


def test_the_registry_keeps_the_papers_order() -> None:
    assert FAMILIES.names() == [
        "implication-cycle",
        "equivalence-core",
        "backbone",
        "mono-bridge",
        "symmetry",
    ]


@pytest.mark.parametrize("name", FAMILIES.names())
def test_each_family_is_registered_by_its_own_module(name: str) -> None:
    family = FAMILIES.get(name)
    module = f"twosat_formal.make.generators.{name.replace('-', '_')}"
    assert family.build.__module__ == module and family.resolve.__module__ == module
    source = (PACKAGE / f"{name.replace('-', '_')}.py").read_text(encoding="utf-8")
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register_family"
    ]
    assert len(calls) == 1


def test_a_name_is_registered_once() -> None:
    family = FAMILIES.get("backbone")
    with pytest.raises(TwoSatFormalError, match="registered twice"):
        register_family(
            "backbone",
            family.build,
            family.resolve,
            family.params,
            summary="again",
            section="-",
            label="SAT",
        )
    assert FAMILIES.get("backbone") is family


def test_no_family_module_imports_the_package_back() -> None:
    for path in PACKAGE.glob("*.py"):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            imports_package = (
                isinstance(node, ast.ImportFrom) and node.module == "twosat_formal.make.generators"
            )
            assert not imports_package, f"{path.name} imports the generators package back"
