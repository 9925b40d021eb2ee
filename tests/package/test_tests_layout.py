"""The tests mirror the package: each test file sits in the folder of what it tests.

The rule (docs/architecture.md, "Tests"): a test of ``twosat_formal/<folder>/`` sits in
``tests/<folder>/``; a test of a root module (``api.py``, ``errors.py``) sits at the top
of ``tests/`` and is named after it; tests of the package as a whole sit in
``tests/package/``. Shared helpers live in ``tests/support/``, files the tests read in
``tests/data/``, ``tests/golden/`` and ``tests/paper/``. Nothing else is in ``tests/``.
"""

from __future__ import annotations

from pathlib import Path

import twosat_formal

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = Path(twosat_formal.__file__).resolve().parent

WHOLE_PACKAGE = "package"
HELPERS = "support"
DATA_FOLDERS = frozenset({"data", "golden", "paper"})


def package_folders() -> set[str]:
    """The package's folders of modules (the layers): ``core``, ``solve``, ..."""
    return {
        p.parent.name
        for p in PACKAGE.glob("*/__init__.py")
        if len(list(p.parent.glob("*.py"))) > 1 or any(p.parent.glob("*/__init__.py"))
    }


def root_modules() -> set[str]:
    """The package's root modules (``api``, ``errors``, and ``resources``, a folder that
    is one module), private ones aside."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    singles = {p.parent.name for p in PACKAGE.glob("*/__init__.py")} - package_folders()
    return modules | singles


def python_files() -> list[Path]:
    """Every Python file under ``tests/``, caches aside, relative to ``tests/``."""
    return sorted(p.relative_to(TESTS) for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def misplaced(files: list[Path], folders: set[str], roots: set[str]) -> list[str]:
    """The files of ``files`` (relative to ``tests/``) that break the layout rule."""
    bad = []
    for path in files:
        top, name = path.parts[0], path.name
        if len(path.parts) == 1:
            stem = path.stem
            ok = name in {"__init__.py", "conftest.py"} or any(
                stem == f"test_{root}" or stem.startswith(f"test_{root}_") for root in roots
            )
        elif top in DATA_FOLDERS:
            ok = not name.startswith("test_")  # scripts beside data, never tests
        elif len(path.parts) == 2 and top == HELPERS:
            ok = not name.startswith("test_")
        elif len(path.parts) == 2 and (top in folders or top == WHOLE_PACKAGE):
            ok = name == "__init__.py" or (name.startswith("test_") and name.endswith(".py"))
        else:
            ok = False
        if not ok:
            bad.append(str(path))
    return bad


def test_every_test_file_sits_in_the_folder_of_what_it_tests() -> None:
    assert misplaced(python_files(), package_folders(), root_modules()) == []


def test_every_package_folder_has_its_test_folder_and_each_is_a_package() -> None:
    for folder in sorted(package_folders() | {WHOLE_PACKAGE, HELPERS}):
        assert (TESTS / folder / "__init__.py").is_file(), folder
    assert (TESTS / "__init__.py").is_file()


def test_test_basenames_are_unique() -> None:
    names = [p.name for p in python_files() if p.name.startswith("test_")]
    assert len(names) == len(set(names))


def test_the_rule_refuses_what_it_should() -> None:
    folders, roots = {"core", "solve"}, {"api", "errors"}
    good = [
        Path("test_api.py"),
        Path("test_errors_more.py"),
        Path("conftest.py"),
        Path("core/test_formula.py"),
        Path("package/test_import_graph.py"),
        Path("support/brute.py"),
        Path("golden/regenerate.py"),
    ]
    assert misplaced(good, folders, roots) == []
    bad = [
        Path("test_formula.py"),  # a core test at the top
        Path("test_apis.py"),  # not a root module's name
        Path("brute.py"),  # a helper outside support/
        Path("report/test_render.py"),  # not a package folder here
        Path("core/deep/test_x.py"),  # nested
        Path("core/helper.py"),  # a helper beside tests
        Path("support/test_x.py"),  # a test among the helpers
        Path("data/test_x.py"),  # a test among the data
    ]
    assert misplaced(bad, folders, roots) == [str(p) for p in bad]
