"""Shorten a tool result in what is sent, keeping JSON valid.

Home Assistant's chat log keeps the whole result; only the copy sent to the
server is cut, with a note that says what was cut.
"""

from collections.abc import Mapping
import json
import math
from typing import Any, Final

from ..prompts import (
    CUT_AS_TEXT,
    CUT_ITEMS,
    CUT_KEY,
    CUT_KEYS,
    CUT_MORE,
    CUT_RESULT_SIZE,
    CUT_STRING,
    CUT_TEXT,
)
from ..wire.json import python_dumps

type _Path = tuple[str | int, ...]

MIN_LIMIT: Final = 200
# Strings this short are not worth cutting: the marker and the note cost more.
_MIN_STRING: Final = 40
_KEPT_STRING: Final = 20
MARK: Final = "…"
# Room for the note entry a cut adds, so that one cut is usually enough.
_NOTE_SLACK: Final = 80
# The note lists this many cuts, so that it stays short however many there are.
_NOTES_SHOWN: Final = 3


def clip(text: str, keep: int) -> str:
    """Return text cut to its first keep characters and MARK, if it is longer."""
    return text if len(text) <= keep else text[:keep] + MARK


def cap_tool_result(content: str, limit: int = 4000) -> str:
    """Shorten a tool result to at most limit characters, keeping JSON valid.

    A JSON result stays JSON and gains a CUT_KEY ("_truncated") entry that
    says what was cut; other text ends with a note. limit must be at least MIN_LIMIT.
    """
    if limit < MIN_LIMIT:
        msg = f"limit must be at least {MIN_LIMIT}"
        raise ValueError(msg)
    if len(content) <= limit:
        return content
    try:
        data = json.loads(content)
    except ValueError:
        return _cut_text(content, limit)
    cuts: dict[_Path, str] = {}
    totals: dict[_Path, int] = {}
    while True:
        text = python_dumps(_annotate(data, cuts, len(content)))
        if len(text) <= limit:
            return text
        candidates: list[tuple[int, _Path]] = []
        _scan(data, (), candidates)
        if not candidates:
            return _fallback(content, limit)
        path = max(candidates)[1]
        # Every cut removes items or characters, or makes its node too small to
        # be a candidate again, so this loop ends.
        data = _cut(data, path, len(text) - limit + _NOTE_SLACK, cuts, totals)


def _cut_text(content: str, limit: int) -> str:
    """Cut plain text and say how much was kept."""
    total = len(content)
    # The kept count has at most as many digits as the total.
    keep = limit - len(CUT_TEXT.format(kept=total, total=total))
    return content[:keep] + CUT_TEXT.format(kept=keep, total=total)


def _fallback(content: str, limit: int) -> str:
    """Wrap the start of the raw text in JSON when no structural cut is left."""
    note = CUT_AS_TEXT.format(chars=len(content))
    keep = limit
    while True:
        text = python_dumps({CUT_KEY: note, "text": content[:keep]})
        if len(text) <= limit:
            return text
        # Escapes make the JSON longer than the raw text: cut by the excess.
        keep = max(0, keep - (len(text) - limit))


def _annotate(data: Any, cuts: Mapping[_Path, str], original: int) -> Any:
    """Add the note on what was cut, first, so the model reads it first."""
    if not cuts:
        return data
    notes = list(cuts.values())
    text = "; ".join(notes[:_NOTES_SHOWN])
    if len(notes) > _NOTES_SHOWN:
        text += CUT_MORE.format(count=len(notes) - _NOTES_SHOWN)
    text += CUT_RESULT_SIZE.format(chars=original)
    if isinstance(data, dict) and CUT_KEY not in data:
        return {CUT_KEY: text, **data}
    return {CUT_KEY: text, "result": data}


def _scan(value: Any, path: _Path, found: list[tuple[int, _Path]]) -> int:
    """Return the serialized size of value; add what cutting each node saves."""
    # Sizes are summed bottom-up rather than serialized per node, so that one
    # scan of a large result is linear in its size.
    if isinstance(value, dict | list):
        keyed = isinstance(value, dict)
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        sizes = [
            _scan(child, (*path, key), found) + (len(str(key)) + 3 if keyed else 0)
            for key, child in pairs
        ]
        if len(sizes) > 1:
            # Scored by what goes without its largest child, so that a wrapper
            # such as {"data": ..., "error": false} is not emptied first.
            found.append((sum(sizes) - max(sizes), path))
        return 2 + sum(sizes) + max(len(sizes) - 1, 0)
    # Near enough without serializing each leaf (escapes are not counted): the
    # sizes only choose what to cut, and the result is measured for real.
    size = len(value) + 2 if isinstance(value, str) else len(repr(value))
    if isinstance(value, str) and len(value) > _MIN_STRING:
        found.append((size, path))
    return size


def _cut(
    data: Any, path: _Path, need: int, cuts: dict[_Path, str], totals: dict[_Path, int]
) -> Any:
    """Remove at least need characters at path, or as many as it allows."""
    parent, node = None, data
    for key in path:
        parent, node = node, node[key]
    where = _render(path)
    if isinstance(node, str):
        base = node.removesuffix(MARK)
        total = totals.setdefault(path, len(base))
        # need counts serialized characters; escapes make those more than raw.
        kept = len(base) - math.ceil(need * len(base) / len(python_dumps(base)))
        kept = max(_KEPT_STRING, kept)
        node = clip(base, kept)
        cuts[path] = CUT_STRING.format(where=where, total=total, kept=kept)
    else:
        items = list(node.items() if isinstance(node, dict) else enumerate(node))
        total = totals.setdefault(path, len(items))
        keyed = isinstance(node, dict)
        # Keep the first items that fit: results usually come most relevant
        # first, and only the kept ones are serialized. Always keep one, and
        # always drop one, so that every cut makes progress.
        room = len(python_dumps(node)) - need - _item_size(*items[0], keyed=keyed)
        kept = 1
        while (
            kept < len(items) - 1
            and (room := room - _item_size(*items[kept], keyed=keyed)) >= 0
        ):
            kept += 1
        node = dict(items[:kept]) if isinstance(node, dict) else node[:kept]
        note = CUT_KEYS if isinstance(node, dict) else CUT_ITEMS
        cuts[path] = note.format(kept=kept, total=total, where=where)
        gone = {key for key, _ in items[kept:]}
        for other in [other for other in cuts if other[: len(path)] == path]:
            if len(other) > len(path) and other[len(path)] in gone:
                del cuts[other]
    if parent is None:
        return node
    parent[path[-1]] = node
    return data


def _item_size(key: str | int, child: Any, *, keyed: bool) -> int:
    """Return the serialized size of a list item or object member, with comma."""
    return len(python_dumps(child)) + 1 + (len(python_dumps(key)) + 1 if keyed else 0)


def _render(path: _Path) -> str:
    """Name a path the way a reader would write it, such as data.items[3]."""
    text = "result"
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else f".{key}"
    return text.removeprefix("result.")
