"""Which calls are sensitive, and the words the question names them with."""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_GUIDE, GUIDE_ON, SECTION_ADVANCED
from custom_components.chatterbox.tools.sensitive import sensitive_action
from tests.helpers.common import AGENT_ID
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import (
    CONTEXT,
    FRONT,
    GARAGE,
    LIGHT,
    PUMP,
    UNLOCK,
    FreeTool,
    heard,
    say,
    state,
)

pytestmark = pytest.mark.usefixtures("loaded_entry")


async def test_each_kind_is_named_with_its_own_verb(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """One call closes the garage door and unlocks the locks: the question says both."""
    call = Call("HassTurnOff", {"domain": ["cover", "lock"]})
    llm_server.reply(ToolCalls([call]))

    assert heard(await say(hass, "Everything off")) == (
        "Do you want me to close Garage door and unlock Front door, Side door "
        "and Side door?"
    )


READ_ONLY = llm.ToolAnnotations(read_only=True, destructive=False, open_world=False)


OUTSIDE = llm.ToolAnnotations(destructive=True, open_world=True, idempotent=True)
INSIDE = llm.ToolAnnotations(destructive=True, open_world=False)


@pytest.mark.parametrize(
    ("annotations", "action"),
    [
        (READ_ONLY, None),
        (OUTSIDE, "free"),
        (INSIDE, "free"),
        (llm.ToolAnnotations(), None),
    ],
)
async def test_what_a_tool_declares(
    hass: HomeAssistant,
    guarded_home: dict[str, str],
    annotations: llm.ToolAnnotations,
    action: str | None,
) -> None:
    """Read-only never asks; destructive always does, inside Home Assistant too.

    A tool that declares nothing is judged by what it reaches.
    """
    args = {"entity_id": FRONT if annotations == READ_ONLY else "light.kitchen_light"}

    said = sensitive_action(hass, FreeTool(annotations), args, CONTEXT)

    assert (str(said) if said else None) == action


async def test_a_light_needs_no_question(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """Everyday actions run at once, with everything left as it was."""
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})]), Text("It's on.")
    )

    assert heard(await say(hass, "Turn on the kitchen light")) == "It's on."

    assert state(hass, LIGHT) == "on"
    assert state(hass, FRONT) == "locked"


async def test_the_user_chooses_the_sensitive_kinds(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    config_entry: MockConfigEntry,
) -> None:
    """Switches and buttons guarded, locks not: the pump and relay wait, the door not.

    A garage door relay exposed as a button is covered by its kind.
    """
    flow = await config_entry.start_subentry_reconfigure_flow(hass, AGENT_ID)
    result = await hass.config_entries.subentries.async_configure(
        flow["flow_id"],
        {
            **{
                key: value
                for key, value in config_entry.subentries[AGENT_ID].data.items()
                if key != CONF_GUIDE
            },
            SECTION_ADVANCED: {
                "sensitive_kinds": ["switch", "button"],
                CONF_GUIDE: GUIDE_ON,
            },
        },
    )
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()

    llm_server.reply(
        ToolCalls(
            [
                Call("HassTurnOff", {"name": "Pond pump"}),
                Call("HassTurnOn", {"name": "Garage relay"}),
            ]
        )
    )
    assert heard(await say(hass, "Pond pump off, and the garage relay")) == (
        "Do you want me to turn off Pond pump and press Garage relay?"
    )
    assert state(hass, PUMP) == "on"
    assert state(hass, GARAGE) == "closed"

    llm_server.reply(ToolCalls([UNLOCK]), Text("The front door is unlocked."))
    await say(hass, "No. Unlock the front door")
    assert state(hass, FRONT) == "unlocked"
    assert state(hass, PUMP) == "on"
