"""A conversation in which the server fails: what the user hears, and the next turn."""

import json
from pathlib import Path
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent

import custom_components.chatterbox
from tests.helpers.common import AGENT_ENTITY_ID, API_KEY, MODELS
from tests.helpers.llm_server import LLMServer, Text

TRANSLATIONS = Path(custom_components.chatterbox.__file__).parent / "translations"
SENTENCES: dict[str, dict[str, str]] = json.loads(
    (TRANSLATIONS / "en.json").read_text()
)["exceptions"]


# Chosen by the caller rather than a ULID, so Home Assistant keeps it even when
# the first turn of the conversation fails.
CONVERSATION_ID = "kitchen-chat"


FIRST_QUESTION = "What is on the shopping list?"


FIRST_ANSWER = "Bread, milk and eggs."


QUESTION = "Turn on the kitchen light"


NEXT_QUESTION = "Are you there?"


NEXT_ANSWER = "Yes, I am here."


# A request timeout short enough for tests; the server waits longer.
SHORT_TIMEOUT = 0.2


SLOW = 1.0


# HA 2026.11 keeps a failed turn in the chat log, ending in its error; 2026.10
# drops the whole turn.
KEEPS_FAILED_TURNS = hasattr(conversation.ChatLog, "async_add_error")


def sentence(key: str, **placeholders: str) -> str:
    """Return the English sentence the user hears for an error key.

    Home Assistant drops the final full stop of a translated exception message.
    """
    return SENTENCES[key]["message"].rstrip(".").format(**placeholders)


def speech(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return result.response.speech["plain"]["speech"]


def sse(data: Any) -> str:
    """Encode one server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}\n\n"


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
    """Encode one chat completion chunk with one choice."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return sse(
        {
            "id": "chatcmpl-raw",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODELS[0],
            "choices": [choice],
        }
    )


ROLE_CHUNK = chunk({"role": "assistant", "content": ""})


DONE = sse("[DONE]")


async def ask(hass: HomeAssistant, text: str) -> conversation.ConversationResult:
    """Say something in the test conversation, as the Assist pipeline does.

    Each turn runs in a task of its own, as each pipeline run does: HA 2026.10
    leaves its current chat log set in the context of a turn that failed.
    """
    return await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            CONVERSATION_ID,
            Context(),
            agent_id=AGENT_ENTITY_ID,
            language="en",
        )
    )


def assert_hears(
    result: conversation.ConversationResult, key: str, **placeholders: str
) -> None:
    """Assert the turn failed and the user hears the sentence for key."""
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.response.error_code is intent.IntentResponseErrorCode.UNKNOWN
    assert speech(result) == sentence(key, **placeholders)
    assert result.conversation_id == CONVERSATION_ID


def assert_logged(caplog: pytest.LogCaptureFixture, *fragments: str) -> None:
    """Assert the log says what happened, and keeps the API key to itself."""
    for fragment in fragments:
        assert fragment in caplog.text
    assert API_KEY not in caplog.text


def assert_tool_calls_answered(messages: list[dict[str, Any]]) -> None:
    """Assert every tool call is answered right after it, and nothing else is."""
    called: set[str] = set()
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            assert message["tool_call_id"] in called
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        ids = [call["id"] for call in message["tool_calls"]]
        called.update(ids)
        results = messages[index + 1 : index + 1 + len(ids)]
        assert [result["role"] for result in results] == ["tool"] * len(ids)
        assert sorted(result["tool_call_id"] for result in results) == sorted(ids)


async def assert_next_turn_works(
    hass: HomeAssistant,
    llm_server: LLMServer,
    error: str,
    *,
    question: str = QUESTION,
    **placeholders: str,
) -> list[dict[str, Any]]:
    """Assert the next turn of the conversation gets its answer.

    Return the messages of the failed turn, as the next request carries them.
    """
    sent = len(llm_server.chat_requests)
    llm_server.reply(Text(NEXT_ANSWER))

    result = await ask(hass, NEXT_QUESTION)

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == NEXT_ANSWER
    assert result.conversation_id == CONVERSATION_ID
    assert len(llm_server.chat_requests) == sent + 1
    assert not llm_server.unscripted
    messages = llm_server.last_chat_request["messages"]
    assert_tool_calls_answered(messages)
    assert messages[0]["role"] == "system"
    assert messages[1:3] == [
        {"role": "user", "content": FIRST_QUESTION},
        {"role": "assistant", "content": FIRST_ANSWER},
    ]
    assert messages[-1] == {"role": "user", "content": NEXT_QUESTION}
    failed_turn = messages[3:-1]
    if KEEPS_FAILED_TURNS:
        assert failed_turn[0] == {"role": "user", "content": question}
        # Home Assistant's error ends the turn's last assistant message: what
        # the model said before it, if anything, is in the same message.
        assert failed_turn[-1]["role"] == "assistant"
        assert failed_turn[-1]["content"].endswith(
            f"Error: {sentence(error, **placeholders)}"
        )
    else:
        assert failed_turn == []
    return failed_turn


VLLM_CONTEXT = (
    "This model's maximum context length is 4096 tokens. However, you requested "
    "5120 tokens (4096 in the messages, 1024 in the completion). Please reduce "
    "the length of the messages or completion."
)


def count_logged(caplog: pytest.LogCaptureFixture, text: str) -> int:
    """Count the log records that contain text."""
    return sum(text in record.getMessage() for record in caplog.records)


async def server_goes_away(hass: HomeAssistant, llm_server: LLMServer) -> int:
    """Stop the server and let a turn find out; return the port to come back on."""
    port = int(llm_server.url.rsplit(":", 1)[1].split("/")[0])
    await llm_server.stop()
    result = await ask(hass, "Turn on the kitchen light")
    assert result.response.speech["plain"]["speech"] == (
        "I can't reach the language model server right now"
    )
    return port
