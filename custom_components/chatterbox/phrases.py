"""What the agent says in its own words, in the conversation's language.

The sentences are Home Assistant translations of the integration, under
exceptions (the one category a custom integration's errors and words share);
a regional language without its own falls back to its base language, and a
language without one of them to English, as Home Assistant's translations do.
"""

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager, suppress

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import translation

from .const import DOMAIN
from .lang import base_language


async def async_phrase(
    hass: HomeAssistant, language: str, key: str, **placeholders: str
) -> str:
    """Return the sentence of key in the language, with its placeholders filled."""
    return (await _async_sentence(hass, language, key)).format(**placeholders)


async def _async_sentence(hass: HomeAssistant, language: str, key: str) -> str:
    """Return the sentence of key in the language, its placeholders unfilled.

    A regional language without a file of its own ("pt-BR") speaks its base
    language's ("pt"), as the words of lang/ do: not English with the
    language's verbs inside.
    """
    sentence = await _async_translated(hass, language, key)
    base = base_language(language)
    if base != language.casefold() and sentence == await _async_translated(
        hass, "en", key
    ):
        return await _async_translated(hass, base, key)
    return sentence


async def _async_translated(hass: HomeAssistant, language: str, key: str) -> str:
    """Return Home Assistant's translation of key, English's where it has none."""
    strings = await translation.async_get_translations(
        hass, language, "exceptions", [DOMAIN]
    )
    return strings.get(f"component.{DOMAIN}.exceptions.{key}.message", key)


async def async_spoken_error(
    hass: HomeAssistant, language: str, err: HomeAssistantError
) -> HomeAssistantError:
    """Return Chatterbox's error with its sentence in the language.

    Home Assistant writes an error's translated message in English, whatever
    the conversation's language. The error that comes back keeps its key and
    placeholders, and its text is the language's sentence (or English's where
    the language has none). Errors that are not Chatterbox's own, or that
    carry their own words, come back as they are.
    """
    key = err.translation_key
    if err.translation_domain != DOMAIN or key is None or not err.generate_message:
        return err
    # As Home Assistant writes an error's message: without the final stop,
    # and as written when a translation lacks a placeholder.
    message = (await _async_sentence(hass, language, key)).rstrip(".")
    with suppress(KeyError):
        message = message.format(**(err.translation_placeholders or {}))
    return HomeAssistantError(
        message,
        translation_domain=DOMAIN,
        translation_key=key,
        translation_placeholders=err.translation_placeholders,
    )


@asynccontextmanager
async def errors_in(hass: HomeAssistant, language: str) -> AsyncIterator[None]:
    """Raise Chatterbox's errors of the block with their words in the language.

    Still errors: the pipeline and conversation.process callers read the
    response type.
    """
    try:
        yield
    except HomeAssistantError as err:
        spoken = await async_spoken_error(hass, language, err)
        if spoken is err:
            raise
        raise spoken from err


async def async_say_phrase(
    chat_log: conversation.ChatLog,
    agent_id: str,
    language: str,
    key: str,
    **placeholders: str,
) -> str:
    """End the answer with the agent's own sentence of key; return the sentence."""
    sentence = await async_phrase(chat_log.hass, language, key, **placeholders)
    await async_say(chat_log, agent_id, sentence)
    return sentence


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
