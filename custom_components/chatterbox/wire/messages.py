"""Convert chat log content and tools to the chat completions wire format."""

import base64
from collections.abc import Callable, Iterable, Mapping
import json
import math
from pathlib import Path
import re
from typing import Any, Final, cast

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionToolParam,
    ChatCompletionUserMessageParam,
)
from openai.types.chat.chat_completion_message_function_tool_call_param import Function
from openai.types.shared_params import FunctionDefinition
import probatio

from homeassistant.components import conversation
from homeassistant.helpers import llm
from homeassistant.helpers.json import json_dumps

# Dropped from every schema node, which only makes the schema more permissive;
# Home Assistant still validates the arguments and reports errors to the model.
# - not: llama.cpp cannot turn it into a grammar and fails the whole request
#   ("Unrecognized schema"); probatio renders NotIn and Exclusive with it.
# - pattern: llama.cpp supports only part of the regular expression syntax and
#   fails the request on the rest, such as \w in the backup location selector.
_DROPPED_KEYWORDS: Final = frozenset({"not", "pattern"})
# Dropped beside type: object, where probatio puts the presence rules of
# Required(Any(...)), Inclusive and Exclusive keys. OpenAI refuses them at the
# top level, and llama.cpp reads an anyOf or oneOf there as a union of schemas
# that only say "required", which it cannot convert.
_DROPPED_OBJECT_KEYWORDS: Final = frozenset(
    {"allOf", "anyOf", "oneOf", "dependentRequired"}
)
_SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions"}
)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SCHEMA_VALUES: Final = frozenset(
    {"items", "prefixItems", "additionalProperties", "contains"}
    | {"allOf", "anyOf", "oneOf"}
)


def content_to_messages(
    content: Iterable[conversation.Content],
    images: Mapping[Path, str] | None = None,
) -> list[ChatCompletionMessageParam]:
    """Convert chat log content to chat completion messages.

    Thinking content is never sent back. The empty system message that a chat
    log starts with before the prompt is provided is left out. Attachments go
    as image parts when images holds their data URL; others are not sent.
    Every text is made encodable as UTF-8 (see _sendable).
    """
    messages: list[ChatCompletionMessageParam] = []
    for item in content:
        match item:
            case conversation.SystemContent(content=text):
                if text:
                    messages.append(
                        ChatCompletionSystemMessageParam(role="system", content=text)
                    )
            case conversation.UserContent(content=text, attachments=attachments):
                parts: list[ChatCompletionContentPartParam] = [
                    ChatCompletionContentPartImageParam(
                        type="image_url", image_url={"url": images[item.path]}
                    )
                    for item in attachments or ()
                    if images and item.path in images
                ]
                messages.append(
                    ChatCompletionUserMessageParam(
                        role="user",
                        content=[{"type": "text", "text": text}, *parts]
                        if parts
                        else text,
                    )
                )
            case conversation.AssistantContent():
                messages.append(_assistant_message(item))
            case conversation.ToolResultContent():
                messages.append(
                    ChatCompletionToolMessageParam(
                        role="tool",
                        tool_call_id=item.tool_call_id,
                        content=_json(
                            {"data": item.result.data, "error": item.result.error}
                        ),
                    )
                )
    return [_sendable(message) for message in messages]


def _json(value: Any) -> str:
    """Serialize as Home Assistant does, or else as the standard library does.

    orjson refuses integers past 64 bits and lone surrogates, both of which a
    model can write in its arguments.
    """
    try:
        return json_dumps(value)
    except TypeError:
        return json.dumps(
            _sendable(value), ensure_ascii=False, separators=(",", ":"), default=str
        )


def _sendable[T](value: T) -> T:
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
                "T", {_sendable(key): _sendable(item) for key, item in value.items()}
            )
        case list():
            return cast("T", [_sendable(item) for item in value])
    return value


def with_text_tool_calls(
    messages: Iterable[ChatCompletionMessageParam],
) -> list[ChatCompletionMessageParam]:
    """Write tool calls and results as text, for servers without tool support.

    A server that cannot parse tool calls has a chat template that cannot
    render them either: calls go into the assistant's text in the Hermes form
    the text-mode prompt asks for, and results come back in a user message.
    """
    out: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            calls = [
                "<tool_call>\n"
                + _json(
                    {
                        "name": call["function"]["name"],
                        "arguments": _arguments(call["function"]["arguments"]),
                    }
                )
                + "\n</tool_call>"
                for call in message.get("tool_calls", ())
                if call["type"] == "function"
            ]
            text = _text(message.get("content"))
            out.append(
                ChatCompletionAssistantMessageParam(
                    role="assistant", content="\n".join([text, *calls]).strip()
                )
            )
        elif message["role"] == "tool":
            response = f"<tool_response>\n{_text(message['content'])}\n</tool_response>"
            if out and out[-1]["role"] == "user":
                # Templates want the roles to alternate: one user message
                # carries all the results of one round.
                response = f"{_text(out[-1]['content'])}\n{response}"
                out.pop()
            out.append(ChatCompletionUserMessageParam(role="user", content=response))
        else:
            out.append(message)
    return out


def _arguments(arguments: str) -> Any:
    """Return a call's arguments as JSON data, or the text when it is not JSON."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _text(content: Any) -> str:
    """Return the text of message content, a string or a list of parts."""
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") for part in content or () if isinstance(part, dict)
    )


def _assistant_message(
    content: conversation.AssistantContent,
) -> ChatCompletionAssistantMessageParam:
    """Convert assistant content, with its tool calls, to a message."""
    if not content.tool_calls:
        # An answer that was only thinking, or silent, still takes its turn:
        # dropping it leaves two user messages in a row, which the chat
        # templates of Mistral and Gemma refuse.
        return ChatCompletionAssistantMessageParam(
            role="assistant", content=content.content or ""
        )
    return ChatCompletionAssistantMessageParam(
        role="assistant",
        content=content.content or None,
        tool_calls=[
            ChatCompletionMessageFunctionToolCallParam(
                type="function",
                id=tool_call.id,
                function=Function(
                    name=tool_call.tool_name,
                    arguments=_json(tool_call.tool_args),
                ),
            )
            for tool_call in content.tool_calls
        ],
    )


def image_data_url(attachment: conversation.Attachment) -> str | None:
    """Read an image attachment into a data URL; None for other files.

    Reads the file: call it in an executor.
    """
    if not attachment.mime_type.startswith("image/"):
        return None
    data = base64.b64encode(attachment.path.read_bytes()).decode()
    return f"data:{attachment.mime_type};base64,{data}"


def structure_schema(
    structure: probatio.Schema, custom_serializer: Callable[[Any], Any] | None
) -> dict[str, Any]:
    """Describe an AI Task's structure as a JSON schema for response_format."""
    schema = _clean_schema(
        probatio.to_openapi(
            structure,
            custom_serializer=custom_serializer or llm.selector_serializer,
            openapi_version="3.1.0",
        )
    )
    schema.setdefault("type", "object")
    return schema


def format_tool(
    tool: llm.Tool, custom_serializer: Callable[[Any], Any] | None
) -> ChatCompletionToolParam:
    """Describe a Home Assistant tool as a chat completions function tool.

    Without a custom serializer, as the MCP and KNX APIs give none, selectors
    are still described: probatio alone cannot render them.
    """
    schema = _clean_schema(
        probatio.to_openapi(
            tool.parameters,
            custom_serializer=custom_serializer or llm.selector_serializer,
            openapi_version="3.1.0",
        )
    )
    # Chat templates read parameters.properties, and OpenAI requires an object.
    schema["type"] = "object"
    schema.setdefault("properties", {})
    function = FunctionDefinition(name=tool.name, parameters=schema)
    if tool.description:
        function["description"] = tool.description
    return ChatCompletionToolParam(type="function", function=function)


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a schema without the keywords servers choke on."""
    is_object = schema.get("type") == "object"
    cleaned: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword in _DROPPED_KEYWORDS or (
            is_object and keyword in _DROPPED_OBJECT_KEYWORDS
        ):
            continue
        if keyword in _SCHEMA_MAPS and isinstance(value, dict):
            cleaned[keyword] = {name: _clean_value(sub) for name, sub in value.items()}
        elif keyword in _SCHEMA_VALUES:
            cleaned[keyword] = _clean_value(value)
        else:
            # enum, const, default and examples hold data, not schemas.
            cleaned[keyword] = value
    return cleaned


def _clean_value(value: Any) -> Any:
    """Clean a schema or a list of schemas; leave anything else as it is."""
    if isinstance(value, dict):
        return _clean_schema(value)
    if isinstance(value, list):
        return [_clean_value(item) for item in value]
    return value
