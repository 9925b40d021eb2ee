"""Deriving seeds: the one rule by which every seeded draw of the package gets its seed.

A derived seed is the SHA-256 digest of labels joined by a separator, read as a
big-endian integer and cut to its top ``bits`` bits. It is the same in every process and
on every platform (unlike :func:`hash`), and distinct labels give independent seeds.
Each caller keeps its own labels, separator and width, so the bytes of every dataset,
mapping and sampled answer stay as they were:

============================  =================================================  ====
caller                        labels (separator)                                 bits
============================  =================================================  ====
instances of a dataset        ``seed, index`` (``:``)                            63
perturbation chains           ``seed, instance id`` (``:``)                      63
symbolic edits                ``"edit", seed, instance id`` (``:``)              63
entity mappings               ``"twosat-formal/entities", seed, copy`` (``/``)   64
story themes                  ``"twosat-formal/story", theme, seed`` (``/``)     64
the ``ref/coin`` reasoner     ``"ref/coin", sample, prompt`` (``\\x00``)          256
============================  =================================================  ====

Examples
--------
>>> derive_seed(0, 1) == derive_seed(0, 1) != derive_seed(0, 2)
True
>>> derive_seed(0, 1) < 2**63 and derive_seed(0, 1, bits=256) >> 193 == derive_seed(0, 1)
True
>>> seeded_rng("a", sep="/").random() == seeded_rng("a", sep="/").random()
True
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["SEED_BITS", "derive_seed", "seeded_rng"]

#: The width of a derived seed unless a caller asks for another.
SEED_BITS = 63
_DIGEST_BITS = 256


def derive_seed(*labels: object, sep: str = ":", bits: int = SEED_BITS) -> int:
    """The top ``bits`` bits of ``sha256(sep.join(str(label) ...))`` as an integer.

    Parameters
    ----------
    *labels
        The parts the seed is derived from, in order (written with :class:`str`).
    sep
        The separator written between the labels.
    bits
        How many of the digest's leading bits the seed keeps, in ``[1, 256]``.

    Returns
    -------
    int
        A seed in ``[0, 2**bits)``.

    Raises
    ------
    ValueError
        If ``bits`` is outside ``[1, 256]``.
    """
    if not 1 <= bits <= _DIGEST_BITS:
        raise ValueError(f"bits must be in [1, {_DIGEST_BITS}], got {bits}")
    text = sep.join(str(label) for label in labels)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest, "big") >> (_DIGEST_BITS - bits)


def seeded_rng(*labels: object, sep: str = ":", bits: int = SEED_BITS) -> random.Random:
    """A :class:`random.Random` seeded with :func:`derive_seed` of the same arguments."""
    return random.Random(derive_seed(*labels, sep=sep, bits=bits))
