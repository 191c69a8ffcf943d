"""A home of a thousand devices, on a model with an 8k context window."""

import json
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
    llm,
)
from pytest_homeassistant_custom_component.common import async_mock_service

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_MAX_ITERATIONS,
    CONF_TOOL_MODE,
    TOOL_MODE_TEXT,
)
from custom_components.chatterbox.prompts import EARLIER_HEADING, STATES_HEADING
from tests.helpers.common import MODELS, ask, tool_result, traced
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls

WINDOW = 8192
ROOMS = (
    "Kitchen", "Living room", "Dining room", "Hallway", "Study", "Library",
    "Workshop", "Garage", "Laundry", "Pantry", "Attic", "Cellar",
    "Guest room", "Nursery", "Playroom", "Gym", "Sauna", "Porch",
    "Garden", "Greenhouse",
)  # fmt: skip
KINDS = (
    "Ceiling light", "Wall light", "Floor lamp", "Desk lamp", "Fan",
    "Ceiling fan", "Outlet", "Heater", "Speaker", "Blind motor",
)  # fmt: skip
FIND = "chatterbox__find_devices"


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent Assist and a skill, and the 8k window of a small local model.

    With two APIs, Home Assistant's prompt names each API's tools.
    """
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, "chatterbox_calc"],
        CONF_MAX_ITERATIONS: 5,
        CONF_CONTEXT_WINDOW: WINDOW,
    }


def add_switch(hass: HomeAssistant, key: str, name: str, area_id: str | None) -> str:
    """Add a switch in an area, exposed to Assist; return its entity id."""
    entry = er.async_get(hass).async_get_or_create(
        "switch", "test", key, suggested_object_id=key, original_name=name
    )
    er.async_get(hass).async_update_entity(entry.entity_id, area_id=area_id)
    hass.states.async_set(entry.entity_id, "off", {"friendly_name": name})
    async_expose_entity(hass, conversation.DOMAIN, entry.entity_id, should_expose=True)
    return entry.entity_id


@pytest.fixture
async def large_home(ha_core: HomeAssistant) -> dict[str, str]:
    """Build a thousand switches: five of ten kinds in each of twenty rooms.

    The rooms are on two floors.

    Names overlap as in a real home: every room has its "Ceiling light 1".
    One device has an alias. Returns a few entity ids by what they are.
    """
    hass = ha_core
    floors = fr.async_get(hass)
    ground = floors.async_create("Ground floor").floor_id
    upstairs = floors.async_create("Upstairs").floor_id
    areas = ar.async_get(hass)
    for number, room in enumerate(ROOMS):
        area = areas.async_create(room, floor_id=ground if number % 2 else upstairs)
        for kind in KINDS:
            for n in range(1, 6):
                key = f"{room}_{kind}_{n}".lower().replace(" ", "_")
                add_switch(hass, key, f"{room} {kind.lower()} {n}", area.id)
    ids = {
        "heater": add_switch(hass, "workshop_heater", "Workshop heater", None),
        "pump": add_switch(hass, "pond_pump", "Pond pump", None),
    }
    er.async_get(hass).async_update_entity(ids["pump"], aliases={"Fountain"})
    await hass.async_block_till_done()
    return ids


def system_prompt(request: dict[str, Any]) -> str:
    """Return the system prompt of a request."""
    return str(request["messages"][0]["content"])


def last_user_message(request: dict[str, Any]) -> str:
    """Return what the request's last user message says, note included."""
    return str([m for m in request["messages"] if m["role"] == "user"][-1]["content"])


def tool_names(request: dict[str, Any]) -> list[str]:
    """Return the names of the tools a request offers."""
    return [tool["function"]["name"] for tool in request.get("tools", [])]


@pytest.mark.usefixtures("loaded_entry")
async def test_a_thousand_devices_fit_and_the_named_one_is_in_view(
    hass: HomeAssistant, llm_server: LLMServer, large_home: dict[str, str]
) -> None:
    """User asks for the workshop heater; the request fits, and names it.

    The prompt has an overview of the home instead of a thousand names; the
    heater comes after the user's words, without its state; the model calls
    it by name and it is switched on.
    """
    turned_on = async_mock_service(hass, "switch", "turn_on")
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Workshop heater"})]),
        Text("The workshop heater is on."),
    )

    result = await ask(hass, "Turn on the workshop heater")

    assert result.response.speech["plain"]["speech"] == "The workshop heater is on."
    assert [call.data["entity_id"] for call in turned_on] == [[large_home["heater"]]]
    first = llm_server.chat_requests[0]
    size = len(json.dumps(first))
    # Core sends every name: some 15,000 tokens. This fits the window.
    assert size / 3.5 < WINDOW
    prompt = system_prompt(first)
    assert "- names:" not in prompt
    assert "- area: Attic\n  floor: Upstairs\n  devices: 50 switch" in prompt
    assert "- area: Cellar\n  floor: Ground floor\n  devices: 50 switch" in prompt
    assert "- area: (no area)\n  devices: 2 switch" in prompt
    assert "- Workshop heater (switch)" in last_user_message(first)
    assert FIND in tool_names(first)
    (overview,) = traced("chatterbox_home_overview")
    assert overview["entities"] >= 1002
    assert overview["tokens"] > overview["limit"] == WINDOW // 4
    (in_view,) = traced("chatterbox_states_in_view")
    assert in_view["named"] == [large_home["heater"]]
    assert in_view["with_states"] is False


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_an_area_and_a_kind_bring_that_rooms_devices_into_view(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks for the ceiling lights in the library: the library's devices come."""
    llm_server.reply(Text("Which ones?"))

    await ask(hass, "Turn off the ceiling lights in the library")

    said = last_user_message(llm_server.chat_requests[0])
    assert "- Library ceiling light 1 (switch in Library)" in said
    assert "Kitchen" not in said
    (in_view,) = traced("chatterbox_states_in_view")
    assert in_view["areas"] == [ar.async_get(hass).async_get_area_by_name("Library").id]


@pytest.mark.usefixtures("loaded_entry")
async def test_an_alias_finds_its_device(
    hass: HomeAssistant, llm_server: LLMServer, large_home: dict[str, str]
) -> None:
    """User says "fountain"; the pond pump, whose alias it is, is in view.

    Its user took its own name out of its aliases: it is shown by the name
    Home Assistant finds it by, which the model passes on.
    """
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Fountain"})]), Text("It is on.")
    )
    turned_on = async_mock_service(hass, "switch", "turn_on")

    await ask(hass, "Switch the fountain on")

    assert "- Fountain (switch)\n" in last_user_message(llm_server.chat_requests[0])
    assert [call.data["entity_id"] for call in turned_on] == [[large_home["pump"]]]
    (in_view,) = traced("chatterbox_states_in_view")
    assert in_view["named"] == [large_home["pump"]]


@pytest.mark.usefixtures("loaded_entry")
async def test_a_request_that_refers_back_brings_the_last_named_into_view(
    hass: HomeAssistant, llm_server: LLMServer, large_home: dict[str, str]
) -> None:
    """User switches the workshop heater on, then says "turn it off again".

    The second request names nothing and refers back: the heater comes into
    view again, as named earlier, and the model switches it off. Asked the
    day after, nothing comes with the question.
    """
    heater = large_home["heater"]
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Workshop heater"})]),
        Text("The heater is on."),
        ToolCalls([Call("HassTurnOff", {"name": "Workshop heater"})]),
        Text("The heater is off."),
        Text("It is noon."),
    )
    calls = async_mock_service(hass, "switch", "turn_off")
    async_mock_service(hass, "switch", "turn_on")

    result = await ask(hass, "Switch on the workshop heater")
    (first,) = traced("chatterbox_states_in_view")
    hass.states.async_set(heater, "on", {"friendly_name": "Workshop heater"})
    await ask(hass, "Turn it off again", result.conversation_id)

    said = last_user_message(llm_server.chat_requests[2])
    assert said.startswith(f"Turn it off again\n\n{EARLIER_HEADING}")
    assert "- Workshop heater (switch)\n" in said
    assert [call.data["entity_id"] for call in calls] == [[heater]]
    (again,) = traced("chatterbox_states_in_view")
    assert (first["named"], first["earlier"]) == ([heater], False)
    assert (again["named"], again["earlier"]) == ([heater], True)

    await ask(hass, "What day is it?", result.conversation_id)

    assert last_user_message(llm_server.last_chat_request) == "What day is it?"


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_a_name_inside_a_longer_one_brings_only_the_longer(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Every room has a "Fan"; the user asks for the sauna fan, which has its name.

    Only the sauna fan comes into view: not the sauna's other devices (the
    room is said as part of the fan's name), nor the other rooms' "Fan"s,
    which the agent would otherwise hold the answer to as parts left over.
    """
    areas = ar.async_get(hass)
    for room in ROOMS:
        area = areas.async_get_area_by_name(room)
        assert area is not None
        add_switch(hass, f"{room}_fan".lower().replace(" ", "_"), "Fan", area.id)
    sauna_fan = add_switch(hass, "sauna_room_fan", "Sauna fan", None)
    turned_on = async_mock_service(hass, "switch", "turn_on")
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Sauna fan"})]),
        Text("The sauna fan is on."),
    )

    result = await ask(hass, "Turn on the sauna fan")

    assert result.response.speech["plain"]["speech"] == "The sauna fan is on."
    assert [call.data["entity_id"] for call in turned_on] == [[sauna_fan]]
    said = last_user_message(llm_server.chat_requests[0])
    assert "- Sauna fan (switch)" in said
    assert "- Fan (" not in said
    assert "Sauna heater" not in said
    (in_view,) = traced("chatterbox_states_in_view")
    assert in_view["named"] == [sauna_fan]
    assert in_view["areas"] == []
    assert len(llm_server.chat_requests) == 2


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_a_rooms_thermometer_is_read_not_acted_on(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """The boathouse has a light, a pump, a heater and a thermometer.

    User switches off everything in the boathouse and asks how warm it is:
    the light and the pump are listed to act on; the thermometer is not, as
    nothing switches it, but comes with its reading, for the question; the
    heater, which "everything" does not switch, is left out. User then asks
    how warm the boathouse is: the thermometer comes with its reading.
    """
    boathouse = ar.async_get(hass).async_create("Boathouse").id
    add_switch(hass, "boathouse_light", "Boathouse light", boathouse)
    add_switch(hass, "bilge_pump", "Bilge pump", boathouse)
    entities = er.async_get(hass)
    thermometer = entities.async_get_or_create(
        "sensor", "test", "boathouse_temperature", original_name="Thermometer"
    ).entity_id
    entities.async_update_entity(thermometer, area_id=boathouse)
    hass.states.async_set(
        thermometer, "11", {"friendly_name": "Thermometer", "unit_of_measurement": "°C"}
    )
    async_expose_entity(hass, conversation.DOMAIN, thermometer, should_expose=True)
    heater = entities.async_get_or_create(
        "climate", "test", "boathouse_heater", original_name="Heater"
    ).entity_id
    entities.async_update_entity(heater, area_id=boathouse)
    hass.states.async_set(heater, "heat", {"friendly_name": "Heater"})
    async_expose_entity(hass, conversation.DOMAIN, heater, should_expose=True)
    llm_server.reply(Text("All of them?"), Text("It is 11 degrees."))

    result = await ask(
        hass, "Switch off everything in the boathouse and say how warm it is"
    )

    said = last_user_message(llm_server.chat_requests[0])
    names, states = said.split(STATES_HEADING)
    assert "- Boathouse light (switch in Boathouse)\n" in names
    assert "- Bilge pump (switch in Boathouse)\n" in names
    assert "Thermometer" not in names
    assert "- Thermometer (sensor in Boathouse): 11 °C\n" in states
    assert "Heater" not in said
    (in_view,) = traced("chatterbox_states_in_view")
    assert {thermometer, heater} <= set(in_view["in_areas"])

    await ask(hass, "How warm is it in the boathouse?", result.conversation_id)

    said = last_user_message(llm_server.chat_requests[-1])
    assert "- Thermometer (sensor in Boathouse): 11 °C" in said


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_the_system_prompt_is_the_same_bytes_on_every_turn(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Five turns of one conversation: the prompt cache can hold the prefix."""
    conversation_id = None
    for said in (
        "Turn on the attic fan 1",
        "Is the garage outlet 2 on?",
        "And the pond pump?",
        "Thanks",
        "Turn off the sauna heater 3",
    ):
        llm_server.reply(Text("OK."))
        result = await ask(hass, said, conversation_id)
        conversation_id = result.conversation_id

    prompts = {system_prompt(request) for request in llm_server.chat_requests}
    assert len(prompts) == 1


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_the_model_finds_what_the_request_did_not_name(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """User asks which heaters are on; the model searches; the result is bounded."""
    hass.states.async_set(
        "switch.study_heater_2", "on", {"friendly_name": "Study heater 2"}
    )
    llm_server.reply(
        ToolCalls([Call(FIND, {"name": "heater", "state": "on"})]),
        Text("The study heater 2 is on."),
        ToolCalls([Call(FIND, {"domain": "switches"})]),
        Text("Many."),
    )

    result = await ask(hass, "Which heaters are on?")

    found = tool_result(llm_server.chat_requests[1]["messages"][-1]["content"])["data"]
    assert found == {"devices": ["Study heater 2 (switch in Study): on"]}
    assert result.response.speech["plain"]["speech"] == "The study heater 2 is on."

    await ask(hass, "How many switches are there?", result.conversation_id)

    found = tool_result(llm_server.chat_requests[3]["messages"][-1]["content"])["data"]
    assert len(found["devices"]) == 25
    assert found["more"].startswith("977 more match")


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_a_device_exposed_later_is_found_without_a_reload(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A new sprinkler is exposed; the next turn names it, and a search finds it."""
    add_switch(hass, "sprinkler", "Lawn sprinkler", None)
    llm_server.reply(ToolCalls([Call(FIND, {"name": "sprinkler"})]), Text("It's off."))

    await ask(hass, "Is the lawn sprinkler on?")

    request = llm_server.chat_requests[0]
    assert "- Lawn sprinkler (switch): off" in last_user_message(request)
    found = tool_result(llm_server.chat_requests[1]["messages"][-1]["content"])["data"]
    assert found == {"devices": ["Lawn sprinkler (switch): off"]}


@pytest.mark.usefixtures("loaded_entry")
async def test_a_small_home_keeps_its_list_and_gets_no_search(
    hass: HomeAssistant, llm_server: LLMServer, ha_core: HomeAssistant
) -> None:
    """Three devices: Home Assistant's list stays, and no search tool is offered."""
    for key in ("desk", "lamp", "fan"):
        add_switch(ha_core, key, key.title(), None)
    llm_server.reply(Text("OK."))

    await ask(hass, "Turn on the desk")

    request = llm_server.last_chat_request
    assert "- names: Desk" in system_prompt(request)
    assert FIND not in tool_names(request)
    assert "find_devices" not in json.dumps(request)
    assert traced("chatterbox_home_overview") == []


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            CONF_MODEL: MODELS[0],
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_CONTEXT_WINDOW: WINDOW,
            CONF_TOOL_MODE: TOOL_MODE_TEXT,
        }
    ],
)
@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_with_calls_as_text_the_search_is_home_assistants(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A server that reads calls as text: the model is shown no search tool.

    The overview points to GetLiveContext instead. The user asks which
    heaters are on; the model writes a GetLiveContext call by domain and
    name as text, and answers from what it read.
    """
    llm_server.reply(
        Text(
            '<tool_call>{"name": "GetLiveContext", "arguments": '
            '{"domain": "switch", "name": "Workshop heater"}}</tool_call>'
        ),
        Text("The workshop heater is off."),
    )

    result = await ask(hass, "Is the workshop heater on?")

    assert result.response.speech["plain"]["speech"] == "The workshop heater is off."
    first, second = llm_server.chat_requests
    assert "find_devices" not in json.dumps(first)
    assert "call GetLiveContext with words of its name" in system_prompt(first)
    assert "- area: Attic\n  floor: Upstairs\n  devices: 50 switch" in (
        system_prompt(first)
    )
    assert "Workshop heater" in last_user_message(second)
    assert "state: 'off'" in last_user_message(second)
    assert "Pond pump" not in last_user_message(second)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_search_hidden_in_a_small_home_is_refused(
    hass: HomeAssistant, llm_server: LLMServer, ha_core: HomeAssistant
) -> None:
    """A model that calls the search anyway is told it has no such tool."""
    add_switch(ha_core, "desk", "Desk", None)
    llm_server.reply(ToolCalls([Call(FIND, {"name": "desk"})]), Text("OK."))

    await ask(hass, "Find the desk")

    result = tool_result(llm_server.last_chat_request["messages"][-1]["content"])
    assert result["data"]["error"] == "UnknownTool"


@pytest.mark.usefixtures("loaded_entry", "large_home")
async def test_a_search_needs_something_to_search_for(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """An empty search is an error the model can read, not every device."""
    llm_server.reply(ToolCalls([Call(FIND, {"name": " "})]), Text("Sorry."))

    await ask(hass, "Find something")

    result = tool_result(llm_server.last_chat_request["messages"][-1]["content"])
    assert result["data"] == {
        "error": "NothingToFind",
        "error_text": "Give a name, an area, a domain or a state.",
    }
