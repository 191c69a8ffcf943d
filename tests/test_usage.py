"""What a turn cost: the server's counts, or the estimate when it sends none."""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.common import SENSOR_PREFIX, ask, sensor_value
from tests.helpers.llm_server import LLMServer, Text


@pytest.mark.usefixtures("loaded_entry")
async def test_a_server_without_usage_is_estimated(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """No usage from the server: the estimate counts, and says it is one."""
    llm_server.reply(Text("A fairly short answer of some words.", usage=None))

    await ask(hass, "Say something")

    assert sensor_value(hass, "prompt_tokens") > 100  # Home Assistant's prompt alone
    assert sensor_value(hass, "completion_tokens") > 5
    state = hass.states.get(SENSOR_PREFIX + "completion_tokens")
    assert state.attributes["estimated"] is True
