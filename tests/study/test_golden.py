"""Same seeds, same bytes: the experiment outputs match the recorded golden files.

Restructuring the code must not change what it writes. ``tests/golden/`` holds the
dataset, design, prompts, results and report JSON of three small experiments on the
reference reasoners (measured fields masked); a change that is meant to alter those
bytes regenerates them in the same commit (``python tests/golden/regenerate.py``,
see ``tests/golden/README.md``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parents[1] / "golden"


def _regenerate_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_outputs_match_the_golden_files(tmp_path: Path) -> None:
    golden = _regenerate_module()
    texts = golden.produce(tmp_path)
    assert len(texts) == len(golden.RUNS) * len(golden.FILES)
    recorded = {
        str(p.relative_to(GOLDEN))
        for p in GOLDEN.glob("*/*")
        if p.is_file() and p.parent.name != "__pycache__"  # the loaded script's bytecode
    }
    assert recorded == set(texts), "golden files and produced files differ in name"
    for relative, text in sorted(texts.items()):
        expected = (GOLDEN / relative).read_text(encoding="utf-8")
        assert text == expected, (
            f"tests/golden/{relative} changed; if intended, run "
            "`python tests/golden/regenerate.py` and commit the golden files"
        )


def test_mask_hides_measured_fields_only() -> None:
    golden = _regenerate_module()
    record = {"id": "a", "proof": {"seconds": 1.5, "result": "proved"}, "r": [{"time_s": 2}]}
    masked = golden.mask(record)
    assert masked["id"] == "a" and masked["proof"]["result"] == "proved"
    assert masked["proof"]["seconds"] == "<measured>"
    assert masked["r"][0]["time_s"] == "<measured>"
    assert golden.mask([1, "x", None]) == [1, "x", None]
