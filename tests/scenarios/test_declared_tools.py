"""Tools of other integrations that say what they do: held, or run at once.

Home Assistant 2026.10 lets every tool declare itself (ToolAnnotations). A
tool that says it is destructive, inside Home Assistant too (it deletes a
list, automations, a calendar's events), waits for the user's yes like a
lock does, named by its title; one that says it only reads runs at once.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS
from tests.helpers.common import AGENT_ENTITY_ID, MODELS
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import WEATHER_API, FakeAPI, FakeTool

pytestmark = pytest.mark.usefixtures("loaded_entry")

LISTS = ["Groceries", "Hardware store"]


async def _clear(args: dict[str, Any]) -> dict[str, Any]:
    """Delete every shopping list, as a list integration's tool would."""
    del args
    LISTS.clear()
    return {"deleted": True}


async def _read(args: dict[str, Any]) -> dict[str, Any]:
    """Tell the shopping lists there are."""
    del args
    return {"lists": list(LISTS)}


@pytest.fixture
def tools() -> dict[str, FakeTool]:
    """Return a destructive tool inside Home Assistant, and a read-only one."""
    LISTS[:] = ["Groceries", "Hardware store"]
    clear = FakeTool("ClearShoppingLists", _clear)
    clear.title = "Delete all shopping lists"
    clear.annotations = llm.ToolAnnotations(
        read_only=False, destructive=True, idempotent=True, open_world=False
    )
    read = FakeTool("ListShoppingLists", _read)
    read.annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    )
    return {tool.name: tool for tool in (clear, read)}


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent the list integration's tools only."""
    llm.async_register_api(ha_core, FakeAPI(ha_core, list(tools.values())))
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [WEATHER_API],
        CONF_MAX_ITERATIONS: 4,
    }


async def _say(hass: HomeAssistant, text: str) -> str:
    """Speak from a satellite in one conversation; return what is heard."""
    result = await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            "lists",
            Context(),
            agent_id=AGENT_ENTITY_ID,
            language="en",
            device_id="satellite-kitchen",
        )
    )
    return str(result.response.speech["plain"]["speech"])


async def test_a_declared_destructive_tool_waits_for_a_yes(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """User asks to clear the lists; the tool says it destroys: a question first.

    Nothing is deleted until the yes; then exactly that call runs, once.
    """
    llm_server.reply(ToolCalls([Call("ClearShoppingLists", {})]))

    asked = await _say(hass, "Clear all my shopping lists")

    assert asked == "Do you want me to run Delete all shopping lists?"
    assert tools["ClearShoppingLists"].calls == []
    assert LISTS == ["Groceries", "Hardware store"]

    llm_server.reply(Text("All your shopping lists are gone."))
    answer = await _say(hass, "yes")

    assert tools["ClearShoppingLists"].calls == [{}]
    assert LISTS == []
    assert answer == "All your shopping lists are gone."


async def test_a_declared_read_only_tool_runs_at_once(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """A question the read-only tool answers: no question back, no refusal."""
    llm_server.reply(
        ToolCalls([Call("ListShoppingLists", {})]),
        Text("You have two lists: Groceries and Hardware store."),
    )

    answer = await _say(hass, "Which shopping lists do I have?")

    assert tools["ListShoppingLists"].calls == [{}]
    assert answer == "You have two lists: Groceries and Hardware store."
