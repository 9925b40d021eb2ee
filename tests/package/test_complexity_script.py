"""``scripts/complexity.py``: the functions over the line limit and the complex blocks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("radon")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "complexity.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("complexity_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines, ``def`` and docstring included."""
    body = [f"{indent}def {name}() -> int:", f'{indent}    """Doc."""']
    body += [f"{indent}    x{i} = {i}" for i in range(lines - 3)]
    body.append(f"{indent}    return 0")
    return "\n".join(body) + "\n"


def branches(name: str, ifs: int) -> str:
    """A function of cyclomatic complexity ``ifs + 1``."""
    lines = [f"def {name}(x: int) -> int:"]
    lines += [f"    if x == {i}:\n        return {i}" for i in range(ifs)]
    return "\n".join([*lines, "    return -1"]) + "\n"


@pytest.mark.parametrize("lines", [79, 80, 81, 120])
def test_a_function_is_long_past_the_limit_counted_def_to_last_line(lines: int) -> None:
    script = load()
    source = function("f", lines) + "\n\nclass C:\n" + function("method", lines, "    ")
    found = script.long_functions(Path("m.py"), source, 80)
    assert [(b.name, b.size) for b in found] == (
        [("f", lines), ("C.method", lines)] if lines > 80 else []
    )


def test_nested_functions_are_counted_apart() -> None:
    script = load()
    source = "def outer() -> None:\n" + function("inner", 90, "    ")
    names = [b.name for b in script.long_functions(Path("m.py"), source, 80)]
    assert names == ["outer", "outer.inner"]


@pytest.mark.parametrize(("ifs", "rank"), [(9, "B"), (10, "C"), (20, "D"), (45, "F")])
def test_blocks_rank_by_cyclomatic_complexity(ifs: int, rank: str) -> None:
    from radon.complexity import cc_rank

    script = load()
    source = branches("f", ifs) + "\n\nclass K:\n    def m(self) -> None:\n        pass\n"
    blocks = {b.name: b.size for b in script.complexity_blocks(Path("m.py"), source)}
    assert blocks["f"] == ifs + 1
    assert cc_rank(blocks["f"]) == rank
    assert set(blocks) == {"f", "K", "K.m"}


def test_check_fails_past_either_limit_and_passes_within_them(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text(function("short", 10) + "\n\n" + branches("plain", 2))

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(SCRIPT), str(package), *options],
            capture_output=True,
            text=True,
            check=False,
        )

    within = run("--check")
    assert within.returncode == 0, within.stdout + within.stderr
    assert "functions over 80 lines: 0" in within.stdout
    assert "0 of 2 (0.0 %)" in within.stdout
    (package / "b.py").write_text(textwrap.dedent(branches("tangled", 12)))
    complex_one = run("--check")
    assert complex_one.returncode == 1
    assert "1 of 3 (33.3 %)" in complex_one.stdout
    assert "pkg/b.py:1 tangled" in complex_one.stdout
    assert run("--check", "--max-share", "50").returncode == 0
    (package / "b.py").write_text(function("long", 81))
    assert run("--check").returncode == 1
    assert run().returncode == 0  # without --check it only reports


@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "no such file or folder"), ("def f(:\n", "bad.py:1:")],
)
def test_a_missing_path_or_a_file_that_does_not_parse_is_a_usage_error(
    tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "bad.py"
    if content is not None:
        path.write_text(content)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert expected in done.stderr and "Traceback" not in done.stderr
