"""The outcome of a solver run, with its certificate, and its JSON form.

A SAT result carries a model (one bool per variable). An UNSAT 2-CNF result carries
a contradiction cycle: a closed walk of literals through some ``x`` and ``-x`` in which
every step, last to first included, is an implication-graph edge. A formula with an
empty clause is UNSAT with no cycle; its certificate is the index of that clause
(``empty_clause``). A general (non-2) CNF found UNSAT by PySAT carries a cycle only
when its clauses of width one and two are UNSAT on their own; otherwise it has no
certificate and ``checked`` stays False.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["a"], ["~a", "b"]])
>>> r = SolveResult("SAT", model=(True, True), backend="scc", checked=True)
>>> r.to_json(f)
{'status': 'SAT', 'model': {'a': True, 'b': True}, 'backend': 'scc', 'checked': True}
>>> u = SolveResult("UNSAT", cycle=(1, -1), backend="scc", checked=True)
>>> u.to_json(Formula.from_named([["a"], ["~a"]]))["cycle"]
['a', '~a']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError

__all__ = ["STATUSES", "SolveResult", "certificate_array", "certificate_tuple"]

#: The two answers a solver gives.
STATUSES = ("SAT", "UNSAT")


@dataclass(frozen=True)
class SolveResult:
    """A label with its certificate.

    Attributes
    ----------
    status:
        ``"SAT"`` or ``"UNSAT"``.
    model:
        SAT only: the value of variable ``v`` at index ``v - 1``, for every variable.
    cycle:
        UNSAT 2-CNF: a closed walk of DIMACS literals through some ``x`` and ``-x``;
        every consecutive step, and the step from the last literal back to the
        first, is an implication-graph edge.
    backend:
        The backend that decided the formula (``scc``, ``pysat`` or ``z3``).
    general_cnf:
        True when the formula is not a 2-CNF (some clause is empty or wider than two).
    checked:
        True once the certificate has been verified against the formula.
    empty_clause:
        UNSAT because of an empty clause: the index of the first one (0-based).
    """

    status: str
    model: tuple[bool, ...] | None = None
    cycle: tuple[int, ...] | None = None
    backend: str = "scc"
    general_cnf: bool = False
    checked: bool = False
    empty_clause: int | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ConfigError(
                f"unknown status {self.status!r}", parameter="status", valid="SAT or UNSAT"
            )
        if self.status == "SAT" and (self.cycle is not None or self.empty_clause is not None):
            raise ConfigError("a SAT result carries a model, not a cycle", parameter="cycle")
        if self.status == "UNSAT" and self.model is not None:
            raise ConfigError("an UNSAT result carries no model", parameter="model")

    @property
    def is_sat(self) -> bool:
        """Whether the formula is satisfiable.

        >>> SolveResult("UNSAT").is_sat
        False
        """
        return self.status == "SAT"

    @property
    def has_certificate(self) -> bool:
        """Whether the result carries a model, a cycle or an empty-clause index."""
        return self.model is not None or self.cycle is not None or self.empty_clause is not None

    def to_json(self, formula: Formula) -> dict[str, Any]:
        """The JSON object of ``twosat-formal solve --json``, names from ``formula``.

        Keys: ``status``; ``model`` (``{name: bool}``, SAT only); ``cycle`` (literals
        as the DSL writes them, UNSAT 2-CNF only); ``backend``; ``checked``. Two keys
        appear only when they apply: ``empty_clause`` (its index) and
        ``general_cnf: true``.

        >>> f = Formula([[1, 2, 3]])
        >>> SolveResult("SAT", (True, False, False), backend="pysat",
        ...             general_cnf=True).to_json(f)["general_cnf"]
        True
        """
        out: dict[str, Any] = {"status": self.status}
        if self.model is not None:
            out["model"] = dict(zip(formula.names, map(bool, self.model), strict=True))
        if self.cycle is not None:
            out["cycle"] = formula.literal_names(self.cycle)
        if self.empty_clause is not None:
            out["empty_clause"] = self.empty_clause
        out["backend"] = self.backend
        out["checked"] = self.checked
        if self.general_cnf:
            out["general_cnf"] = True
        return out

    def to_json_text(self, formula: Formula) -> str:
        """``json.dumps(self.to_json(formula))``, byte for byte, built in bulk.

        A million-variable model or a million-literal cycle is joined from its parts
        with a few C-level passes rather than encoded key by key; variable names are
        identifiers (:func:`~twosat_formal.core.formula.is_valid_name`), so they need no
        escaping.

        >>> f = Formula([[1, -2]])
        >>> SolveResult("SAT", (True, False), checked=True).to_json_text(f)
        '{"status": "SAT", "model": {"x1": true, "x2": false}, "backend": "scc", "checked": true}'
        """
        parts = ['{"status": ', json.dumps(self.status)]
        if self.model is not None:
            if len(self.model) != formula.num_vars:
                raise ConfigError(
                    f"{len(self.model)} values for {formula.num_vars} variables", parameter="model"
                )
            parts += [', "model": ', _model_text(formula, self.model)]
        if self.cycle is not None:
            parts += [', "cycle": ', _cycle_text(formula, self.cycle)]
        if self.empty_clause is not None:
            parts += [', "empty_clause": ', json.dumps(self.empty_clause)]
        parts += [', "backend": ', json.dumps(self.backend), ', "checked": ']
        parts.append("true" if self.checked else "false")
        if self.general_cnf:
            parts.append(', "general_cnf": true')
        parts.append("}")
        return "".join(parts)


#: The last certificate a solver turned from a numpy array into a tuple, with a
#: read-only view of that array (see :func:`certificate_tuple`).
_LAST_CERTIFICATE: list[tuple[tuple[Any, ...], npt.NDArray[Any]]] = []


def certificate_tuple(
    values: npt.NDArray[Any], made: tuple[Any, ...] | None = None
) -> tuple[Any, ...]:
    """``tuple(values.tolist())``, the form a :class:`SolveResult` keeps, remembering ``values``.

    The check of the result and its JSON then read the array back
    (:func:`certificate_array`) instead of converting a million-entry tuple again.
    ``made``: that tuple, when the caller built ``values`` from it.

    >>> t = certificate_tuple(np.array([1, -2]))
    >>> t, certificate_array(t, np.int64).tolist()
    ((1, -2), [1, -2])
    """
    out = tuple(values.tolist()) if made is None else made
    view = values.view()
    view.flags.writeable = False
    _LAST_CERTIFICATE[:] = [(out, view)]
    return out


def certificate_array(values: Sequence[Any], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """``np.asarray(values, dtype)``; the remembered array if ``values`` is the tuple made from it.

    >>> certificate_array((True, False), np.bool_).tolist()
    [True, False]
    """
    if _LAST_CERTIFICATE:
        made, array = _LAST_CERTIFICATE[0]
        if made is values and array.dtype == np.dtype(dtype):
            return array
    return np.asarray(values, dtype=dtype)


def _model_text(formula: Formula, model: Sequence[bool]) -> str:
    """The JSON object ``{name: bool}`` of a model: names and separators interleaved."""
    if not model:
        return "{}"
    if formula.has_default_names:  # '{"x1": true, "x2": false}' from the numbers alone
        values = certificate_array(model, np.bool_)
        return _default_model_text(values)
    parts: list[str] = [""] * (2 * len(model))
    parts[0::2] = formula.names
    parts[1::2] = map(('": false, "', '": true, "').__getitem__, map(bool, model))
    return '{"' + "".join(parts)[:-3] + "}"


def _cycle_text(formula: Formula, cycle: Sequence[int]) -> str:
    """The JSON list of a cycle's literals as the DSL writes them."""
    if not cycle:
        return "[]"
    if formula.has_default_names:  # '["x5", "~x3"]' from the numbers alone
        lits = certificate_array(cycle, np.int64)
        if bool(np.any(lits == 0)) or int(np.abs(lits).max()) > formula.num_vars:
            formula.literal_names(lits)  # raises the error that names the bad variable
        return _default_cycle_text(lits)
    return '["' + '", "'.join(formula.literal_names(cycle)) + '"]'


#: The two ASCII digits of each of 0 to 99, as one 16-bit word (bytes in text order).
_DIGIT_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), np.uint8).view(
    np.uint16
)


def _decimal(values: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """The ASCII decimal digits of positive ints, right-aligned in rows, zero bytes before.

    >>> _decimal(np.array([7, 120])).tobytes()
    b'\\x00\\x007120'
    """
    width = len(str(int(values.max())))
    half = (width + 1) // 2  # two digits at a time
    pairs = np.empty((values.size, half), dtype=np.uint16)
    rest: npt.NDArray[np.signedinteger[Any]] = values.astype(np.int32 if width < 10 else np.int64)
    for column in range(half - 1, -1, -1):
        rest, pair = np.divmod(rest, 100)
        pairs[:, column] = np.take(_DIGIT_PAIRS, pair)
    digits = pairs.view(np.uint8)
    span = 2 * half
    for column in range(span - 1):  # a zero byte for each leading zero
        place = 10 ** (span - 1 - column)
        np.multiply(digits[:, column], values >= place, out=digits[:, column], casting="unsafe")
    return digits[:, span - width :]


def _rows_text(pieces: list[bytes | npt.NDArray[np.uint8]], rows: int) -> bytes:
    """Text laid out in rows of side-by-side pieces, read row by row, zero bytes left out.

    A piece is the same bytes on every row, or a ``(rows, width)`` array of bytes in
    which zero bytes stand for nothing (padding).

    >>> _rows_text([b"<", np.array([[97, 0], [98, 99]], dtype=np.uint8), b">"], 2)
    b'<a><bc>'
    """
    widths = [len(piece) if isinstance(piece, bytes) else piece.shape[1] for piece in pieces]
    text = np.empty((rows, sum(widths)), dtype=np.uint8)
    start = 0
    for piece, width in zip(pieces, widths, strict=True):
        block = np.frombuffer(piece, dtype=np.uint8) if isinstance(piece, bytes) else piece
        text[:, start : start + width] = block
        start += width
    return text.tobytes().translate(None, b"\0")


def _default_model_text(model: npt.NDArray[np.bool_]) -> str:
    """``json.dumps({"x1": bool, "x2": bool, ...})`` of a model, in a few numpy passes.

    >>> _default_model_text(np.array([True, False]))
    '{"x1": true, "x2": false}'
    """
    rows = model.size
    digits = _decimal(np.arange(1, rows + 1, dtype=np.int64))
    words = np.frombuffer(b"false" + b"true\0", dtype=np.uint8).reshape(2, 5)
    text = _rows_text([b'"x', digits, b'": ', words[model.view(np.uint8)], b", "], rows)
    return "{" + text[:-2].decode("ascii") + "}"


def _default_cycle_text(cycle: npt.NDArray[np.int64]) -> str:
    """``json.dumps`` of a cycle's default literal names (``x3``, ``~x3``), in numpy.

    >>> _default_cycle_text(np.array([3, -12]))
    '["x3", "~x12"]'
    """
    rows = cycle.size
    tilde = np.where(cycle < 0, ord("~"), 0).astype(np.uint8)[:, None]
    text = _rows_text([b'"', tilde, b"x", _decimal(np.abs(cycle)), b'", '], rows)
    return "[" + text[:-2].decode("ascii") + "]"
