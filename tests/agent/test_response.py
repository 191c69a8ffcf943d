"""The response pipeline: what is spoken, cut or dropped of what the model streams."""

import asyncio
import json
from typing import Any

import pytest

from homeassistant.const import CONF_MODEL
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_MAX_TOKENS
from tests.helpers.common import (
    AGENT_ID,
    MODELS,
    ask,
    assert_every_tool_call_answered,
    is_summary_request,
)
from tests.helpers.faults import sentence
from tests.helpers.llm_server import Call, LLMServer, Raw, Text, ToolCalls
from tests.helpers.tools import FakeTool, weather_agent

LOOPING = [ToolCalls([Call("GetForecast", {"city": f"City {n}"})]) for n in range(3)]


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.parametrize(
    ("final", "heard"),
    [
        pytest.param(
            Text(
                'All sunny.\n```json\n{"name": "GetForecast", '
                '"arguments": {"city": "City 3"}}\n```'
            ),
            "All sunny.",
            id="call-as-text-after-the-answer",
        ),
        pytest.param(
            Text('{"name": "GetForecast", "arguments": {"city": "City 3"}}'),
            sentence("out_of_steps"),
            id="only-a-call-as-text",
        ),
        pytest.param(
            ToolCalls([Call("GetForecast", {"city": "City 3"})]),
            sentence("out_of_steps"),
            id="only-a-parsed-call",
        ),
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_at_the_iteration_cap_is_never_read_aloud(
    hass: HomeAssistant,
    llm_server: LLMServer,
    tools: dict[str, FakeTool],
    final: Text | ToolCalls,
    heard: str,
) -> None:
    """Told to answer, a small model writes one more call as text: not spoken.

    llama.cpp parses no calls under tool_choice "none", so the call arrives as
    content; the user hears the answer without it, or that the steps ran out.
    """
    llm_server.reply(*LOOPING, final, Text("Here is the weather."))

    result = await ask(hass, "Weather everywhere?")

    assert result.response.speech["plain"]["speech"] == heard
    assert "{" not in heard
    assert len(tools["GetForecast"].calls) == 3
    # The conversation goes on.
    result = await ask(hass, "And now?")
    assert result.response.speech["plain"]["speech"] == "Here is the weather."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.parametrize(
    ("agent_data", "reply", "heard"),
    [
        pytest.param(
            {CONF_MODEL: MODELS[0]},
            ToolCalls([Call("HassTurnOn", {"name": "Kitchen"})], content="Hello!"),
            "Hello!",
            id="with-words",
        ),
        pytest.param(
            {CONF_MODEL: MODELS[0]},
            ToolCalls([Call("HassTurnOn", {"name": "Kitchen"})]),
            sentence("empty_response"),
            id="only-a-call",
        ),
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_a_chat_only_agent_ignores_a_call_it_was_not_offered(
    hass: HomeAssistant,
    llm_server: LLMServer,
    reply: ToolCalls,
    heard: str,
) -> None:
    """No LLM API selected, yet the model calls a tool: it is not run or spoken."""
    llm_server.reply(reply, Text("Still here."))

    result = await ask(hass, "Hi")

    assert result.response.speech["plain"]["speech"] == heard
    assert "tools" not in llm_server.chat_requests[0]
    result = await ask(hass, "Are you there?")
    assert result.response.speech["plain"]["speech"] == "Still here."
    assert_every_tool_call_answered(llm_server.last_chat_request)


RUNAWAY_PIECES = 10_000


@pytest.mark.parametrize(
    ("max_tokens", "cut"), [(None, True), (4096, False)], ids=["no-limit", "limit"]
)
async def test_a_runaway_answer_stops_at_the_room_kept_for_it(
    hass: HomeAssistant,
    llm_server: LLMServer,
    loaded_entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
    max_tokens: int | None,
    cut: bool,  # noqa: FBT001
) -> None:
    """A small model runs on; with no token limit set, the agent stops listening.

    The server is told to stop (the stream is closed), the user hears the start,
    and the next turn works. With a limit, the server's own limit applies.
    """
    if max_tokens is not None:
        subentry = loaded_entry.subentries[AGENT_ID]
        hass.config_entries.async_update_subentry(
            loaded_entry, subentry, data={**subentry.data, CONF_MAX_TOKENS: max_tokens}
        )
        await hass.async_block_till_done()
    song = "la " * (RUNAWAY_PIECES * 4)
    # The whole song outgrows the context: the next turn has it summarized.
    llm_server.responder = lambda body: (
        Text("They sang.") if is_summary_request(body) else None
    )
    llm_server.reply(
        Text(song, piece_size=12, token_delay=0.0002, finish_reason="length"),
        Text("Hello again."),
    )

    result = await ask(hass, "Sing me a song", "runaway")

    heard = result.response.speech["plain"]["speech"]
    runaway = llm_server.requests[-1].timing
    await asyncio.sleep(0.05)  # the server notices the hang-up at its next write
    if cut:
        assert heard.startswith("la la la")
        # The agent's estimate starts at 3 characters a token: 1,024 tokens.
        assert 3 * 1024 <= len(heard) < 3 * 1024 + 12
        assert runaway.finished is None
        assert len(runaway.tokens) < RUNAWAY_PIECES // 10
        assert "ran past 3072 characters" in caplog.text
    else:
        assert heard == song.strip()
        assert runaway.finished is not None
        assert "cut short at the token limit" in caplog.text
    result = await ask(hass, "Hello?", "runaway")
    assert result.response.speech["plain"]["speech"] == "Hello again."
    assert_every_tool_call_answered(llm_server.last_chat_request)


USAGE = {"prompt_tokens": 900, "completion_tokens": 5, "total_tokens": 905}


def event(data: Any) -> str:
    """Write one server-sent event, as OpenAI streams it."""
    return f"data: {json.dumps(data)}\n\n"


def chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, int] | None = None,
) -> str:
    """Write one chat completion chunk; without a delta, the usage chunk."""
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    return event(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "qwen3",
            "choices": choices,
            "usage": usage,
        }
    )


def answer(text: str, *, after: str, usage: bool) -> Raw:
    """Stream an answer, its finish, maybe its usage, then words after it all."""
    return Raw(
        [
            chunk({"role": "assistant", "content": text}),
            chunk({}, "stop"),
            *([chunk(usage=USAGE)] if usage else []),
            chunk({"content": after}),
            "data: [DONE]\n\n",
        ]
    )


async def test_reading_stops_once_the_answer_and_its_usage_are_in(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The server finishes and counts its tokens; what it sends later is not read.

    After the usage chunk only [DONE] should follow: the stream is closed
    there, rather than waited on to its end.
    """
    llm_server.reply(answer("The door is locked.", after=" And more.", usage=True))

    result = await ask(hass, "Is the front door locked?")

    assert result.response.speech["plain"]["speech"] == "The door is locked."


async def test_a_server_without_usage_is_read_to_the_end_once(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A server that sends no usage is learnt from its first answer.

    The first answer is read to its end, waiting for a usage that never
    comes; from then on each answer ends at its finish reason.
    """
    llm_server.reply(
        answer("It is sunny.", after=" Warm, too.", usage=False),
        answer("It is mild.", after=" Inside.", usage=False),
    )

    first = await ask(hass, "How is the weather?", "weather")
    second = await ask(hass, "And the temperature?", "weather")

    assert first.response.speech["plain"]["speech"] == "It is sunny. Warm, too."
    assert second.response.speech["plain"]["speech"] == "It is mild."
