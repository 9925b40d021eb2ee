"""The three classes of a record's fields, and the byte-for-byte comparison ``certify`` makes.

Every field of every record ``certify`` reads is in exactly one class:

``re-derived``
    Regenerated from what the record says (family, params and seed; base, operator,
    params and seed; instance, template and seed; the edit chain) and compared with the
    stored value: same keys in the same order, same types, same values. The tool and
    Z3 versions a record names are re-derived too (they are the versions ``certify``
    runs under, which also write the ``c twosat-formal`` line of every DIMACS text),
    and so is the path a formula was read from (it is written again into the
    ``c source:`` line of the record's DIMACS text).
``measured``
    Timings only (``transforms[*].proof.seconds``, ``roundtrip.time_s``): recorded,
    never compared; a timing must be a finite, non-negative number.
``attested``
    What a model wrote (a story's introduction, clues, validator replies, the run that
    produced them). Nothing can re-derive it; it is bound into the record's id by a
    content hash, so a later change is caught, and it is *validated by a model*, never
    *proved*.

:func:`compare_record` walks a stored record beside the re-derived one, counts the
leaf fields of each class and names every difference by its path.

Examples
--------
>>> stored = {"id": "a", "transforms": [{"proof": {"result": "failed", "seconds": 0.5}}]}
>>> again = {"id": "a", "transforms": [{"proof": {"result": "proved", "seconds": 0.1}}]}
>>> result = compare_record("document", stored, again)
>>> print(result.differences[0])
transforms[0].proof.result is 'failed', re-derived 'proved'
>>> result.counts
{'re-derived': 2, 'measured': 1, 'attested': 0}
"""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ATTESTED",
    "CLASSES",
    "FIELD_CLASSES",
    "MEASURED",
    "RE_DERIVED",
    "Comparison",
    "compare_record",
    "field_class",
]

RE_DERIVED = "re-derived"
MEASURED = "measured"
ATTESTED = "attested"
#: The three classes, in report order.
CLASSES = (RE_DERIVED, MEASURED, ATTESTED)

_Pattern = tuple[str, ...]

_ATTEMPT = ("clues", "*", "attempts", "*")

#: Per record kind: the (path pattern, class) pairs of the fields that are not
#: re-derived. ``*`` matches any key or list index; a pattern covers the whole subtree
#: below it; the first matching pattern wins, so a re-derived rule listed before a
#: wider one takes its field out of it. Every other field is re-derived.
FIELD_CLASSES: dict[str, tuple[tuple[_Pattern, str], ...]] = {
    "instance": ((("transforms", "*", "proof", "seconds"), MEASURED),),
    "document": ((("transforms", "*", "proof", "seconds"), MEASURED),),
    "prompt": ((("roundtrip", "time_s"), MEASURED),),
    "story": (
        (("provenance", "tool_version"), RE_DERIVED),
        (("provenance",), ATTESTED),
        (("model",), ATTESTED),
        (("intro",), ATTESTED),
        ((*_ATTEMPT, "text"), ATTESTED),
        ((*_ATTEMPT, "finish_reason"), ATTESTED),
        ((*_ATTEMPT, "entities_reply"), ATTESTED),
        ((*_ATTEMPT, "state_replies"), ATTESTED),
        ((*_ATTEMPT, "error"), ATTESTED),
    ),
}


def _matches(pattern: _Pattern, path: Sequence[str | int]) -> bool:
    if len(path) < len(pattern):
        return False
    return all(p == "*" or p == str(k) for p, k in zip(pattern, path, strict=False))


def field_class(kind: str, path: Sequence[str | int]) -> str:
    """The class of the field at ``path`` of a record of ``kind``.

    >>> field_class("instance", ["transforms", 2, "proof", "seconds"])
    'measured'
    >>> field_class("instance", ["transforms", 2, "proof", "result"])
    're-derived'
    >>> field_class("story", ["clues", 0, "attempts", 1, "state_replies", 0])
    'attested'
    """
    for pattern, kind_of in FIELD_CLASSES.get(kind, ()):
        if _matches(pattern, path):
            return kind_of
    return RE_DERIVED


@dataclass
class Comparison:
    """The outcome of :func:`compare_record`: differences by path, fields per class."""

    differences: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    #: At most this many differences are listed; one more is listed as ``"..."``.
    limit: int = field(default=5, repr=False, compare=False)

    def differ(self, message: str) -> None:
        """List the difference ``message`` (``"..."`` once past :attr:`limit`)."""
        if len(self.differences) < self.limit:
            self.differences.append(message)
        elif len(self.differences) == self.limit:
            self.differences.append("...")


def _show_path(path: Sequence[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the record)"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _leaves(value: Any) -> int:
    """The fields of a value, without recursion: its leaves, an empty object or list
    counting one."""
    if not isinstance(value, Mapping | list | tuple):
        return 1
    stack, count = [value], 0
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping) and item:
            stack.extend(item.values())
        elif isinstance(item, list | tuple) and item:
            stack.extend(item)
        else:
            count += 1
    return count


def _identical(stored: Any, expected: Any) -> bool:
    """Whether two re-derived subtrees are the same JSON, key order and types included.

    One C-speed encoding of each instead of a walk; ``False`` (walk them) for values
    JSON cannot encode exactly (non-finite floats, other types) and whenever the
    texts differ, so a difference is always found, and named, by the walk.
    """
    if type(stored) is not type(expected):
        return False
    try:
        return _exact(stored) == _exact(expected)
    except (TypeError, ValueError):
        return False


_exact = json.JSONEncoder(allow_nan=False, check_circular=False, separators=(",", ":")).encode


def _same_leaf(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def compare_record(kind: str, stored: Any, expected: Any, *, limit: int = 5) -> Comparison:
    """Compare a stored record with its re-derived form, field by field.

    Re-derived fields must be equal (keys, key order, types, values); measured timings
    must be finite non-negative numbers; attested fields are counted and not compared
    (their binding is the record's id). At most ``limit`` differences are listed.

    >>> compare_record("prompt", {"a": 1, "b": [1]}, {"a": 1, "b": [1, 2]}).differences
    ['b has 1 items, re-derived 2']
    >>> compare_record("prompt", {"a": 1, "x": 0}, {"a": 1}).differences
    ["x is not a field of the re-derived record (fields: ['a'])"]
    """
    out = Comparison(limit=limit)
    rules = FIELD_CLASSES.get(kind, ())
    counts = _same(stored, expected, rules)
    if counts is not None:
        out.counts.update(counts)
        return out
    _walk(stored, expected, [], out, rules)
    return out


class _Walk(Exception):
    """The two records differ somewhere (or may): the walk must find and name it."""


def _same(stored: Any, expected: Any, rules: _Rules) -> dict[str, int] | None:
    """The counts of two records that are the same but for their valid timings, else ``None``.

    Most records re-derive exactly, so they are compared whole: the re-derived record
    is copied with the stored record's value in each measured field (only along the
    rules' paths; the stored record is not copied), and both are written once in
    ``marshal`` format 2; the same bytes of plain JSON values (:func:`_marshalled`) are
    the same JSON text, and otherwise the two JSON texts are compared. The leaves are
    counted without recursion.
    Whatever could differ, or hold a field the walk treats apart (an attested field, a
    container of another type, keys in another order, a timing that is not one),
    returns ``None``, and :func:`_walk` compares field by field and names it.
    """
    if any(kind_of != MEASURED for _, kind_of in rules):
        return None
    timings: list[Any] = []
    try:
        right = _with_timings(stored, expected, rules, 0, timings)
    except _Walk:
        return None
    for value in timings:
        if not _timing(value):
            return None
    fields = _plain_fields(stored) if _marshalled(stored) == _marshalled(right) else None
    if fields is None:  # not the same bytes, or not plain JSON: compare the JSON texts
        try:
            if _exact(stored) != _exact(right):
                return None
        except (TypeError, ValueError):
            return None
        fields = _leaves(stored)
    return {RE_DERIVED: fields - len(timings), MEASURED: len(timings), ATTESTED: 0}


def _marshalled(value: Any) -> bytes | None:
    """``value`` in ``marshal`` format 2 (``None`` if it has a type marshal refuses).

    Format 2 writes each object in full, without references to an object written
    before, so two values give the same bytes exactly when they are equal with the
    same exact types (``1``, ``1.0`` and ``True`` differ; so do a list and a tuple, and
    a subclass is refused) and the same key order: a test of the JSON texts' equality
    that builds no text, for values :func:`_plain_fields` accepts. (A later format
    writes the same value as different bytes when its objects are shared differently:
    the comparison then falls back to the JSON texts, slower, with the same verdict.)
    """
    try:
        # another format gives the same verdicts, only slower (see above)
        return marshal.dumps(value, 2)  # no-mutate
    except ValueError:
        return None


def _plain_fields(value: Any) -> int | None:
    """:func:`_leaves` of a value that encodes as JSON (``None`` for any other).

    Plain: objects with string keys, lists and tuples, strings, integers, booleans,
    ``None`` and finite floats, so :data:`_exact` would encode it without an error.
    A container of leaves alone is counted at once, by the types it holds.
    """
    if type(value) not in _CONTAINERS:
        return 1 if _plain_leaf(value) else None
    stack, count = [value], 0
    while stack:
        item = stack.pop()
        if type(item) is dict:
            try:
                "".join(item)  # every key a string
            except TypeError:
                return None
            item = item.values()
        if not item:
            count += 1
            continue
        if _LEAF_TYPES.issuperset(map(type, item)):
            count += len(item)
            continue
        for part in item:
            if type(part) in _CONTAINERS:
                stack.append(part)
            elif _plain_leaf(part):
                count += 1
            else:
                return None
    return count


_CONTAINERS = frozenset({dict, list, tuple})
#: The leaf types every value of which JSON encodes (a float may be ``nan`` or infinite).
_LEAF_TYPES = frozenset({str, int, bool, type(None)})


def _plain_leaf(value: Any) -> bool:
    kind = type(value)
    return kind in _LEAF_TYPES or (kind is float and math.isfinite(value))


def _with_timings(stored: Any, expected: Any, rules: _Rules, depth: int, timings: list[Any]) -> Any:
    """``expected`` with every field a rule reaches in full set to the stored value.

    The stored values so taken are appended to ``timings``; :class:`_Walk` is raised
    where the two differ in type, keys or length along the rules' paths, or in the type
    of a field just off them (the walk compares that field's type, then its text).
    """
    if any(len(pattern) == depth for pattern, _ in rules):
        timings.append(stored)
        return stored
    kind = _container(stored, expected)
    if kind is None:  # a leaf, or a value JSON cannot encode exactly (then the walk runs)
        return expected
    right = kind(expected)
    for key in _reached(stored, rules, depth):
        below = _descend(rules, depth, key)
        right[key] = _with_timings(stored[key], expected[key], below, depth + 1, timings)
    if list(map(type, _values(stored))) != list(map(type, _values(right))):
        raise _Walk
    return right


def _container(stored: Any, expected: Any) -> type[dict[Any, Any]] | type[list[Any]] | None:
    """``dict`` or ``list`` when both values are one with the same keys or length,
    ``None`` when they are something else of the same type; else :class:`_Walk`."""
    kind = type(stored)
    if kind is not type(expected):
        raise _Walk
    if kind is dict:
        if list(stored) != list(expected):
            raise _Walk
        return dict
    if kind is list:
        if len(expected) != len(stored):
            raise _Walk
        return list
    return None


def _reached(stored: dict[Any, Any] | list[Any], rules: _Rules, depth: int) -> Sequence[Any]:
    """The keys or indices of ``stored`` that a rule's part at ``depth`` reaches."""
    reached = {pattern[depth] for pattern, _ in rules}
    is_dict = type(stored) is dict
    if "*" in reached:
        return list(stored) if is_dict else range(len(stored))
    # the keys the rules name (a list's indices are never names)
    return [key for key in reached if key in stored] if is_dict else ()


def _values(value: dict[Any, Any] | list[Any]) -> Any:
    return value.values() if type(value) is dict else value


def _timing(value: Any) -> bool:
    """Whether ``value`` is a timing: a finite, non-negative number (not a bool)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return ok and math.isfinite(value) and value >= 0


_Rules = tuple[tuple[_Pattern, str], ...]


def _descend(rules: _Rules, depth: int, key: str | int) -> _Rules:
    """The rules that can still match below ``key`` (at ``depth``), in their order.

    A rule stays when it matched in full above (it covers the subtree) or its part at
    ``depth`` is ``*`` or ``key``; so the first rule with at most ``depth + 1`` parts
    left is the one :func:`field_class` would find, and an empty set means every field
    below is re-derived, with no pattern left to try.
    """
    if not rules:
        return rules
    text = str(key)
    return tuple(
        rule
        for rule in rules
        if len(rule[0]) <= depth or rule[0][depth] == "*" or rule[0][depth] == text
    )


def _class_of(rules: _Rules, depth: int) -> str | None:
    """The class of a field and all below it; ``None`` when the rules part its fields.

    The first rule that matched in full gives the class, unless a longer rule is
    listed before it: that rule wins for the fields it reaches, so the fields below
    are of more than one class (a story's ``provenance`` is attested, but for its
    re-derived ``tool_version``).
    """
    pending = False
    for pattern, kind_of in rules:
        if len(pattern) <= depth:
            return None if pending and kind_of != RE_DERIVED else kind_of
        pending = True
    return RE_DERIVED


def _walk_parted(
    stored: Any, expected: Any, path: list[str | int], out: Comparison, rules: _Rules
) -> None:
    """A field whose fields the rules part: each is walked under its own class.

    The field itself is of the class of the first rule that matched it in full (a
    story's ``provenance`` is attested); a re-derived field below must be there.
    """
    outer = next(kind_of for pattern, kind_of in rules if len(pattern) <= len(path))
    if not isinstance(stored, Mapping) or not isinstance(expected, Mapping):
        out.counts[outer] += _leaves(stored)
        if isinstance(expected, Mapping):
            out.differ(f"{_show_path(path)} is {_show(stored)}, not an object")
        return
    if not stored:
        out.counts[outer] += 1
    for key in {**stored, **expected}:
        _walk_member(stored, expected, key, path, out, rules)


def _walk_member(
    stored: Mapping[str, Any],
    expected: Mapping[str, Any],
    key: str,
    path: list[str | int],
    out: Comparison,
    rules: _Rules,
) -> None:
    """A field of a parted object, where one of the two may lack it: walked where both
    have it, or the stored one alone when it is not re-derived; else named extra or
    missing."""
    below, where = _descend(rules, len(path), key), [*path, key]
    if key in stored and key in expected:
        _walk(stored[key], expected[key], where, out, below)
    elif _class_of(below, len(where)) != RE_DERIVED:
        if key in stored:
            _walk(stored[key], None, where, out, below)
    elif key in stored:
        out.counts[RE_DERIVED] += _leaves(stored[key])
        out.differ(f"{_show_path(where)} is not a field of the re-derived record")
    else:
        out.differ(f"{_show_path(where)} is missing")


def _walk(
    stored: Any, expected: Any, path: list[str | int], out: Comparison, rules: _Rules
) -> None:
    cls = _class_of(rules, len(path)) if path else RE_DERIVED
    if cls is None:
        _walk_parted(stored, expected, path, out, rules)
    elif cls != RE_DERIVED:
        out.counts[cls] += _leaves(stored)
        if cls == MEASURED and not _timing(stored):  # every measured field is a timing
            out.differ(f"{_show_path(path)} is {_show(stored)}, not a timing")
    else:
        _walk_derived(stored, expected, path, out, rules)


def _walk_derived(
    stored: Any, expected: Any, path: list[str | int], out: Comparison, rules: _Rules
) -> None:
    """A re-derived field: its object, list or leaf compared with the expected one."""
    if not rules and path and _identical(stored, expected):
        out.counts[RE_DERIVED] += _leaves(stored)
    elif isinstance(expected, Mapping) and isinstance(stored, Mapping):
        _walk_object(stored, expected, path, out, rules)
    elif isinstance(expected, list) and isinstance(stored, list):
        _walk_list(stored, expected, path, out, rules)
    else:
        out.counts[RE_DERIVED] += _leaves(stored)
        if not _same_leaf(stored, expected):
            _differ_leaf(stored, expected, path, out)


def _walk_object(
    stored: Mapping[str, Any],
    expected: Mapping[str, Any],
    path: list[str | int],
    out: Comparison,
    rules: _Rules,
) -> None:
    """Two objects: extra, missing and reordered fields named, the common ones walked."""
    common = _differ_keys(stored, expected, path, out)
    for key in common:
        _walk(stored[key], expected[key], [*path, key], out, _descend(rules, len(path), key))
    if not stored:
        out.counts[RE_DERIVED] += 1


def _differ_keys(
    stored: Mapping[str, Any], expected: Mapping[str, Any], path: list[str | int], out: Comparison
) -> list[str]:
    """Name the fields only one object has, and a change of order; the common keys."""
    keys, wanted = list(stored), list(expected)
    for key in keys:
        if key not in expected:
            out.counts[RE_DERIVED] += _leaves(stored[key])
            out.differ(
                f"{_show_path([*path, key])} is not a field of the re-derived record"
                f" (fields: {_show(wanted)})",
            )
    for key in wanted:
        if key not in stored:
            out.differ(f"{_show_path([*path, key])} is missing")
    common = [k for k in keys if k in expected]
    if common != [k for k in wanted if k in stored]:
        out.differ(f"the fields of {_show_path(path)} are in another order")
    return common


def _walk_list(
    stored: list[Any], expected: list[Any], path: list[str | int], out: Comparison, rules: _Rules
) -> None:
    """Two lists: their lengths compared, then their items walked in step."""
    if len(stored) != len(expected):
        out.counts[RE_DERIVED] += _leaves(stored)
        out.differ(f"{_show_path(path)} has {len(stored)} items, re-derived {len(expected)}")
        return
    for i, (a, b) in enumerate(zip(stored, expected, strict=True)):
        _walk(a, b, [*path, i], out, _descend(rules, len(path), i))
    if not stored:
        out.counts[RE_DERIVED] += 1


def _differ_leaf(stored: Any, expected: Any, path: list[str | int], out: Comparison) -> None:
    """Name two different leaves; of two texts of several lines, the first line that differs."""
    where = _show_path(path)
    if isinstance(stored, str) and isinstance(expected, str) and "\n" in stored + expected:
        a, b = stored.split("\n"), expected.split("\n")
        line = next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
            min(len(a), len(b)),
        )
        where += f" line {line + 1}"
        stored = a[line] if line < len(a) else "(end of text)"
        expected = b[line] if line < len(b) else "(end of text)"
    out.differ(f"{where} is {_show(stored)}, re-derived {_show(expected)}")
