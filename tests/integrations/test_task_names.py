"""``export --name``: any name gives task files Python compiles, named as inspect finds them.

The inspect task file defines a function named by
:func:`~twosat_formal.integrations.task_files.task_identifier`, and both the inspect task
file and lm-eval's ``utils.py`` quote the name in their docstrings: a keyword, a
character that is no identifier's (``²``), one Python would normalise (``ﬁ``) or a
name holding ``\"\"\"`` must still give modules that compile, with the function name
the folder's files are named after.
"""

from __future__ import annotations

import ast
import keyword
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.integrations import make_dataset
from twosat_formal.integrations.exports import ExportOptions, export_dataset
from twosat_formal.integrations.task_files import task_identifier


@given(st.text(max_size=12))
def test_a_task_identifier_is_a_python_name_that_stays_itself(name: str) -> None:
    ident = task_identifier(name)
    assert ident.isidentifier() and not keyword.iskeyword(ident)
    assert unicodedata.normalize("NFKC", ident) == ident  # the name Python gives the function
    assert ident == "".join(c if re.fullmatch(r"\w", c) else "_" for c in ident)


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True))
def test_a_name_that_is_already_an_identifier_is_kept(name: str) -> None:
    assert task_identifier(name) == (f"task_{name}" if keyword.iskeyword(name) else name)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    dataset, prompts, _ = make_dataset(tmp_path_factory.mktemp("inputs"))
    return [dataset, prompts]


NAMES = ["class", "None", 'x"""y', "a²", "ﬁle", "it's\"", "back\\slash", "2sat", "twosat-v1"]


def _module(path: Path) -> ast.Module:
    text = path.read_text(encoding="utf-8")
    compile(text, str(path), "exec")  # what `inspect eval` and lm-eval's import do
    return ast.parse(text)


@pytest.mark.parametrize("name", NAMES)
def test_any_name_gives_task_files_that_compile(
    inputs: list[Path], tmp_path: Path, name: str
) -> None:
    ident = task_identifier(name)
    files = export_dataset(
        inputs, "inspect", tmp_path / "inspect", certify=False, options=ExportOptions(name=name)
    )
    assert sorted(f.name for f in files) == [f"{ident}.jsonl", f"{ident}.py"]
    tree = _module(tmp_path / "inspect" / f"{ident}.py")
    functions: list[Any] = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert [f.name for f in functions] == [ident]
    assert name in (ast.get_docstring(tree) or "")  # the docstring names it
    export_dataset(
        inputs, "lm-eval", tmp_path / "lm-eval", certify=False, options=ExportOptions(name=name)
    )
    utils = _module(tmp_path / "lm-eval" / "utils.py")
    assert name in (ast.get_docstring(utils) or "")
    assert (tmp_path / "lm-eval" / f"{ident}.yaml").is_file()
