"""Agents with memory, and conversations held from a device or as a user."""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.const import CONF_MODEL
from homeassistant.core import Context, HomeAssistant

from custom_components.chatterbox.const import (
    CONF_MAX_ITERATIONS,
    CONF_MEMORY,
)
from custom_components.chatterbox.prompts import RECORD_NOTE
from tests.helpers.common import AGENT_ENTITY_ID, MODELS
from tests.helpers.llm_server import LLMServer, Text

DEVICE_X = "device0satellite0kitchen"


DEVICE_Y = "device0satellite0bedroom"


# A memory comes back as a record to read, never as instructions.
HEADING_DEVICE = f"Earlier conversation with this device: {RECORD_NOTE}\n<record>"


HEADING_USER = f"Earlier conversation with this user: {RECORD_NOTE}\n<record>"


# Home Assistant does not stop the test's second instance for us.
REAL_HASS = pytest.mark.parametrize("auto_enable_custom_integrations", [None])


def agent(memory: str, **extra: Any) -> dict[str, Any]:
    """Return the settings of a chat-only agent with the given memory mode."""
    return {
        CONF_MODEL: MODELS[0],
        CONF_MAX_ITERATIONS: 10,
        CONF_MEMORY: memory,
        **extra,
    }


async def say(
    hass: HomeAssistant,
    text: str,
    conversation_id: str,
    *,
    device_id: str | None = None,
    user_id: str | None = None,
) -> conversation.ConversationResult:
    """Say something to the agent from a device or as a user."""
    return await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            conversation_id,
            Context(user_id=user_id),
            language="en",
            agent_id=AGENT_ENTITY_ID,
            device_id=device_id,
        )
    )


async def chat(
    hass: HomeAssistant,
    server: LLMServer,
    text: str,
    answer: str,
    conversation_id: str,
    **who: str,
) -> str:
    """Hold one turn and return the system prompt its request carried."""
    server.reply(Text(answer))
    result = await say(hass, text, conversation_id, **who)
    assert result.response.speech["plain"]["speech"] == answer
    system: str = server.last_chat_request["messages"][0]["content"]
    return system
