"""When the server fails: what the user hears, what the log says, and what comes next.

Each story: the user asks something; the server fails in one way; the user hears
one short sentence from en.json; the log says what happened, without the API
key; and the next turn of the same conversation works, with a request the
server accepts (every tool call answered).
"""

import pytest

from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.faults import (
    DONE,
    KEEPS_FAILED_TURNS,
    QUESTION,
    ROLE_CHUNK,
    SLOW,
    ask,
    assert_hears,
    assert_logged,
    assert_next_turn_works,
    chunk,
    sentence,
    speech,
    sse,
)
from tests.helpers.llm_server import (
    Call,
    Disconnect,
    Error,
    LLMServer,
    Raw,
    Text,
    ToolCalls,
)

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


# Answers the server refuses or fails


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
        # The part the user may have heard stays in the conversation, before
        # the error, in one message of the assistant.
        assert failed_turn[-1]["content"] == (
            f"{content}\n\nError: {sentence('content_filtered')}"
        )


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


@pytest.mark.parametrize(
    "replies",
    [
        pytest.param(
            # Chunks: role, content, finish reason | usage, [DONE].
            [Text("Do you mean the kitchen light?", piece_size=100, drop_after=3)],
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
    the answer, and is not asked to repeat an action that already ran. An
    answer that acts on nothing is a question back, which stands.
    """
    llm_server.reply(*replies)

    result = await ask(hass, QUESTION)

    assert hass.states.get(kitchen_light).state == ("on" if len(replies) > 1 else "off")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert isinstance(answer := replies[-1], Text)
    assert speech(result) == answer.content
