"""JSON as Chatterbox writes and reads it: one dumps, one reader, one fence."""

from collections.abc import Callable
import json
import math
import re
from typing import Any, Final, cast

from homeassistant.helpers.json import json_dumps

FENCE: Final = "```"
# What follows an opening fence before its body: a language, spaces, a newline.
# Each part's characters exclude the next part's, so it matches in linear time.
_FENCE_INFO: Final = re.compile(r"[\w+-]*[^\S\n]*\n?")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def dumps(value: Any) -> str:
    """Serialize compactly as Home Assistant does, or else as Python does.

    orjson refuses integers past 64 bits and lone surrogates, both of which a
    model can write in its arguments.
    """
    try:
        return json_dumps(value)
    except TypeError:
        return python_dumps(sendable(value), default=str)


def python_dumps(value: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """Serialize compactly with the standard library.

    For text the model reads that must keep Python's spelling of numbers:
    orjson writes 1e-05 as 0.00001, and NaN and Infinity as null.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)


def sendable[T](value: T) -> T:
    r"""Return value as JSON can carry it, with every string encodable as UTF-8.

    The SDK reads the server's JSON with the standard library, which turns an
    escaped "\ud83d" into a lone surrogate, and servers that stream an emoji
    as two escaped halves in two chunks leave two in the joined answer. The
    SDK could not encode any later request of the conversation: halves that
    pair up are joined, the others become U+FFFD. Infinity and NaN (a model's
    1e999) become null, as orjson writes them.
    """
    match value:
        case str() if _SURROGATE.search(value):
            text = value.encode("utf-16-le", "surrogatepass")
            return cast("T", text.decode("utf-16-le", "replace"))
        case float() if not math.isfinite(value):
            return cast("T", None)
        case dict():
            return cast(
                "T", {sendable(key): sendable(item) for key, item in value.items()}
            )
        case list():
            return cast("T", [sendable(item) for item in value])
    return value


def json_or_text(text: str) -> Any:
    """Return the JSON data that text holds, or the text when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def fence_body(text: str) -> str | None:
    """Return what a code fence around the whole of a text holds, or None.

    The fence may name a language (```json). Read in linear time: a pattern
    with a lazy body before a closing fence takes cubic time on a fence
    followed by thousands of spaces.
    """
    if len(text) < 2 * len(FENCE) or not (
        text.startswith(FENCE) and text.endswith(FENCE)
    ):
        return None
    end = len(text) - len(FENCE)
    info = _FENCE_INFO.match(text, len(FENCE), end)
    return text[info.end() if info else len(FENCE) : end].strip()
