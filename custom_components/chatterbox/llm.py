"""Chatterbox's tools in Home Assistant's Assist API.

Only Chatterbox's own agents get them, and an agent offers
chatterbox__find_devices only in a home too large to list in its prompt
(context/overview.py): elsewhere the prompt names every device already.
"""

from homeassistant.components.llm import LLMTools
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import llm

from .const import DOMAIN
from .context.finder import FIND_DEVICES, FindDevicesTool

__all__ = ["FIND_DEVICES", "async_get_tools"]


@callback
def async_get_tools(
    hass: HomeAssistant,  # noqa: ARG001  # the platform's signature
    llm_context: llm.LLMContext,
    api_id: str,
) -> LLMTools | None:
    """Return the device finder for a Chatterbox agent's Assist API."""
    if api_id != llm.LLM_API_ASSIST or llm_context.platform != DOMAIN:
        return None
    return LLMTools(tools=[FindDevicesTool()])
