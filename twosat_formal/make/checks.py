"""Integer arguments of the builders' Python API: seeds and clause positions, checked once.

Every record a builder writes names the seed it was made with, and ``certify`` reads
that seed back as an integer; a seed that is not one (text, a float, a boolean) would
make a record that cannot certify. The generators, the perturbation chains and the
symbolic edits therefore refuse it here, with a :class:`ConfigError` naming the
parameter, before any work is done. A clause position, a clause count and an edit
level are checked the same way.

Examples
--------
>>> check_seed(7)
7
>>> check_seed(True)
Traceback (most recent call last):
...
twosat_formal.errors.ConfigError: seed must be an integer, got True
>>> check_int(1.0, "position")
Traceback (most recent call last):
...
twosat_formal.errors.ConfigError: position must be an integer, got 1.0
>>> check_int(-1, "level", minimum=0)
Traceback (most recent call last):
...
twosat_formal.errors.ConfigError: level must be an integer >= 0, got -1
"""

from __future__ import annotations

from twosat_formal.errors import ConfigError

__all__ = ["check_int", "check_seed"]


def check_int(value: object, parameter: str, *, minimum: int | None = None) -> int:
    """``value`` if it is an integer (a ``bool`` is not one), at least ``minimum`` when
    given, else :class:`ConfigError`.

    Parameters
    ----------
    value:
        The value given.
    parameter:
        Its name, for the error (``parameter`` of the :class:`ConfigError`).
    minimum:
        The smallest value taken (none: any integer).

    Returns
    -------
    int
        ``value`` itself.
    """
    below = minimum is not None and isinstance(value, int) and value < minimum
    if isinstance(value, bool) or not isinstance(value, int) or below:
        floor = "" if minimum is None else f" >= {minimum}"
        raise ConfigError(
            f"{parameter} must be an integer{floor}, got {value!r}",
            parameter=parameter,
            valid="an int" if minimum is None else f">= {minimum}",
        )
    return value


def check_seed(seed: object) -> int:
    """``seed`` if it is an integer, else :class:`ConfigError` naming ``seed``."""
    return check_int(seed, "seed")
