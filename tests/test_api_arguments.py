"""The curated API (``import twosat_formal as tf``) refuses an argument of the wrong
type with :class:`ArgumentTypeError` naming it, before any work, and a value out of
range with a :class:`ConfigError`: never a bare TypeError, AttributeError or
FileExistsError, and never a str read as its characters or a bool read as a count."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import twosat_formal as tf
from twosat_formal.errors import ArgumentTypeError, ConfigError

# mypy: disable-error-code="arg-type"

#: Values no argument below takes: neither text, a path, a list, a prompt nor an instance.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=3),
    st.builds(object),
)
#: Values that are no list of things: a str, bytes, a mapping or a scalar.
NOT_LISTS = st.one_of(
    SCALARS.filter(lambda value: value is not None),
    st.binary(min_size=1, max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@cache
def _pipeline() -> tuple[Any, Any, Path]:
    """An instance, its prompt and a folder (built once: the checks come before any work)."""
    inst = tf.generate("backbone", clauses=6, seed=2)
    return inst, tf.verbalize(inst, "door", seed=3), Path(tempfile.mkdtemp())


def _refused(call: Callable[[], object], parameter: str) -> ArgumentTypeError:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    assert caught.value.parameter == parameter, caught.value
    return caught.value


@given(SCALARS.filter(lambda value: value is not None))
def test_score_refuses_an_instance_prompt_or_finish_reason_of_the_wrong_type(bad: object) -> None:
    inst, prompt, _ = _pipeline()
    _refused(lambda: tf.score("The answer is: Yes", prompt, bad), "instance")
    _refused(lambda: tf.score("The answer is: Yes", bad, inst), "prompt")
    _refused(lambda: tf.score("The answer is: Yes", prompt, finish_reason=bad), "finish_reason")


@settings(max_examples=40)
@given(st.one_of(NOT_LISTS, st.lists(SCALARS, min_size=1, max_size=2)))
def test_evaluate_refuses_models_prompts_and_instances_of_the_wrong_type(bad: object) -> None:
    inst, prompt, folder = _pipeline()
    store = folder / "never.sqlite"
    _refused(lambda: tf.evaluate(bad, [prompt], store, instances=[inst]), "models")
    _refused(lambda: tf.evaluate("ref/oracle", bad, store, instances=[inst]), "prompts")
    _refused(lambda: tf.evaluate("ref/oracle", [prompt], store, instances=bad), "instances")
    assert not store.exists()


@given(SCALARS)
def test_a_path_argument_must_be_a_str_or_path(bad: object) -> None:
    inst, prompt, folder = _pipeline()
    _refused(lambda: tf.evaluate("ref/oracle", [prompt], bad, instances=[inst]), "store")
    _refused(lambda: tf.report(bad, folder / "out"), "store")
    _refused(lambda: tf.report(folder / "runs.sqlite", bad), "out")


def test_an_empty_path_is_refused_rather_than_read_as_the_working_folder() -> None:
    inst, prompt, folder = _pipeline()
    with pytest.raises(ConfigError) as caught:
        tf.evaluate("ref/oracle", [prompt], "", instances=[inst])
    assert caught.value.parameter == "store"
    with pytest.raises(ConfigError) as caught:
        tf.report(folder / "runs.sqlite", "")
    assert caught.value.parameter == "out"


def test_evaluate_needs_a_model() -> None:
    inst, prompt, folder = _pipeline()
    with pytest.raises(ConfigError) as caught:
        tf.evaluate([], [prompt], folder / "none.sqlite", instances=[inst])
    assert caught.value.parameter == "models"
    assert not (folder / "none.sqlite").exists()


@pytest.mark.parametrize("samples", [True, 2.0, "3", math.nan, None])
def test_samples_must_be_an_int(samples: object) -> None:
    inst, prompt, folder = _pipeline()
    _refused(
        lambda: tf.evaluate(
            "ref/oracle", [prompt], folder / "s.sqlite", instances=[inst], samples=samples
        ),
        "samples",
    )


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda i, p, d: tf.verbalize(i, "door", shuffle=True), "shuffle"),
        (lambda i, p, d: tf.report(d / "runs.sqlite", d / "out", titel="x"), "titel"),
        (lambda i, p, d: tf.evaluate("ref/oracle", [p], d / "o.sqlite", instances=[i], x=1), "x"),
    ],
)
def test_an_unknown_option_is_refused_naming_it_and_the_options_taken(
    call: Callable[[Any, Any, Path], object], parameter: str
) -> None:
    error = _refused(lambda: call(*_pipeline()), parameter)
    assert error.valid and parameter not in error.valid.split(", ")


@given(st.one_of(st.booleans(), st.floats(), st.text(max_size=3), st.none()))
def test_verbalize_refuses_a_seed_that_is_no_int(seed: object) -> None:
    """A float seed was truncated and a bool read as 0 or 1: the record names a seed
    that is not the one given."""
    inst, _, _ = _pipeline()
    with pytest.raises(ConfigError) as caught:
        tf.verbalize(inst, "door", seed=seed)
    assert caught.value.parameter == "seed"


@pytest.mark.parametrize("params", [None, "", [], "order=reversed", 3, ("order", "reversed")])
def test_a_chain_step_whose_params_are_no_mapping_is_refused(params: object) -> None:
    """``dict("")`` and ``dict([])`` are empty: such a step ran with no parameters."""
    inst, _, _ = _pipeline()
    _refused(lambda: tf.perturb(inst, ("reorder", params)), "steps")


@given(SCALARS.filter(lambda value: not isinstance(value, str)))
def test_solve_refuses_a_backend_that_is_no_name(backend: object) -> None:
    inst, _, _ = _pipeline()
    with pytest.raises(ArgumentTypeError):
        tf.solve(inst, backend=backend)


@given(st.one_of(st.integers(), st.binary(max_size=2), st.lists(st.text(max_size=2), max_size=2)))
def test_report_refuses_a_title_that_is_no_str(title: object) -> None:
    _, _, folder = _pipeline()
    _refused(lambda: tf.report(folder / "runs.sqlite", folder / "t", title=title), "title")
    assert not (folder / "t").exists()


@pytest.mark.parametrize("seed", [True, 1.5, "1", None, math.inf])
def test_report_refuses_a_seed_that_is_no_int(seed: object) -> None:
    _, _, folder = _pipeline()
    with pytest.raises(ConfigError) as caught:
        tf.report(folder / "runs.sqlite", folder / "s", seed=seed)
    assert caught.value.parameter == "seed"


def test_report_refuses_an_output_folder_that_is_a_file(tmp_path: Path) -> None:
    inst, prompt, _ = _pipeline()
    store = tmp_path / "runs.sqlite"
    tf.evaluate("ref/oracle", [prompt], store, instances=[inst])
    with pytest.raises(ConfigError) as caught:
        tf.report(store, store)
    assert caught.value.parameter == "out_dir"
    assert tf.report(store, tmp_path / "report").name == "report.md"


@settings(max_examples=10)
@given(st.integers(3, 50))
def test_score_refuses_an_instance_the_prompt_does_not_verbalize(seed: int) -> None:
    """The answer was judged against the other instance's formula and label."""
    inst, prompt, _ = _pipeline()
    other = tf.generate("backbone", clauses=6, seed=seed)
    assert other.id != inst.id
    for scored in (prompt, prompt.record()):
        assert tf.score("The answer is: Yes", scored, inst).decision == "SAT"
        with pytest.raises(ConfigError) as caught:
            tf.score("The answer is: Yes", scored, other)
        assert caught.value.parameter == "instance"
    with pytest.raises(ConfigError):
        tf.score("The answer is: Yes", prompt, other.formula)


@given(SCALARS.filter(lambda value: value is not None))
def test_parse_refuses_a_format_that_is_no_name(format: object) -> None:
    _refused(lambda: tf.parse("a | b", format=format), "format")


def test_each_public_function_names_what_it_raises() -> None:
    """Every function of ``tf`` (:mod:`twosat_formal.api`'s; ``tf.certify`` and the others
    named like a subpackage are that subpackage, made callable) has a numpydoc Raises
    section."""
    from twosat_formal import api

    for name in api.NAMES:
        doc = getattr(api, name).__doc__ or ""
        if name == "evaluate_async":  # it raises evaluate's errors, as it says
            assert ":func:`evaluate`" in doc and "raises its errors" in doc
            continue
        assert "\n    Raises\n    ------\n" in doc, name
        section = doc.split("\n    Raises\n    ------\n", 1)[1]
        assert "ArgumentTypeError" in section, name
