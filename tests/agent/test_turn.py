"""What a turn shares, and what an agent keeps per conversation: bounded."""

import pytest

from homeassistant.core import HomeAssistant

from custom_components.chatterbox.agent import turn as agent_turn
from tests.helpers.common import AGENT_ENTITY_ID, ask
from tests.helpers.llm_server import LLMServer, Text


@pytest.mark.usefixtures("loaded_entry")
async def test_compaction_state_is_bounded(
    hass: HomeAssistant, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent remembers trims for recent conversations only."""
    monkeypatch.setattr(agent_turn, "MAX_TRACKED_CONVERSATIONS", 2)
    agent = hass.data["entity_components"]["conversation"].get_entity(AGENT_ENTITY_ID)
    for name in ("one", "two", "three"):
        llm_server.reply(Text("Hi."))
        await ask(hass, "Hello", name)

    assert list(agent.conversations.compactions) == ["two", "three"]
