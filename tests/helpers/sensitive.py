"""A home with sensitive devices, a satellite in it, and a tool that takes anything."""

from typing import Any, override

import probatio

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm

from tests.helpers.common import AGENT_ENTITY_ID
from tests.helpers.llm_server import Call


class FreeTool(llm.Tool):
    """A tool that takes any arguments, and says how it behaves."""

    def __init__(self, annotations: llm.ToolAnnotations | None = None) -> None:
        """Name the tool; by default it declares nothing."""
        self.name = "free"
        self.parameters = probatio.Schema({}, extra=probatio.ALLOW_EXTRA)
        self.annotations = annotations or llm.ToolAnnotations()

    @override
    async def async_call(  # pragma: no cover - never called
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: Any
    ) -> llm.ToolResult:
        """Do nothing."""
        return llm.ToolResult(data={})


# A call made for Assist, from no device in particular.
CONTEXT = llm.LLMContext(
    platform="test",
    context=None,
    language="en",
    assistant=conversation.DOMAIN,
    device_id=None,
)


FRONT = "lock.front_door"


GARAGE = "cover.garage_door"


LIGHT = "light.kitchen_light"


PUMP = "switch.pond_pump"


SATELLITE = "kitchen0satellite0device"


QUESTION = "Do you want me to unlock Front door?"


UNLOCK = Call("HassTurnOff", {"name": "Front door"})


async def say(
    hass: HomeAssistant, text: str, device_id: str = SATELLITE, language: str = "en"
) -> conversation.ConversationResult:
    """Speak to the agent from a satellite, always in the same conversation."""
    return await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            "door",
            Context(),
            agent_id=AGENT_ENTITY_ID,
            language=language,
            device_id=device_id,
        )
    )


def heard(result: conversation.ConversationResult) -> str:
    """Return what the user hears."""
    return str(result.response.speech["plain"]["speech"])


def state(hass: HomeAssistant, entity_id: str) -> str:
    """Return an entity's state."""
    return hass.states.get(entity_id).state
