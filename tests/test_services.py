"""The chatterbox.forget action: what it clears, and who may use it."""

import pytest

from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import ServiceValidationError, Unauthorized
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockUser,
)

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.context.memory import MemoryStore
from tests.helpers.common import AGENT_ENTITY_ID, AGENT_ID
from tests.helpers.llm_server import LLMServer
from tests.helpers.memory import DEVICE_X, DEVICE_Y, HEADING_DEVICE, agent, chat


@pytest.mark.parametrize("agent_data", [agent("device")])
async def test_forget(
    hass: HomeAssistant, llm_server: LLMServer, loaded_entry: MockConfigEntry
) -> None:
    """chatterbox.forget clears one device, or the whole agent; bad targets fail."""
    memory: MemoryStore = loaded_entry.runtime_data.memory
    for conversation_id, device in (("a", DEVICE_X), ("b", DEVICE_Y)):
        await chat(hass, llm_server, "Hello", "Hi.", conversation_id, device_id=device)
    assert len(memory.keys()) == 2

    await hass.services.async_call(
        DOMAIN,
        "forget",
        {"entity_id": AGENT_ENTITY_ID, "device_id": DEVICE_X},
        blocking=True,
    )
    assert memory.keys() == [f"{AGENT_ID}:device:{DEVICE_Y}"]
    system = await chat(hass, llm_server, "Hello?", "Hi.", "c", device_id=DEVICE_X)
    assert HEADING_DEVICE not in system

    await hass.services.async_call(
        DOMAIN,
        "forget",
        {"entity_id": AGENT_ENTITY_ID, "user_id": "nobody"},
        blocking=True,
    )
    assert len(memory.keys()) == 2
    await hass.services.async_call(
        DOMAIN, "forget", {"entity_id": AGENT_ENTITY_ID}, blocking=True
    )
    assert memory.keys() == []
    system = await chat(hass, llm_server, "Hello?", "Hi.", "d", device_id=DEVICE_Y)
    assert HEADING_DEVICE not in system

    for entity_id in ("conversation.home_assistant", "conversation.missing"):
        with pytest.raises(ServiceValidationError) as raised:
            await hass.services.async_call(
                DOMAIN, "forget", {"entity_id": entity_id}, blocking=True
            )
        assert raised.value.translation_key == "not_an_agent"
        assert raised.value.translation_domain == DOMAIN


@pytest.mark.parametrize("agent_data", [agent("device")])
@pytest.mark.usefixtures("loaded_entry")
async def test_only_an_administrator_may_forget(
    hass: HomeAssistant,
    llm_server: LLMServer,
    loaded_entry: MockConfigEntry,
    hass_read_only_user: MockUser,
) -> None:
    """A family member's account cannot wipe what the agent remembers."""
    memory: MemoryStore = loaded_entry.runtime_data.memory
    await chat(hass, llm_server, "Hello", "Hi.", "a", device_id=DEVICE_X)

    with pytest.raises(Unauthorized):
        await hass.services.async_call(
            DOMAIN,
            "forget",
            {"entity_id": AGENT_ENTITY_ID},
            blocking=True,
            context=Context(user_id=hass_read_only_user.id),
        )

    assert len(memory.keys()) == 1
