"""Convert chat log content to chat completions messages, and read them back."""

import base64
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionContentPartImageParam,
    ChatCompletionContentPartParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)
from openai.types.chat.chat_completion_message_function_tool_call_param import Function

from homeassistant.components import conversation

from ..prompts import (
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    TOOL_RESPONSE_CLOSE,
    TOOL_RESPONSE_OPEN,
)
from .json import dumps, json_or_text, sendable


def content_to_messages(
    content: Iterable[conversation.Content],
    images: Mapping[Path, str] | None = None,
    leave_out: Collection[str] = (),
) -> list[ChatCompletionMessageParam]:
    """Convert chat log content to chat completion messages.

    Thinking content is never sent back. The empty system message that a chat
    log starts with before the prompt is provided is left out. Attachments go
    as image parts when images holds their data URL; others are not sent.
    The tool calls whose ids are in leave_out are not sent, nor their results.
    Every text is made encodable as UTF-8 (see sendable).
    """
    messages: list[ChatCompletionMessageParam] = []
    sent = (
        kept
        for item in content
        if (kept := _without_calls(item, leave_out)) is not None
    )
    for item in sent:
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
                message = _assistant_message(item)
                if messages and _answer_only(messages[-1]):
                    # The agent's own words after the model's, or an answer
                    # given again when told: one turn of the assistant, as
                    # the chat templates of Mistral and Gemma require.
                    message = _joined(messages.pop(), message)
                messages.append(message)
            case conversation.ToolResultContent():
                messages.append(
                    ChatCompletionToolMessageParam(
                        role="tool",
                        tool_call_id=item.tool_call_id,
                        content=dumps(
                            {"data": item.result.data, "error": item.result.error}
                        ),
                    )
                )
    return [sendable(message) for message in messages]


def with_text_tool_calls(
    messages: Iterable[ChatCompletionMessageParam],
) -> list[ChatCompletionMessageParam]:
    """Write tool calls and results as text, for servers without tool support.

    A server that cannot parse tool calls has a chat template that cannot
    render them either: calls go into the assistant's text in the Hermes form
    the text-mode prompt asks for, and results come back in a user message.
    The words written before the calls are left out: small models write
    their guess of the answer there ("It is 19 degrees in Paris", then the
    weather call), and, reading it back after the results, repeat the guess.
    Native calls keep their words: there the calls stand apart from the
    text, and the words are all a model has of what it said along the way.
    """
    out: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            calls = [
                f"{TOOL_CALL_OPEN}\n"
                + dumps(
                    {
                        "name": call["function"]["name"],
                        "arguments": json_or_text(call["function"]["arguments"]),
                    }
                )
                + f"\n{TOOL_CALL_CLOSE}"
                for call in message.get("tool_calls", ())
                if call["type"] == "function"
            ]
            out.append(
                ChatCompletionAssistantMessageParam(
                    role="assistant", content="\n".join(calls)
                )
            )
        elif message["role"] == "tool":
            response = (
                f"{TOOL_RESPONSE_OPEN}\n{message_text(message['content'])}\n"
                f"{TOOL_RESPONSE_CLOSE}"
            )
            if out and out[-1]["role"] == "user":
                # Templates want the roles to alternate: one user message
                # carries all the results of one round.
                response = f"{message_text(out[-1]['content'])}\n{response}"
                out.pop()
            out.append(ChatCompletionUserMessageParam(role="user", content=response))
        else:
            out.append(message)
    return out


def message_text(content: object) -> str:
    """Return the text of message content, a string or an iterable of parts."""
    if isinstance(content, str):
        return content
    if not isinstance(content, Iterable):
        return ""
    return "".join(
        part["text"]
        for part in content
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    )


def calls_by_id(
    messages: Iterable[ChatCompletionMessageParam],
) -> dict[str, tuple[str, str]]:
    """Map tool call ids to the name and arguments of the call."""
    return {
        call["id"]: (call["function"]["name"], call["function"]["arguments"])
        for message in messages
        if message["role"] == "assistant"
        for call in message.get("tool_calls", ())
        if call["type"] == "function"
    }


def _without_calls(
    item: conversation.Content, leave_out: Collection[str]
) -> conversation.Content | None:
    """Return content without the calls left out; None when nothing is left."""
    match item:
        case conversation.ToolResultContent() if item.tool_call_id in leave_out:
            return None
        case conversation.AssistantContent(tool_calls=[*calls]) if any(
            call.id in leave_out for call in calls
        ):
            kept = [call for call in calls if call.id not in leave_out]
            if not kept and not item.content:
                return None
            return replace(item, tool_calls=kept or None)
    return item


def _answer_only(message: ChatCompletionMessageParam) -> bool:
    """Tell whether a message is the assistant's words, with no tool calls."""
    return message["role"] == "assistant" and not message.get("tool_calls")


def _joined(
    first: ChatCompletionMessageParam, then: ChatCompletionAssistantMessageParam
) -> ChatCompletionAssistantMessageParam:
    """Join the assistant's words with its next message, calls and all."""
    texts = [
        text
        for text in (first.get("content"), then.get("content"))
        if isinstance(text, str) and text
    ]
    joined = ChatCompletionAssistantMessageParam(
        role="assistant", content="\n\n".join(texts) or then.get("content")
    )
    if calls := then.get("tool_calls"):
        joined["tool_calls"] = calls
    return joined


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
                    arguments=dumps(tool_call.tool_args),
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
