"""``scripts/slow_tests.py``: the tests over a threshold that lack the ``slow`` marker.

The reports are written here by hand (no test is timed); pytest collects a small
project written here, whose tests carry the marker in each way pytest allows.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slow_tests.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slow_tests_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PROJECT = {
    "pytest.ini": """
        [pytest]
        markers =
            slow: long
    """,
    "test_a.py": """
        import pytest

        @pytest.mark.slow
        def test_marked():
            pass

        def test_unmarked():
            pass

        def test_quick():
            pass

        @pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
        def test_param(n):
            pass

        class TestGroup:
            pytestmark = pytest.mark.slow

            def test_in_class(self):
                pass
    """,
    "sub/test_b.py": """
        import pytest

        pytestmark = pytest.mark.slow

        def test_module_marked():
            pass
    """,
}

REPORT = """\
============================= test session starts ==============================
12.00s call     test_a.py::test_quick   (a line of a test's own output, not a duration)
=========================== slowest durations ===========================
95.10s call     sub/test_b.py::test_module_marked
40.00s call     test_a.py::test_param[1]
30.00s call     test_a.py::test_param[2]
20.50s setup    test_a.py::TestGroup::test_in_class
12.25s setup    test_a.py::test_unmarked
3.00s call     test_a.py::test_unmarked
11.00s call     test_a.py::test_marked
10.00s call     test_a.py::test_quick
4.00s call     test_a.py::test_gone

(12 durations < 0.005s hidden.  Use -vv to show these durations.)
=========================== short test summary info ============================
99.00s call     test_a.py::test_quick
======================== 8 passed in 100.00s (0:01:40) =========================
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_the_report_is_read_from_its_durations_section_only() -> None:
    slow = load()
    durations = slow.parse_report(REPORT)
    assert [(d.seconds, d.phase, d.node) for d in durations[:2]] == [
        (95.1, "call", "sub/test_b.py::test_module_marked"),
        (40.0, "call", "test_a.py::test_param[1]"),
    ]
    assert len(durations) == 9
    assert all(d.node != "test_a.py::test_quick" or d.seconds == 10.0 for d in durations)
    assert slow.over(durations, 10.0) == {
        "sub/test_b.py::test_module_marked": 95.1,
        "test_a.py::test_param[1]": 40.0,
        "test_a.py::test_param[2]": 30.0,
        "test_a.py::TestGroup::test_in_class": 20.5,
        "test_a.py::test_unmarked": 12.25,  # its setup, the longer phase
        "test_a.py::test_marked": 11.0,
    }  # test_quick: 10.00 s is not over 10


@pytest.mark.slow
def test_the_unmarked_tests_over_the_threshold_are_listed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = load()
    report = project / "durations.log"
    report.write_text(REPORT, encoding="utf-8")
    assert slow.main([str(report), "--root", str(project), "--threshold", "3.5"]) == 1
    captured = capsys.readouterr()
    assert [line.split() for line in captured.out.splitlines()] == [
        ["40.00", "test_a.py::test_param[1]"],
        ["12.25", "test_a.py::test_unmarked"],  # its setup, the longer phase
        ["10.00", "test_a.py::test_quick"],
    ]  # the marked ones (on the test, its class, its module, its parameter set) left out
    assert "test_a.py::test_gone" in captured.err and "test_gone" not in captured.out
    # the unmarked ones made quick: at the default threshold (10 s, test_quick's 10.00
    # not over it) nothing is left
    quick = REPORT.replace("40.00s call ", "4.00s call ").replace("12.25s setup", "1.25s setup")
    report.write_text(quick, encoding="utf-8")
    assert slow.main([str(report), "--root", str(project)]) == 0
    assert capsys.readouterr().out == ""


def test_a_report_without_durations_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = load()
    report = tmp_path / "plain.log"
    report.write_text("12.00s call     test_a.py::test_x\n1 passed\n", encoding="utf-8")
    assert slow.main([str(report)]) == 2
    assert "no 'slowest durations' section" in capsys.readouterr().err
    assert slow.main([str(tmp_path / "missing.log")]) == 2
    assert "missing.log" in capsys.readouterr().err


@pytest.mark.parametrize("threshold", ["nan", "-1", "inf", "ten"])
def test_a_threshold_that_is_not_a_number_of_seconds_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], threshold: str
) -> None:
    slow = load()
    with pytest.raises(SystemExit) as exit_:
        slow.main([str(tmp_path / "any.log"), f"--threshold={threshold}"])
    assert exit_.value.code == 2
    assert f"not {threshold!r}" in capsys.readouterr().err
