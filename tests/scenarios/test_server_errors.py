"""When the server fails: what the user hears, what the log says, and what comes next.

Each story: the user asks something; the server fails in one way; the user hears
one short sentence from en.json; the log says what happened, without the API
key; and the next turn of the same conversation works, with a request the
server accepts (every tool call answered).
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from homeassistant.components import conversation
from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.agent import entity
from custom_components.chatterbox.const import CONF_MAX_ITERATIONS, DOMAIN
from custom_components.chatterbox.server.errors import (
    DEFAULT_RETRY_AFTER,
    MAX_RETRY_AFTER,
    retry_after,
)

from .conftest import AGENT_ENTITY_ID, API_KEY, MODELS
from .llm_server import (
    Call,
    Disconnect,
    Error,
    LLMServer,
    Raw,
    Text,
    ToolCalls,
    openai_error,
)

TRANSLATIONS = (
    Path(__file__).parent.parent
    / "custom_components"
    / DOMAIN
    / "translations"
    / "en.json"
)
SENTENCES: dict[str, dict[str, str]] = json.loads(TRANSLATIONS.read_text())[
    "exceptions"
]

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


@pytest.fixture
def agent_data(request: pytest.FixtureRequest) -> dict[str, object]:
    """Return the agent's settings; parametrize indirectly for max_iterations."""
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        CONF_MAX_ITERATIONS: getattr(request, "param", 10),
    }


@pytest.fixture
async def talking(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> MockConfigEntry:
    """Have one good exchange in the conversation, and log from INFO on."""
    caplog.set_level(logging.INFO)
    llm_server.reply(Text(FIRST_ANSWER))
    result = await ask(hass, FIRST_QUESTION)
    assert speech(result) == FIRST_ANSWER
    caplog.clear()
    return loaded_entry


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """Make the agent wait only briefly for a silent server."""
    monkeypatch.setattr(entity, "REQUEST_TIMEOUT", SHORT_TIMEOUT)
    return SHORT_TIMEOUT


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
        assert failed_turn[-1] == {
            "role": "assistant",
            "content": f"Error: {sentence(error, **placeholders)}",
        }
    else:
        assert failed_turn == []
    return failed_turn


# Cannot connect, and timeouts


async def test_server_hangs_up(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server closes the connection without answering: it can't be reached."""
    llm_server.reply(Disconnect())

    result = await ask(hass, QUESTION)

    assert_hears(result, "cannot_connect")
    assert len(llm_server.chat_requests) == 2  # no retry
    assert_logged(
        caplog,
        f"Request to {llm_server.url} failed: Connection error",
        "Server disconnected",
    )
    await assert_next_turn_works(hass, llm_server, "cannot_connect")


async def test_server_is_down(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing listens on the server's port; once it is back, the talk goes on."""
    url = llm_server.url
    await llm_server.stop()

    result = await ask(hass, QUESTION)

    assert_hears(result, "cannot_connect")
    assert_logged(caplog, f"Request to {url} failed: Connection error", "ConnectError")

    # The server comes back on another port, and the user fixes the URL.
    await llm_server.start()
    hass.config_entries.async_update_entry(
        talking, data={**talking.data, CONF_URL: llm_server.url}
    )
    await hass.async_block_till_done()
    await assert_next_turn_works(hass, llm_server, "cannot_connect")


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Text("Too late.", hang=True), id="never-answers"),
        pytest.param(Text("Too late.", delay=SLOW), id="answers-late"),
    ],
)
async def test_server_is_silent(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    short_timeout: float,
    reply: Text,
) -> None:
    """The server sends nothing for longer than the agent waits."""
    llm_server.reply(reply)

    result = await ask(hass, QUESTION)

    assert_hears(result, "timeout")
    assert len(llm_server.chat_requests) == 2  # no retry
    assert_logged(caplog, f"Request to {llm_server.url} failed: Request timed out")
    await assert_next_turn_works(hass, llm_server, "timeout")


async def test_server_stalls_mid_answer(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    short_timeout: float,
) -> None:
    """The answer starts, then the server goes quiet between chunks."""
    llm_server.reply(Text("The kitchen light is on.", chunk_delay=SLOW))

    result = await ask(hass, QUESTION)

    assert_hears(result, "timeout")
    assert_logged(caplog, f"The answer from {llm_server.url} timed out")
    await assert_next_turn_works(hass, llm_server, "timeout")


# Refused key, rate limits


@pytest.mark.parametrize("status", [401, 403])
async def test_key_refused(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    """The server refuses the key: the user is told, and reauth starts."""
    message = f"Incorrect API key provided: {API_KEY}."
    llm_server.reply(Error(status, openai_error(message, code="invalid_api_key")))

    result = await ask(hass, QUESTION)
    await hass.async_block_till_done()

    assert_hears(result, "auth_failed")
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert flow["context"]["source"] == SOURCE_REAUTH
    assert flow["context"]["entry_id"] == talking.entry_id
    assert_logged(
        caplog,
        f"Request to {llm_server.url} failed: HTTP {status}",
        "Incorrect API key provided: **REDACTED**",
    )
    await assert_next_turn_works(hass, llm_server, "auth_failed")


async def test_rate_limited_once(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server is busy for a moment: the agent waits, asks again, answers."""
    llm_server.reply(
        Error(
            429,
            openai_error("Slow down", type="rate_limit_exceeded"),
            {"retry-after-ms": "1"},
        ),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, QUESTION)

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "The kitchen light is on."
    first, second = llm_server.chat_requests[1:]
    assert first == second
    assert_logged(caplog, "Rate limited; retrying in 0.0 s")
    assert "failed" not in caplog.text


@pytest.mark.parametrize(
    ("headers", "requests"),
    [
        pytest.param({"retry-after-ms": "1"}, 2, id="busy-twice"),
        pytest.param({"retry-after": "60"}, 1, id="wait-too-long"),
    ],
)
async def test_rate_limited(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    headers: dict[str, str],
    requests: int,
) -> None:
    """The server stays busy, or asks for a long wait: the user is told."""
    busy = openai_error("Rate limit reached", type="requests", code="rate_limit")
    llm_server.reply(*[Error(429, busy, headers)] * requests)

    result = await ask(hass, QUESTION)

    assert_hears(result, "rate_limited")
    assert len(llm_server.chat_requests) == 1 + requests
    assert llm_server.pending == 0
    assert_logged(
        caplog,
        f"Request to {llm_server.url} failed: HTTP 429",
        "Rate limit reached",
    )
    await assert_next_turn_works(hass, llm_server, "rate_limited")


# Requests the server refuses


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(
            404,
            openai_error(
                f"The model `{MODELS[0]}` does not exist or you do not have access "
                "to it.",
                code="model_not_found",
            ),
            id="openai",
        ),
        pytest.param(
            404,
            {"error": f'model "{MODELS[0]}" not found, try pulling it first'},
            id="ollama",
        ),
        pytest.param(
            400,
            openai_error(f"Model {MODELS[0]} not found. Load it first."),
            id="400-lm-studio-style",
        ),
    ],
)
async def test_model_not_found(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
    body: dict[str, Any],
) -> None:
    """The server no longer has the model: the user hears which one."""
    llm_server.reply(Error(status, body))

    result = await ask(hass, QUESTION)

    assert_hears(result, "model_not_found", model=MODELS[0])
    assert_logged(
        caplog, f"Request to {llm_server.url} failed: HTTP {status}", MODELS[0]
    )
    await assert_next_turn_works(hass, llm_server, "model_not_found", model=MODELS[0])


VLLM_CONTEXT = (
    "This model's maximum context length is 4096 tokens. However, you requested "
    "5120 tokens (4096 in the messages, 1024 in the completion). Please reduce "
    "the length of the messages or completion."
)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            {
                "object": "error",
                "message": VLLM_CONTEXT,
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            id="vllm",
        ),
        pytest.param(
            {
                "error": {
                    "message": VLLM_CONTEXT,
                    "type": "BadRequestError",
                    "param": None,
                    "code": 400,
                }
            },
            id="vllm-nested",
        ),
        pytest.param(
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, "
                    "try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 5120,
                    "n_ctx": 4096,
                }
            },
            id="llama.cpp",
        ),
    ],
)
async def test_context_too_long(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    body: dict[str, Any],
) -> None:
    """The conversation no longer fits the model's context."""
    llm_server.reply(Error(400, body))

    result = await ask(hass, QUESTION)

    assert_hears(result, "context_too_long")
    assert len(llm_server.chat_requests) == 2
    assert_logged(caplog, f"Request to {llm_server.url} failed: HTTP 400", "context")
    await assert_next_turn_works(hass, llm_server, "context_too_long")


async def test_request_filtered(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server's content filter refuses the request."""
    message = "The response was filtered due to the prompt triggering the policy."
    llm_server.reply(Error(400, openai_error(message, code="content_filter")))

    result = await ask(hass, QUESTION)

    assert_hears(result, "content_filtered")
    assert_logged(caplog, f"Request to {llm_server.url} failed: HTTP 400", message)
    await assert_next_turn_works(hass, llm_server, "content_filtered")


@pytest.mark.parametrize("content", ["I will not", ""])
async def test_answer_filtered(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    content: str,
) -> None:
    """The content filter stops the answer while it streams."""
    llm_server.reply(Text(content, finish_reason="content_filter"))

    result = await ask(hass, QUESTION)

    assert_hears(result, "content_filtered")
    failed_turn = await assert_next_turn_works(hass, llm_server, "content_filtered")
    if KEEPS_FAILED_TURNS and content:
        # The part the user may have heard stays in the conversation.
        assert {"role": "assistant", "content": content} in failed_turn


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Error(500), id="500"),
        pytest.param(
            Error(
                502,
                "<html><head><title>502 Bad Gateway</title></head><body>"
                "<center><h1>502 Bad Gateway</h1></center></body></html>",
                {"content-type": "text/html"},
            ),
            id="502-nginx",
        ),
        pytest.param(
            Error(503, "Service Unavailable", {"retry-after": "1"}),
            id="503-text",
        ),
    ],
)
async def test_server_error(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    reply: Error,
) -> None:
    """The server fails the request: the user hears it had a problem."""
    llm_server.reply(reply)

    result = await ask(hass, QUESTION)

    assert_hears(result, "server_error")
    assert len(llm_server.chat_requests) == 2  # no retry
    assert_logged(caplog, f"Request to {llm_server.url} failed: HTTP {reply.status}")
    await assert_next_turn_works(hass, llm_server, "server_error")


# Answers that break


@pytest.mark.parametrize(
    ("reply", "logged"),
    [
        pytest.param(Raw(["data: {not json\n\n"]), "Expecting", id="garbage"),
        pytest.param(Text("The kitchen light is on.", drop_after=3), "", id="dropped"),
        pytest.param(
            Raw(
                [
                    ROLE_CHUNK,
                    chunk({"content": "The kitchen"}),
                    sse({"error": {"message": "Upstream provider overloaded"}}),
                ]
            ),
            "Upstream provider overloaded",
            id="error-event",
        ),
    ],
)
async def test_answer_breaks_off(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    reply: Text | Raw,
    logged: str,
) -> None:
    """The stream of the answer breaks: the user hears it broke off."""
    llm_server.reply(reply)

    result = await ask(hass, QUESTION)

    assert_hears(result, "stream_broken")
    assert_logged(caplog, f"The answer from {llm_server.url} broke off", logged)
    failed_turn = await assert_next_turn_works(hass, llm_server, "stream_broken")
    # The part before the break is never sent back as an answer.
    assert all(
        "kitchen" not in str(message.get("content")) for message in failed_turn[1:]
    )


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Raw([ROLE_CHUNK, chunk({}, "stop"), DONE]), id="role-only"),
        pytest.param(Text(""), id="empty-text"),
        pytest.param(Text("", reasoning="The user wants light."), id="only-thinking"),
    ],
)
async def test_empty_answer(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    reply: Text | Raw,
) -> None:
    """The server answers with nothing to say."""
    llm_server.reply(reply)

    result = await ask(hass, QUESTION)

    assert_hears(result, "empty_response")
    assert_logged(caplog, "The model answered nothing to say")
    await assert_next_turn_works(hass, llm_server, "empty_response")


async def test_html_page_instead_of_a_stream(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The URL leads to a web page (200, HTML): a server error, and a hint."""
    llm_server.reply(
        Raw(
            ["<!DOCTYPE html><html><body><h1>Open WebUI</h1></body></html>"],
            content_type="text/html",
        )
    )

    result = await ask(hass, QUESTION)

    assert_hears(result, "server_error")
    assert_logged(caplog, "answered with a web page, not an API stream")
    await assert_next_turn_works(hass, llm_server, "server_error")


# Failures after tools ran


async def test_fails_after_a_tool_ran(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """The light goes on, then the server fails before the model confirms."""
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Error(500),
    )

    result = await ask(hass, QUESTION)

    assert_hears(result, "server_error")
    assert hass.states.get(kitchen_light).state == "on"
    failed_turn = await assert_next_turn_works(hass, llm_server, "server_error")
    if KEEPS_FAILED_TURNS:
        assert [message["role"] for message in failed_turn] == [
            "user",
            "assistant",
            "tool",
            "assistant",
        ]


async def test_breaks_off_in_a_tool_call(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """The stream breaks while the model spells out a tool call: nothing runs."""
    # Chunks: role, then the call's arguments four characters at a time.
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})], drop_after=3)
    )

    result = await ask(hass, QUESTION)
    await hass.async_block_till_done()

    assert_hears(result, "stream_broken")
    assert hass.states.get(kitchen_light).state == "off"
    await assert_next_turn_works(hass, llm_server, "stream_broken")


# A server that refuses tool_choice


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_tool_choice_refused_on_the_last_round(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On the last round the server refuses tool_choice; it is asked without tools."""
    refusal = openai_error(
        '"tool_choice" must be "auto" when tools are given', param="tool_choice"
    )
    llm_server.reply(Error(400, refusal), Text("I can't do that right now."))

    result = await ask(hass, QUESTION)

    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "I can't do that right now."
    refused, retried = llm_server.chat_requests[-2:]
    assert refused["tool_choice"] == "none"
    assert refused["tools"]
    assert "tool_choice" not in retried
    assert "tools" not in retried
    assert retried["messages"] == refused["messages"]
    assert_logged(caplog, "The server refused tool_choice; asking without tools")


# Found by these tests and fixed: each once failed.


async def test_log_says_the_answer_was_filtered(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The log says the server's content filter stopped the answer."""
    llm_server.reply(Text("I will not", finish_reason="content_filter"))

    result = await ask(hass, QUESTION)

    assert_hears(result, "content_filtered")
    assert "content filter" in caplog.text.lower().replace("_", " ")


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_rate_limited_then_tool_choice_refused(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A busy moment on the last round, then the tool_choice refusal: still answers."""
    refusal = openai_error('"tool_choice" must be "auto"', param="tool_choice")
    llm_server.reply(
        Error(429, openai_error("Slow down", type="rate_limit_exceeded")),
        Error(400, refusal),
        Text("I can't do that right now."),
    )

    result = await ask(hass, QUESTION)

    assert speech(result) == "I can't do that right now."
    assert len(llm_server.chat_requests) == 4


@pytest.mark.parametrize("agent_data", [1], indirect=True)
async def test_context_too_long_on_the_last_round(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 400 that is not about tool_choice is not retried, nor logged as one."""
    llm_server.reply(Error(400, openai_error(VLLM_CONTEXT)))

    result = await ask(hass, QUESTION)

    assert len(llm_server.chat_requests) == 2
    assert "tool_choice" not in caplog.text
    assert_hears(result, "context_too_long")


@pytest.mark.parametrize(
    "replies",
    [
        pytest.param(
            # Chunks: role, content, finish reason | usage, [DONE].
            [Text("The kitchen light is on.", piece_size=100, drop_after=3)],
            id="answer",
        ),
        pytest.param(
            # Chunks: role, tool call, finish reason | usage, [DONE].
            [
                ToolCalls(
                    [Call("intent__HassTurnOn", {"name": "Kitchen light"})],
                    piece_size=1000,
                    drop_after=3,
                ),
                Text("The kitchen light is on."),
            ],
            id="tool-call",
        ),
    ],
)
async def test_drop_after_the_finish_reason(
    hass: HomeAssistant,
    talking: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    replies: list[Text | ToolCalls],
) -> None:
    """The connection drops after the answer was complete, before [DONE].

    Only the usage chunk and [DONE] are lost: the light goes on, the user hears
    the answer, and is not asked to repeat an action that already ran.
    """
    llm_server.reply(*replies)

    result = await ask(hass, QUESTION)

    assert hass.states.get(kitchen_light).state == ("on" if len(replies) > 1 else "off")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == "The kitchen light is on."


# How long a 429 asks to wait


def rate_limit(headers: dict[str, str]) -> openai.RateLimitError:
    """Build the error the SDK raises for a 429 with these headers."""
    response = httpx.Response(
        429, headers=headers, request=httpx.Request("POST", "http://x")
    )
    return openai.RateLimitError("Rate limited", response=response, body=None)


def http_date(delta: timedelta) -> str:
    """Return an HTTP-date this far from now."""
    return format_datetime(datetime.now(UTC) + delta, usegmt=True)


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        pytest.param({"retry-after-ms": "1"}, 0.001, id="ms"),
        pytest.param({"retry-after-ms": "2500"}, 2.5, id="ms-seconds"),
        pytest.param(
            {"retry-after-ms": "1", "retry-after": "60"}, 0.001, id="ms-first"
        ),
        pytest.param({"retry-after": "3"}, 3.0, id="seconds"),
        pytest.param({"retry-after": "0.5"}, 0.5, id="fraction"),
        pytest.param({"retry-after": "0"}, 0.0, id="zero"),
        pytest.param({"retry-after": "-5"}, 0.0, id="negative"),
        pytest.param({"retry-after": str(MAX_RETRY_AFTER)}, MAX_RETRY_AFTER, id="max"),
        pytest.param({"retry-after": "garbage"}, DEFAULT_RETRY_AFTER, id="garbage"),
        pytest.param({"retry-after-ms": "soon"}, DEFAULT_RETRY_AFTER, id="bad-ms"),
        pytest.param({}, DEFAULT_RETRY_AFTER, id="missing"),
    ],
)
def test_retry_after(headers: dict[str, str], wait: float) -> None:
    """A wait of up to ten seconds is honoured; one the agent cannot read is 1 s."""
    assert retry_after(rate_limit(headers)) == pytest.approx(wait)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"retry-after": "60"}, id="seconds"),
        pytest.param({"retry-after": "10.5"}, id="just-over"),
        pytest.param({"retry-after-ms": "20000"}, id="ms"),
        pytest.param({"retry-after": "nan"}, id="nan"),
        pytest.param({"retry-after": "inf"}, id="inf"),
    ],
)
def test_no_retry_after_a_long_wait(headers: dict[str, str]) -> None:
    """A wait longer than ten seconds is not waited for."""
    assert retry_after(rate_limit(headers)) is None


@pytest.mark.parametrize(
    ("delta", "check"),
    [
        pytest.param(
            timedelta(seconds=5),
            lambda wait: wait is not None and 3.0 <= wait <= 5.0,
            id="soon",
        ),
        pytest.param(timedelta(minutes=-1), lambda wait: wait == 0.0, id="past"),
        pytest.param(timedelta(minutes=2), lambda wait: wait is None, id="later"),
    ],
)
def test_retry_after_http_date(
    delta: timedelta, check: Callable[[float | None], bool]
) -> None:
    """Retry-After may be an HTTP-date; it says when to retry."""
    assert check(retry_after(rate_limit({"retry-after": http_date(delta)})))
