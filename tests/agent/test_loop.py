"""The agent loop: rounds of tools in parallel and in chains; a turn cut short."""

import asyncio
from typing import Any

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.common import ask, assert_every_tool_call_answered, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_two_tools_in_parallel(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """One response asks for two tools at once; both run; the model sums up."""
    llm_server.reply(
        ToolCalls(
            [
                Call("GetForecast", {"city": "Paris"}),
                Call("GetAlerts", {"city": "Paris"}),
            ],
            same_chunk=True,
        ),
        Text("Sunny in Paris, and no alerts."),
    )

    result = await ask(hass, "Weather and alerts for Paris?")

    assert result.response.speech["plain"]["speech"] == "Sunny in Paris, and no alerts."
    assert tools["GetForecast"].calls == [{"city": "Paris"}]
    assert tools["GetAlerts"].calls == [{"city": "Paris"}]
    results = tool_messages(llm_server.chat_requests[1])
    assert [r["tool_call_id"] for r in results] == ["call_1", "call_2"]
    assert results[0]["content"]["data"]["forecast"] == "sunny"


@pytest.mark.usefixtures("loaded_entry")
async def test_chain_of_three_dependent_tool_rounds(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Each round uses what the last one found, then the model answers."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Oslo"})]),
        ToolCalls([Call("GetAlerts", {"city": "Oslo"})]),
        ToolCalls([Call("GetForecast", {"city": "Bergen"})]),
        Text("Oslo and Bergen are both sunny."),
    )

    result = await ask(hass, "Compare Oslo with Bergen")

    assert (
        result.response.speech["plain"]["speech"] == "Oslo and Bergen are both sunny."
    )
    assert tools["GetForecast"].calls == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert len(llm_server.chat_requests) == 4
    last = llm_server.chat_requests[-1]
    assert len(tool_messages(last)) == 3
    assert_every_tool_call_answered(last)


@pytest.mark.usefixtures("loaded_entry")
async def test_cancelled_turn_closes_the_stream_and_tools(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Barge-in mid-turn: the stream and a running tool stop; the next turn works."""
    llm_server.reply(ToolCalls([Call("SlowTool", {})]))
    turn = asyncio.create_task(ask(hass, "Weather?", "barge-in"))
    await tools["SlowTool"].called.wait()

    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await hass.async_block_till_done()
    assert not [
        task
        for task in asyncio.all_tasks()
        if task.get_name().startswith("llm_tool_") and not task.done()
    ]

    llm_server.reply(Text("Long answer", chunk_delay=0.05), Text("Hello again."))
    turn = asyncio.create_task(ask(hass, "Tell me a story", "barge-in"))
    # The story is streaming (the setup's own requests to the server count
    # in wait_for_request, and may come late).
    while len(llm_server.chat_requests) < 2:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.06)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn

    result = await ask(hass, "Hello?", "barge-in")

    assert result.response.speech["plain"]["speech"] == "Hello again."
    assert_every_tool_call_answered(llm_server.last_chat_request)
