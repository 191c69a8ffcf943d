"""Every text the model reads from Chatterbox is prompts.py's, byte for byte."""

from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from custom_components.chatterbox.prompts import (
    FINAL_NOTE,
    SPEECH_INSTRUCTIONS,
    UNKNOWN_TOOL,
    WRAP_UP_NOTE,
)
from tests.helpers.common import ask, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_turn_reads_the_words_of_prompts_py(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A spoken turn that uses every round: instructions, a refusal and the notes.

    The speech instructions open the system prompt of every request, the
    unknown tool is refused in UNKNOWN_TOOL's words, and the notes on the
    rounds left follow the last tool result as the user's words: WRAP_UP_NOTE,
    then FINAL_NOTE.
    """
    llm_server.reply(
        ToolCalls([Call("GetHoroscope", {"city": "Oslo"})]),
        ToolCalls([Call("GetForecast", {"city": "Oslo"})]),
        ToolCalls([Call("GetForecast", {"city": "Bergen"})]),
        Text("Oslo and Bergen are sunny; I have no horoscopes."),
    )

    result = await ask(hass, "My horoscope, and the weather in Oslo and Bergen?")

    assert result.response.speech["plain"]["speech"] == (
        "Oslo and Bergen are sunny; I have no horoscopes."
    )
    requests = llm_server.chat_requests
    assert len(requests) == 4
    for request in requests:
        assert request["messages"][0]["content"].startswith(
            f"{SPEECH_INSTRUCTIONS}\n\n"
        )
    (refused,) = tool_messages(requests[1])
    assert refused["content"]["data"]["error_text"] == UNKNOWN_TOOL.format(
        name="GetHoroscope", available="GetForecast, GetAlerts, BrokenTool, SlowTool"
    )
    ends = [request["messages"][-1] for request in requests]
    assert ends[1]["role"] == "tool"
    assert ends[2] == {"role": "user", "content": WRAP_UP_NOTE.format(left=1)}
    assert ends[3] == {"role": "user", "content": FINAL_NOTE}
