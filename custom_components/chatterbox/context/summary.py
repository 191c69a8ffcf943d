"""The summary side request, and the record that earlier words come back in.

What a compaction drops is folded, by the same model, into a running summary;
the summary, like a memory, returns to the system prompt as a fenced record.
"""

from collections.abc import Sequence
import re
from typing import Final

from openai.types.chat import (
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionUserMessageParam,
)

from ..prompts import (
    NO_SUMMARY,
    RECORD_CLOSE,
    RECORD_NOTE,
    RECORD_OPEN,
    RECORD_TAG_WORD,
    SUMMARY_INSTRUCTIONS,
    SUMMARY_REQUEST,
    TRANSCRIPT_CALL,
    TRANSCRIPT_LINE,
    TRANSCRIPT_RESULT,
)
from ..wire.messages import calls_by_id, message_text
from .results import cap_tool_result

_SUMMARY_RESULT_LIMIT: Final = 1000


def summary_request(
    dropped: Sequence[ChatCompletionMessageParam], previous_summary: str | None
) -> list[ChatCompletionMessageParam]:
    """Build the side request that folds dropped messages into the summary."""
    calls = calls_by_id(dropped)
    lines: list[str] = []
    for message in dropped:
        if message["role"] == "assistant":
            if text := message_text(message.get("content")):
                lines.append(TRANSCRIPT_LINE.format(speaker="Assistant", text=text))
            lines.extend(
                TRANSCRIPT_CALL.format(
                    name=call["function"]["name"],
                    arguments=call["function"]["arguments"],
                )
                for call in message.get("tool_calls", ())
                if call["type"] == "function"
            )
        elif message["role"] == "tool":
            name = calls.get(message["tool_call_id"], ("tool", ""))[0]
            result = cap_tool_result(
                message_text(message["content"]), _SUMMARY_RESULT_LIMIT
            )
            lines.append(TRANSCRIPT_RESULT.format(name=name, result=result))
        else:
            lines.append(
                TRANSCRIPT_LINE.format(
                    speaker=message["role"].capitalize(),
                    text=message_text(message["content"]),
                )
            )
    # One plain-text transcript in a user message: servers refuse tool
    # messages in a request that declares no tools, and templates want the
    # roles to alternate.
    return [
        ChatCompletionSystemMessageParam(role="system", content=SUMMARY_INSTRUCTIONS),
        ChatCompletionUserMessageParam(
            role="user",
            content=SUMMARY_REQUEST.format(
                previous=previous_summary or NO_SUMMARY, transcript="\n".join(lines)
            ),
        ),
    ]


# Any spelling of the record's tags that a model could read as one.
_RECORD_TAGS: Final = re.compile(r"<\s*/?\s*record\s*>", re.IGNORECASE)


def as_record(heading: str, text: str, note: str = RECORD_NOTE) -> str:
    """Set earlier words apart as a record, which nothing inside can close."""
    body = _RECORD_TAGS.sub(RECORD_TAG_WORD, text)
    return f"{heading} {note}\n{RECORD_OPEN}\n{body}\n{RECORD_CLOSE}"
