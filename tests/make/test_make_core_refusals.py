"""The refusals of the make and core layers: each message, parameter and valid range.

Every case names one way a request, a formula, a transform, an edit or a JSON text
is refused, and the exact error it gets, so that a change to how the checks are
arranged cannot change what a user reads.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonread import loads
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.make.edits.operators import Edit
from twosat_formal.make.generators.draw import generate
from twosat_formal.make.generators.grids import grid_cells
from twosat_formal.make.perturb import OPERATORS
from twosat_formal.make.perturb.chain import parse_steps
from twosat_formal.make.perturb.transform import Transform

BASE = Formula([[1, 2], [-1, 2], [1, -2]])


def _transform(
    lmap: tuple[int, ...], perm: tuple[int, ...], witness: tuple[int, ...] = ()
) -> Transform:
    return Transform(
        "t",
        {},
        0,
        "equivalent",
        literal_map=(lmap,),
        clause_permutation=perm,
        num_vars=2,
        witness=witness,
    )


#: (case, the refused call, error type, parameter, valid, message)
CASES: list[tuple[str, Callable[[], object], type[Exception], str | None, str | None, str]] = [
    (
        "backbone B too big",
        lambda: generate("backbone", clauses=10, seed=1, B=6),
        ConfigError,
        "B",
        "0..5 for 10 core clauses",
        "B=6 needs 12 clauses, only 10 are left",
    ),
    (
        "backbone m_mono too big",
        lambda: generate("backbone", clauses=10, seed=1, m_mono=11),
        ConfigError,
        "m_mono",
        "0..10",
        "m_mono=11 exceeds the 10 core clauses",
    ),
    (
        "backbone B and m_mono miss",
        lambda: generate("backbone", clauses=20, seed=1, B=2, m_mono=3),
        ConfigError,
        "clauses",
        "6..8",
        "B=2 and m_mono=3 make 7 core clauses, not 20 (±1)",
    ),
    (
        "backbone n too small",
        lambda: generate("backbone", seed=1, n=3, B=2, m_mono=4),
        ConfigError,
        "n",
        ">= 4",
        "n=3 variables leave fewer than 2 free ones for 4 monotone clauses",
    ),
    (
        "backbone r too big",
        lambda: generate("backbone", clauses=10, seed=1, r=10),
        ConfigError,
        "r",
        "0..9 for 10 clauses",
        "r=10 fillers leave no room for a core in 10 clauses",
    ),
    (
        "mono m_pos too big",
        lambda: generate("mono-bridge", clauses=10, seed=1, m_pos=10),
        ConfigError,
        "m_pos",
        "0..9",
        "m_pos=10 exceeds the 9 monotone clauses",
    ),
    (
        "mono m_neg too big",
        lambda: generate("mono-bridge", clauses=10, seed=1, m_neg=12),
        ConfigError,
        "m_neg",
        "0..9",
        "m_neg=12 exceeds the 9 monotone clauses",
    ),
    (
        "mono both miss",
        lambda: generate("mono-bridge", clauses=20, seed=1, m_pos=2, m_neg=3),
        ConfigError,
        "clauses",
        "5..7",
        "m_pos=2 and m_neg=3 make 6 clauses, not 20 (±1)",
    ),
    (
        "mono r too big",
        lambda: generate("mono-bridge", clauses=10, seed=1, r=10),
        ConfigError,
        "r",
        "0..9 for 10 clauses",
        "r=10 fillers leave no room for the bridge in 10 clauses",
    ),
    (
        "implication-cycle r too big",
        lambda: generate("implication-cycle", clauses=10, seed=1, r=9),
        ConfigError,
        "r",
        "0..7 for 10 clauses",
        "r=9 fillers leave no room for a core of at least 3 clauses in 10",
    ),
    (
        "symmetry too few",
        lambda: generate("symmetry", clauses=1, seed=1),
        ConfigError,
        "clauses",
        ">= 2",
        "symmetry needs at least 2 clauses, got 1",
    ),
    (
        "grid table1 family",
        lambda: grid_cells("table1", family="backbone"),
        ConfigError,
        "family",
        "none with --grid table1",
        "the table1 grid fixes its families and clause counts",
    ),
    (
        "grid table1 clauses",
        lambda: grid_cells("table1", clauses=20),
        ConfigError,
        "clauses",
        "none with --grid table1",
        "the table1 grid fixes its families and clause counts",
    ),
    (
        "grid no family",
        lambda: grid_cells("paper-3"),
        ConfigError,
        "family",
        "one of implication-cycle, equivalence-core, backbone, mono-bridge, symmetry",
        "the paper-3 grid sweeps the knobs of one family; name it",
    ),
    (
        "grid unknown",
        lambda: grid_cells("nope"),
        ConfigError,
        "grid",
        "one of table1, paper-3, paper-7",
        "unknown grid 'nope'",
    ),
    (
        "grid count",
        lambda: grid_cells("table1", count=0),
        ConfigError,
        "count",
        ">= 1",
        "count must be >= 1, got 0",
    ),
    (
        "steps number",
        lambda: parse_steps(["reorder"], ["2.order=reversed"]),
        ConfigError,
        "set",
        "1..1",
        "setting '2.order=reversed' names step 2 of 1",
    ),
    (
        "steps op",
        lambda: parse_steps(["reorder"], ["filler.count=3"]),
        ConfigError,
        "set",
        None,
        "operator 'filler' is not in the chain",
    ),
    (
        "steps param",
        lambda: parse_steps(["reorder"], ["nosuch=3"]),
        ConfigError,
        "set",
        None,
        "no operator of the chain has a parameter 'nosuch'",
    ),
    (
        "filler variables existing",
        lambda: OPERATORS.get("filler").apply(BASE, seed=1, over="existing", variables=3),
        ConfigError,
        "variables",
        None,
        "'variables' counts fresh variables; it does not apply to over='existing'",
    ),
    (
        "filler one var",
        lambda: OPERATORS.get("filler").apply(Formula([[1]]), seed=1, over="existing", count=1),
        ConfigError,
        "over",
        None,
        "filler over existing variables needs a base with at least two variables",
    ),
    (
        "formula zero",
        lambda: Formula([[1, 0]]),
        ConfigError,
        "literal",
        None,
        "a clause cannot contain the literal 0",
    ),
    (
        "formula offsets",
        lambda: Formula.from_arrays([1, 2], [0, 3]),
        ConfigError,
        "offsets",
        None,
        "clause offsets must rise from 0 to the number of literals",
    ),
    (
        "formula flat",
        lambda: Formula.from_arrays([[1, 2]], [0, 2]),
        ConfigError,
        "arrays",
        None,
        "literals and offsets must be flat arrays",
    ),
    (
        "formula beyond",
        lambda: Formula([[1, 5]], num_vars=3),
        ConfigError,
        "num_vars",
        ">= 5",
        "literal 5 is beyond the 3 declared variables",
    ),
    (
        "formula name count",
        lambda: Formula([[1, 2]], names=["a"]),
        ConfigError,
        "names",
        None,
        "1 names given for 2 variables",
    ),
    (
        "formula bad name",
        lambda: Formula([[1, 2]], names=["a", "not"]),
        ConfigError,
        "names",
        "an identifier [A-Za-z_][A-Za-z0-9_]* that is not not/or/and/vars",
        "invalid variable name 'not'",
    ),
    (
        "formula dup name",
        lambda: Formula([[1, 2, 3]], names=["a", "b", "a"]),
        ConfigError,
        "names",
        None,
        "variable name 'a' is used twice",
    ),
    (
        "formula sparse range",
        lambda: Formula([[1, 2]], names={3: "c"}, num_vars=2),
        ConfigError,
        "names",
        None,
        "variable 3 is not in 1..2",
    ),
    (
        "formula sparse bad",
        lambda: Formula([[1, 2]], names={1: "3x"}),
        ConfigError,
        "names",
        "an identifier [A-Za-z_][A-Za-z0-9_]* that is not not/or/and/vars",
        "invalid variable name '3x'",
    ),
    (
        "formula sparse default clash",
        lambda: Formula([[1, 2]], names={1: "x2"}),
        ConfigError,
        "names",
        None,
        "variable name 'x2' is used twice",
    ),
    (
        "transform map length",
        lambda: _transform((1,), (0, 1, 2)).check_shape(BASE),
        ConfigError,
        "literal_map",
        None,
        "literal map 0 has 1 entries for 2 base variables",
    ),
    (
        "transform map outside",
        lambda: _transform((1, 3), (0, 1, 2)).check_shape(BASE),
        ConfigError,
        "literal_map",
        None,
        "literal map 0 names a variable outside 1..2",
    ),
    (
        "transform perm",
        lambda: _transform((1, 2), (0, 1, 1)).check_shape(BASE),
        ConfigError,
        "clause_permutation",
        None,
        "the clause permutation is not a permutation of the 3 source clauses",
    ),
    (
        "transform witness",
        lambda: _transform((1, 2), (0, 1, 2), witness=(3,)).check_shape(BASE),
        ConfigError,
        "witness",
        None,
        "witness names a variable outside 1..2",
    ),
    (
        "edit outside",
        lambda: Edit("drop", 5, ((1, 2),), ()).check(BASE),
        ConfigError,
        "position",
        "0..3",
        "edit drop at clause 6 is outside the 3 clauses",
    ),
    (
        "edit before",
        lambda: Edit("drop", 0, ((1, -2),), ()).check(BASE),
        ConfigError,
        "before",
        None,
        "edit drop expects [[1, -2]] at clause 1, the formula has [[1, 2]]",
    ),
    (
        "edit after",
        lambda: Edit("negate-literal", 0, ((1, 2),), ((1, 7),)).check(BASE),
        ConfigError,
        "after",
        None,
        "edit negate-literal writes a clause outside variables 1..2",
    ),
    (
        "loads dup",
        lambda: loads('{"a": {"b": 1, "b": 2}}', source="x.json"),
        RecordError,
        None,
        None,
        "x.json:1: the key 'b' appears twice in one object",
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "parameter", "valid", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_refusal_keeps_its_message_parameter_and_range(
    call: Callable[[], object],
    error: type[Exception],
    parameter: str | None,
    valid: str | None,
    message: str,
) -> None:
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value) is error
    assert str(caught.value) == message
    assert getattr(caught.value, "parameter", None) == parameter
    assert getattr(caught.value, "valid", None) == valid
