"""Read the fields of a streamed chat completion chunk, whatever a server sent.

The agent asks the SDK for each chunk as the JSON the server wrote, not as its
typed ChatCompletionChunk: the SDK builds those field by field in Python, about
50 µs a chunk, which for a short answer is more than the rest of the agent's
own work in a turn. It does not check their types either, so the chunks were
never more trustworthy than the JSON: a hostile or broken server may send a
number for the content or a string for the choices. Every reader here checks
the type it returns, and takes anything that is not what it expects as absent.
"""

from collections.abc import Mapping
from typing import Any

type Chunk = object
"""One server-sent event of a streamed response: in practice a JSON object."""
type Fields = Mapping[str, Any]
"""A JSON object of a chunk: a choice, a delta, a tool call fragment, a usage."""

_NOTHING: Fields = {}


def fields(value: object) -> Fields:
    """Return value if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else _NOTHING


def text(parent: Fields, key: str) -> str:
    """Return the text under key, or "" when there is none or it is not text."""
    value = parent.get(key)
    return value if isinstance(value, str) else ""


def first_choice(chunk: Chunk) -> Fields | None:
    """Return a chunk's first choice; None when it has none, as a usage chunk.

    A request asks for one choice (n is never set), so only the first is read.
    """
    choices = fields(chunk).get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def delta_of(choice: Fields) -> Fields:
    """Return a choice's delta; Azure's content filter annotations have none."""
    return fields(choice.get("delta"))


def finish_reason(choice: Fields) -> str | None:
    """Return the finish reason of a choice as the server spelled it, if any."""
    reason = choice.get("finish_reason")
    return reason if isinstance(reason, str) else None


def tool_call_fragments(delta: Fields) -> list[Fields]:
    """Return the tool call fragments of a delta; what is not one is skipped."""
    fragments = delta.get("tool_calls")
    if not isinstance(fragments, list):
        return []
    return [fragment for fragment in fragments if isinstance(fragment, dict)]


def fragment_index(fragment: Fields) -> int | None:
    """Return the index of a tool call fragment, None when it has no usable one."""
    index = fragment.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def count(value: object) -> int | None:
    """Return a token count a server reported, if it is a whole number of tokens."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
