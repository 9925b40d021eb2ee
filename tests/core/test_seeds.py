"""The one seed rule: :func:`twosat_formal.core.seeds.derive_seed` and every caller's bytes.

Each caller's seed is recomputed here from its documented formula with :mod:`hashlib`
directly, so a change to the helper that moved any dataset, mapping or sampled answer
fails here before it reaches the golden files.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.seeds import derive_seed, seeded_rng
from twosat_formal.evaluate.models.procedures import coin_rng
from twosat_formal.make.edits.modes import edit_seed
from twosat_formal.make.generators import derive_seed as generators_derive_seed
from twosat_formal.make.perturb.instances import instance_seed
from twosat_formal.verbalize.entities import mapping_rng
from twosat_formal.verbalize.story.themes import THEMES

labels = st.lists(st.one_of(st.integers(), st.text(max_size=20)), max_size=4)


def _top_bits(text: str, bits: int) -> int:
    """The leading ``bits`` bits of the digest, read off its binary string."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    binary = "".join(f"{byte:08b}" for byte in digest)
    return int(binary[:bits], 2)


@given(labels, st.sampled_from([":", "/", "\x00", ""]), st.integers(1, 256))
def test_derive_seed_is_the_digest_prefix(parts: list[object], sep: str, bits: int) -> None:
    expected = _top_bits(sep.join(str(p) for p in parts), bits)
    assert derive_seed(*parts, sep=sep, bits=bits) == expected
    assert 0 <= expected < 2**bits


@given(labels, st.integers(1, 256))
def test_seeded_rng_is_random_of_the_seed(parts: list[object], bits: int) -> None:
    ours = seeded_rng(*parts, bits=bits).getrandbits(64)
    assert ours == random.Random(derive_seed(*parts, bits=bits)).getrandbits(64)


@pytest.mark.parametrize("bits", [0, 257, -1])
def test_bits_out_of_range_is_refused(bits: int) -> None:
    with pytest.raises(ValueError, match="bits must be in"):
        derive_seed(1, bits=bits)


def _sha(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


@given(st.integers(0, 2**64), st.one_of(st.integers(0, 10**6), st.text(max_size=12)))
def test_dataset_perturb_and_edit_seeds_keep_their_formulas(seed: int, label: object) -> None:
    assert (
        generators_derive_seed(seed, label)
        == int.from_bytes(_sha(f"{seed}:{label}")[:8], "big") >> 1
    )
    assert (
        instance_seed(seed, str(label)) == int.from_bytes(_sha(f"{seed}:{label}")[:8], "big") >> 1
    )
    assert (
        edit_seed(seed, str(label)) == int.from_bytes(_sha(f"edit:{seed}:{label}")[:8], "big") >> 1
    )


@given(st.integers(0, 2**40), st.integers(0, 5), st.text(max_size=30))
def test_mapping_theme_and_coin_generators_keep_their_formulas(
    seed: int, copy: int, prompt: str
) -> None:
    entities = _sha(f"twosat-formal/entities/{seed}/{copy}")[:8]
    assert (
        mapping_rng(seed, copy).random() == random.Random(int.from_bytes(entities, "big")).random()
    )
    coin = _sha(f"ref/coin\x00{copy}\x00{prompt}")
    assert coin_rng(prompt, copy).random() == random.Random(int.from_bytes(coin, "big")).random()
    theme = THEMES.get("spy")
    story = random.Random(int.from_bytes(_sha(f"twosat-formal/story/spy/{seed}")[:8], "big"))
    pool = [theme.entity(i) for i in range(max(4, len(theme.vocabulary)))]
    assert theme.entities_for(4, seed=seed) == tuple(story.sample(pool, 4))


def test_pinned_values_of_today() -> None:
    """Values recorded before the rule was shared by all callers."""
    assert generators_derive_seed(7, 3) == 616456930342725979
    assert generators_derive_seed(0, "table1/clauses=10", 2) == 8317218294233612607
    assert instance_seed(5, "abc") == 5718922657695993135
    assert edit_seed(5, "abc") == 1357615477799869691
    assert mapping_rng(9, 2).getrandbits(64) == 18152346607142287794
    assert coin_rng("prompt text", 4).getrandbits(64) == 9932679469372644765
    assert THEMES.get("spy").entities_for(5, seed=3) == (
        "the cipher",
        "the rendezvous",
        "the coded postcard",
        "the diplomat",
        "the handler",
    )
