"""Each round's request: notes, settings, history and what the server is told."""

import json
from typing import Any

import pytest

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_EXTRA_BODY
from tests.helpers.common import (
    AGENT_ID,
    MODELS,
    ask,
    assert_every_tool_call_answered,
    set_up,
)
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_iteration_cap_forces_a_final_answer(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """A model that keeps calling tools is told to wrap up, then to answer."""
    llm_server.reply(
        *(ToolCalls([Call("GetForecast", {"city": f"City {n}"})]) for n in range(3)),
        # A server that ignores tool_choice "none": the tool call is not run.
        ToolCalls([Call("GetForecast", {"city": "City 3"})], content="All sunny."),
    )

    result = await ask(hass, "Weather everywhere?")

    assert result.response.speech["plain"]["speech"] == "All sunny."
    assert len(tools["GetForecast"].calls) == 3
    requests = llm_server.chat_requests
    assert len(requests) == 4
    # The notes end the last tool result: the prompt before them is the one
    # the server has cached, so it is not read again.
    notes = [r["messages"][-1]["content"].rsplit("\n\n", 1)[-1] for r in requests]
    assert not notes[0].startswith("Note:")
    assert not notes[1].startswith("Note:")
    assert notes[2].startswith("Note: 1 tool round(s) left")
    assert notes[3].startswith("Note: no tool rounds are left")
    assert len({json.dumps(r["messages"][0]) for r in requests}) == 1
    assert "tool_choice" not in requests[2]
    assert requests[3]["tool_choice"] == "none"


@pytest.mark.usefixtures("loaded_entry")
async def test_follow_up_turn_sees_its_history(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Turn 2 sends turn 1, tool call and result included."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", {"city": "Vienna"})]),
        Text("Vienna is sunny, 21 degrees."),
        Text("Then no umbrella needed."),
    )
    first = await ask(hass, "Weather in Vienna?", "kitchen-chat")

    second = await ask(hass, "Do I need an umbrella?", first.conversation_id)

    assert first.conversation_id == second.conversation_id == "kitchen-chat"
    assert second.response.speech["plain"]["speech"] == "Then no umbrella needed."
    messages = llm_server.last_chat_request["messages"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "GetForecast"
    assert messages[4]["content"] == "Vienna is sunny, 21 degrees."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            "model": MODELS[0],
            CONF_LLM_HASS_API: [],
            CONF_EXTRA_BODY: {
                "top_k": 20,
                "min_p": 0.05,
                "chat_template_kwargs": {"enable_thinking": False},
            },
        }
    ],
)
async def test_the_extra_body_goes_with_every_request(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Fields the server understands beyond the OpenAI API reach it as set."""
    await set_up(hass, config_entry)
    llm_server.reply(Text("Hello."))

    await ask(hass, "Hi")

    body = llm_server.last_chat_request
    assert body["top_k"] == 20
    assert body["min_p"] == 0.05
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["stream"] is True


async def test_advanced_settings_reach_the_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Temperature, top P and the token limit are sent only when set."""
    llm_server.reply(Text("Default."), Text("Tuned."))
    await ask(hass, "Hi")
    assert not {"temperature", "top_p", "max_tokens"} & set(
        llm_server.last_chat_request
    )
    subentry = loaded_entry.subentries[AGENT_ID]
    hass.config_entries.async_update_subentry(
        loaded_entry,
        subentry,
        data={**subentry.data, "temperature": 0.2, "top_p": 0.9, "max_tokens": 256},
    )
    await hass.async_block_till_done()

    await ask(hass, "Hi again")

    request = llm_server.last_chat_request
    assert (request["temperature"], request["top_p"], request["max_tokens"]) == (
        0.2,
        0.9,
        256,
    )
