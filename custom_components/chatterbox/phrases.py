"""What the agent says in its own words, in the conversation's language.

The sentences are Home Assistant translations of the integration, under
exceptions (the one category a custom integration's errors and words share);
a language without one of them falls back to English, as Home Assistant's
translations do.
"""

from collections.abc import AsyncGenerator

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import translation

from .const import DOMAIN


async def async_phrase(
    hass: HomeAssistant, language: str, key: str, **placeholders: str
) -> str:
    """Return the sentence of key in the language, with its placeholders filled."""
    strings = await translation.async_get_translations(
        hass, language, "exceptions", [DOMAIN]
    )
    text = strings.get(f"component.{DOMAIN}.exceptions.{key}.message", key)
    return text.format(**placeholders)


async def async_say(chat_log: conversation.ChatLog, agent_id: str, text: str) -> None:
    """Add the agent's own sentence to the chat log as the answer's last words.

    As a streamed message, so a voice pipeline that already speaks the model's
    words speaks this after them.
    """

    async def deltas() -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
        yield {"role": "assistant"}
        yield {"content": text}

    async for _content in chat_log.async_add_delta_content_stream(agent_id, deltas()):
        pass
