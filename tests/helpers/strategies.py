"""Hypothesis strategies for what models write: JSON, broken JSON, small texts."""

from collections.abc import Callable
import json
from typing import Any

from hypothesis import strategies as st

# JSON values as models write them; NaN is left out only because it is not
# equal to itself, which round trips compare.
# Small texts: mostly the characters JSON and Python literals escape, some any.
TEXT = st.text(st.sampled_from([*"aé \"'\\\n{}[]:,", "\ud800", "💡"]), max_size=6)


TEXT |= st.text(max_size=3)


KEYS = st.sampled_from(["name", "area", "domain", "", "a b"]) | TEXT


JSON_SCALARS = st.none() | st.booleans() | st.integers() | TEXT


JSON_SCALARS |= st.floats(allow_nan=False, allow_infinity=False)


JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3)
    ),
    max_leaves=5,
)


JSON_OBJECTS = st.dictionaries(KEYS, JSON_VALUES, max_size=3)


JSON_PIECES = [*"{}[]\":,'\\ ", "true", "null", "None", "True", "1e5", "-", "```"]


JSON_PIECES += ['"name"', "'name'", '"\\u00e9"', '"\\ud800"', "\n", "json"]


JSON_ISH = st.lists(st.sampled_from(JSON_PIECES), max_size=20).map("".join)


def result_or_error[T](
    function: Callable[[], T], error: type[Exception]
) -> T | Exception:
    """Return what function returns, or the declared error it raises."""
    try:
        return function()
    except error as err:
        return err


def mangled(arguments: dict[str, Any], cut: int, insert: str) -> str:
    """Cut an object's JSON short, or put something in it, as a broken stream would."""
    text = json.dumps(arguments)
    cut %= len(text) + 1
    return text[:cut] + insert + text[cut:]


BROKEN_JSON = st.builds(
    mangled, JSON_OBJECTS, st.integers(0, 200), st.sampled_from(["", *JSON_PIECES])
)


ANY_ARGUMENTS = st.one_of(st.text(max_size=20), JSON_ISH, BROKEN_JSON)
