"""A server that goes away and comes back: the next turn is answered."""

import pytest

from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.common import AGENT_ENTITY_ID, ask
from tests.helpers.faults import count_logged, server_goes_away
from tests.helpers.llm_server import LLMServer, Text


async def test_the_first_turn_after_an_outage_is_answered(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server was down and is back: the user's next turn is answered.

    Nobody hears "can't reach" from a server that is up, and the turn itself
    brings the agent back, before any check does.
    """
    port = await server_goes_away(hass, llm_server)
    assert hass.states.get(AGENT_ENTITY_ID).state == STATE_UNAVAILABLE
    await llm_server.start(port)

    llm_server.reply(Text("Here."))
    result = await ask(hass, "Hello?")

    assert result.response.speech["plain"]["speech"] == "Here."
    assert hass.states.get(AGENT_ENTITY_ID).state != STATE_UNAVAILABLE
    assert loaded_entry.runtime_data.coordinator.unavailable_since is None
    assert count_logged(caplog, "answers again") == 1
