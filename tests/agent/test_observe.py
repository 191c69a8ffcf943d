"""What each round records: the trace of the Assist debug view."""

from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.common import ask, traced
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls, Usage
from tests.helpers.tools import FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_trace_records_each_iteration(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The Assist debug view shows finish reason, usage, timing and tools."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Bern"})], usage=Usage(30, 7)),
        Text("Bern is sunny.", usage=Usage(50, 4)),
    )

    await ask(hass, "Weather in Bern?")

    iterations = traced("chatterbox_iteration")
    assert [i["iteration"] for i in iterations] == [1, 2]
    assert [i["finish_reason"] for i in iterations] == ["tool_calls", "stop"]
    assert [i["tools"] for i in iterations] == [["GetForecast"], []]
    assert [i["prompt_tokens"] for i in iterations] == [30, 50]
    assert all(i["latency"] >= i["time_to_first_token"] >= 0 for i in iterations)
