"""The tool guard: every call ends in a result the model can use."""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.prompts import FINAL_NOTE
from custom_components.chatterbox.tools import guard as tool_guard
from tests.helpers.common import ask, assert_every_tool_call_answered, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import FakeAPI, FakeTool, weather_agent


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


@pytest.mark.usefixtures("loaded_entry")
async def test_tool_error_then_recovery(
    hass: HomeAssistant, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool crashes; the model reads why, tries another tool, and answers."""
    llm_server.reply(
        ToolCalls([Call("BrokenTool", {"city": "Rome"})]),
        ToolCalls([Call("GetForecast", {"city": "Rome"})]),
        Text("Rome is sunny."),
    )

    result = await ask(hass, "Weather in Rome?")

    assert result.response.speech["plain"]["speech"] == "Rome is sunny."
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["error"] is True
    assert error["content"]["data"]["error"] == "RuntimeError"
    assert "weather backend exploded" in error["content"]["data"]["error_text"]
    assert "Tool BrokenTool failed: RuntimeError" in caplog.text


@pytest.mark.usefixtures("loaded_entry")
async def test_unknown_tool(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """The model invents a tool; it hears which tools exist, and answers."""
    llm_server.reply(
        ToolCalls([Call("GetHoroscope", {"city": "Rome"})]),
        Text("I can only tell the weather."),
    )

    result = await ask(hass, "What is my horoscope?")

    assert result.response.speech["plain"]["speech"] == "I can only tell the weather."
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "UnknownTool"
    assert "GetForecast" in error["content"]["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_repaired_arguments(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Python-style arguments with trailing chatter are repaired and used."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", "{'city': 'Lisbon'} I hope that helps")]),
        Text("Lisbon is sunny."),
    )

    result = await ask(hass, "Weather in Lisbon?")

    assert result.response.speech["plain"]["speech"] == "Lisbon is sunny."
    assert tools["GetForecast"].calls == [{"city": "Lisbon"}]


@pytest.mark.usefixtures("loaded_entry")
async def test_unrepairable_arguments_then_retry(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Broken JSON is not run; the model reads the parse error and retries."""
    llm_server.reply(
        ToolCalls([Call("GetForecast", '{"city": "Madrid",')]),
        ToolCalls([Call("GetForecast", {"city": "Madrid"})]),
        Text("Madrid is sunny."),
    )

    result = await ask(hass, "Weather in Madrid?")

    assert result.response.speech["plain"]["speech"] == "Madrid is sunny."
    assert tools["GetForecast"].calls == [{"city": "Madrid"}]
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "InvalidArguments"
    assert "could not be read" in error["content"]["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_repetition_guard(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The same call again in one turn is refused, and the model answers."""
    same = Call("GetForecast", {"city": "Nice"})
    llm_server.reply(ToolCalls([same]), ToolCalls([same]), Text("Nice is sunny."))

    result = await ask(hass, "Weather in Nice?")

    assert result.response.speech["plain"]["speech"] == "Nice is sunny."
    assert len(tools["GetForecast"].calls) == 1
    # The chat log keeps the repeat and its refusal.
    assert refusals(hass, result.conversation_id) == ["RepeatedCall"]
    # The model reads neither: the conversation ends on the result it asked
    # for again, and, going round in circles, it is asked for its answer at
    # once, rather than after the 4 rounds the agent allows.
    refused = llm_server.chat_requests[2]
    (forecast,) = tool_messages(refused)
    assert forecast["content"]["data"] == {
        "city": "Nice",
        "forecast": "sunny",
        "high": 21,
    }
    assert refused["messages"][-1] == {"role": "user", "content": FINAL_NOTE}
    assert refused["tool_choice"] == "none"
    assert len(llm_server.chat_requests) == 3
    # What it reads is the request before, and the note: the prompt cache holds.
    assert refused["messages"][:-1] == llm_server.chat_requests[1]["messages"]
    assert_every_tool_call_answered(refused)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_failed_call_is_not_run_again_as_it_was(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The call failed; the model makes it again, word for word.

    It would fail the same way (a device that is not there), so it is refused,
    and the model is told so, once; made again, it is asked for its answer:
    the user hears it then, not after the rounds run out.
    """
    same = Call("BrokenTool", {"city": "Oslo"})
    llm_server.reply(
        ToolCalls([same]),
        ToolCalls([same]),
        ToolCalls([same]),
        Text("The weather service is broken."),
    )

    result = await ask(hass, "Weather in Oslo?")

    assert result.response.speech["plain"]["speech"] == "The weather service is broken."
    assert len(tools["BrokenTool"].calls) == 1
    assert refusals(hass, result.conversation_id) == [
        "RuntimeError",
        "RepeatedCall",
        "RepeatedCall",
    ]
    (failed,) = tool_messages(llm_server.chat_requests[3])
    assert failed["content"]["error"] is True
    assert "tool_choice" not in llm_server.chat_requests[2]
    assert llm_server.chat_requests[3]["tool_choice"] == "none"
    assert len(llm_server.chat_requests) == 4
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_three_failed_calls_and_the_model_is_asked_to_answer(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """A small model tries one name after another for a device that is not there.

    After the third failure it is told to answer, with a round still left.
    """
    llm_server.reply(
        *(ToolCalls([Call("BrokenTool", {"city": f"Oven {n}"})]) for n in range(3)),
        Text("There is no oven I can control."),
    )

    result = await ask(hass, "Preheat the oven")

    assert (
        result.response.speech["plain"]["speech"] == "There is no oven I can control."
    )
    assert len(tools["BrokenTool"].calls) == 3
    assert [r.get("tool_choice") for r in llm_server.chat_requests] == [
        None,
        None,
        None,
        "none",
    ]
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_that_timed_out_is_tried_once_more(
    hass: HomeAssistant,
    llm_server: LLMServer,
    tools: dict[str, FakeTool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hang may pass, so the same call runs again once; a third is refused."""
    monkeypatch.setattr(tool_guard, "TOOL_TIMEOUT", 0.05)
    same = Call("SlowTool", {"city": "Bergen"})
    llm_server.reply(
        *(ToolCalls([same]) for _ in range(3)), Text("The service is not answering.")
    )

    result = await ask(hass, "Weather in Bergen?")

    assert result.response.speech["plain"]["speech"] == "The service is not answering."
    assert len(tools["SlowTool"].calls) == 2
    assert refusals(hass, result.conversation_id) == [
        "Timeout",
        "Timeout",
        "RepeatedCall",
    ]
    errors = [
        message["content"]["data"]["error"]
        for message in tool_messages(llm_server.last_chat_request)
    ]
    assert errors == ["Timeout", "Timeout"]


@pytest.mark.usefixtures("loaded_entry")
async def test_hanging_tool_times_out(
    hass: HomeAssistant, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool that never answers is given up on; the model tells the user."""
    monkeypatch.setattr(tool_guard, "TOOL_TIMEOUT", 0.05)
    llm_server.reply(
        ToolCalls([Call("SlowTool", {})]), Text("The weather service is not answering.")
    )

    result = await ask(hass, "Weather?")

    assert (
        result.response.speech["plain"]["speech"]
        == "The weather service is not answering."
    )
    (error,) = tool_messages(llm_server.chat_requests[1])
    assert error["content"]["data"]["error"] == "Timeout"


async def test_tool_calls_after_the_turn_ended_do_not_run(
    hass: HomeAssistant, tools: dict[str, FakeTool]
) -> None:
    """A tool call that starts after a cancelled turn ended is refused, not run."""
    context = llm.LLMContext(
        platform="chatterbox",
        context=None,
        language="en",
        assistant="conversation",
        device_id=None,
    )
    instance = await FakeAPI(hass, list(tools.values())).async_get_api_instance(context)
    guard = tool_guard.ToolGuard(instance, None)
    guard.close()

    result = await guard.async_call_tool(llm.ToolInput("GetForecast", {}))

    assert result.error
    assert result.data["error"] == "TurnEnded"
    assert tools["GetForecast"].calls == []


def refusals(hass: HomeAssistant, conversation_id: str) -> list[str]:
    """Return the errors of the tool results that the conversation's chat log keeps."""
    return [
        item.result.data["error"]
        for item in hass.data[DATA_CHAT_LOGS][conversation_id].content
        if isinstance(item, conversation.ToolResultContent) and item.result.error
    ]
