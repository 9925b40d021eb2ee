"""An experiment spec's fields are read strictly, each error naming its field and file.

Written from the field list of ``twosat_formal.study.experiments.spec``'s docstring: a value
of the wrong JSON type, outside its range or unknown to its table is refused with
exit code 2 and one ``error:`` line that names the file and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import cli
from twosat_formal.errors import RecordError
from twosat_formal.study.experiments.spec import KINDS, parse_spec

GOOD: dict[str, Any] = {
    "name": "x",
    "title": "X",
    "kind": "grid",
    "formulas": 1,
    "templates": ["logic"],
    "cells": [{"family": "backbone", "clauses": [10]}],
}


def refused(**fields: object) -> str:
    with pytest.raises(RecordError) as info:
        parse_spec({**GOOD, **fields}, source="s.json")
    return str(info.value)


@given(st.integers(-3, 1000))
def test_formulas_is_a_positive_integer(formulas: int) -> None:
    if formulas >= 1:
        assert parse_spec({**GOOD, "formulas": formulas}).formulas == formulas
    else:
        assert refused(formulas=formulas).startswith("s.json: field 'formulas' must be >= 1")


@given(st.floats(allow_nan=False) | st.integers(-2, 2))
def test_knob_level_is_a_number_in_0_1(level: float) -> None:
    if 0 <= level <= 1:
        spec = parse_spec({**GOOD, "knob_level": level})
        assert spec.knob_level == level and isinstance(spec.knob_level, float)
    else:
        assert "field 'knob_level' must be" in refused(knob_level=level)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"formulas": True}, "field 'formulas' must be an integer, not boolean"),
        ({"seed": "3"}, "field 'seed' must be an integer, not string"),
        ({"ask_cycle": 1}, "field 'ask_cycle' must be true or false, not number"),
        ({"knob_level": "0.5"}, "field 'knob_level' must be a number, not string"),
        ({"templates": []}, "field 'templates' must not be empty"),
        ({"templates": ["logic", 3]}, "field 'templates[1]' must be a string, not number"),
        ({"cells": [{"clauses": [10]}]}, "field 'cells[0]': a cell names its generator 'family'"),
        ({"cells": ["backbone"]}, "field 'cells[0]' must be an object, not string"),
        ({"sampling": {"top_p": 2}}, "field 'sampling': option top_p=2 is not a number in (0, 1]"),
        ({"sampling": {"max_token": 5}}, "unknown sampling parameter 'max_token'"),
        ({"sampling": {"models": {"openai/m": {"seed": -1}}}}, "models['openai/m']: option seed"),
        ({"sampling": {"models": ["openai/m"]}}, "'models' must map model specs to objects"),
        ({"questions": []}, "field 'questions' must not be empty"),
        ({"questions": ["maxsat9"]}, "field 'questions': unknown question type 'maxsat9'"),
        ({"themes": ["spy"]}, "field 'themes': only a story experiment has themes"),
        ({"kind": "story", "themes": ["nope"]}, "field 'themes': unknown story theme 'nope'"),
        ({"kind": "story", "themes": ["spy", "spy"]}, "field 'themes': themes must be"),
        ({"kind": "party"}, "field 'kind' must be 'grid'"),
    ],
)
def test_each_field_error_names_its_field(fields: dict[str, object], message: str) -> None:
    assert message in refused(**fields)


def test_every_kind_and_the_defaults() -> None:
    for kind in KINDS:
        spec = parse_spec({**GOOD, "kind": kind})
        assert spec.kind == kind and spec.questions == ("decision",)
        assert bool(spec.themes) == (kind == "story")
    spec = parse_spec({**GOOD, "sampling": {"max_tokens": "16384"}, "extra": 1})
    assert (spec.seed, spec.knob_level, spec.sampling) == (0, 0.5, {"max_tokens": "16384"})
    assert isinstance(spec.templates, tuple) and isinstance(spec.cells, tuple)


def test_a_bad_spec_file_is_one_located_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.json"
    text = json.dumps({**GOOD, "knob_level": 3}, indent=1)
    path.write_text(text, encoding="utf-8")
    line = 1 + text[: text.index('"knob_level"')].count("\n")
    out_dir = str(tmp_path / "run")
    code, out, err = cli(capsys, "run-experiment", str(path), "-m", "ref/oracle", "-o", out_dir)
    assert code == 2 and not out and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"error: {path}:{line}: field 'knob_level' must be <= 1.0, not 3"
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    inside = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    return [prefix] + [p for key, item in inside for p in paths(item, (*prefix, key))]


@given(JSON, st.data())
def test_line_of_path_finds_each_value_where_the_text_holds_it(
    value: Any, data: st.DataObject
) -> None:
    from twosat_formal.core.jsonread import line_of_path

    path = data.draw(st.sampled_from(paths(value)))
    if not path:
        return
    marked = json.loads(json.dumps(value))
    holder = marked
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = "@@here@@"
    text, shown = json.dumps(value, indent=1), json.dumps(marked, indent=1)
    assert line_of_path(text, path) == 1 + shown[: shown.index('"@@here@@"')].count("\n")
    assert line_of_path(json.dumps(value), path) == 1
    assert line_of_path(text, (*path[:-1], "@@absent@@")) is None


# -- cells -----------------------------------------------------------------------------------


def expanded(kind: str, **settings: object) -> int:
    from twosat_formal.study.experiments.design import expand

    cell = {"family": "backbone", "clauses": [20], **settings}
    return len(expand(parse_spec({**GOOD, "kind": kind, "cells": [cell]})))


@given(st.integers(-2, 30) | st.lists(st.integers(-1, 30), max_size=3))
def test_a_cells_clauses_are_positive_counts(clauses: int | list[int]) -> None:
    from twosat_formal.errors import ConfigError

    counts = clauses if isinstance(clauses, list) else [clauses]
    if counts and all(c >= 1 for c in counts):
        assert expanded("grid", clauses=clauses) == len(counts)
    else:
        with pytest.raises(ConfigError, match="'clauses' must be a positive integer"):
            expanded("grid", clauses=clauses)


@settings(max_examples=40)
@given(st.lists(st.floats(-0.5, 1.5, allow_nan=False) | st.integers(-1, 2), max_size=3))
def test_a_sweeps_levels_are_numbers_in_0_1(levels: list[float]) -> None:
    from twosat_formal.errors import ConfigError
    from twosat_formal.study.experiments.design import expand

    cell = {"family": "equivalence-core", "clauses": [20], "knobs": ["free_ratio"]}
    spec = parse_spec({**GOOD, "kind": "sweep", "cells": [{**cell, "levels": levels}]})
    if levels and all(0 <= v <= 1 for v in levels):
        assert {c.level for c in expand(spec)} <= {float(v) for v in levels}
    else:
        with pytest.raises(ConfigError, match="'levels' must be a non-empty list"):
            expand(spec)


@pytest.mark.parametrize(
    ("kind", "settings", "parameter"),
    [
        ("edits", {"modes": ["cumulative", "cumulative"]}, "modes"),
        ("edits", {"premise_edits": "yes"}, "premise_edits"),
        ("edits", {"order": "backward"}, "order"),
        ("edits", {"count": True}, "count"),
        ("sweep", {"grid": "paper-5"}, "grid"),
        ("sweep", {"knobs": "beta"}, "knobs"),
        ("duplication", {"distinct": 40, "copies": 1.5}, "copies"),
    ],
)
def test_a_cell_setting_is_checked_by_its_rule(
    kind: str, settings: dict[str, object], parameter: str
) -> None:
    from twosat_formal.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        expanded(kind, **settings)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(f"cell of 'backbone': {parameter!r} must be")
