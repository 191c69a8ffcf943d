"""What the agent says in its own words, in the conversation's language."""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.phrases import async_phrase, async_spoken_error


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("de", "Ich habe in deinem Zuhause nichts mit dem Namen Whirlpool gefunden."),
        ("en", "I couldn't find anything called Whirlpool in your home."),
        # A region without its own file: its base language, as lang/ reads it.
        ("pt-BR", "Não encontrei nada chamado Whirlpool na sua casa."),
        # A language Chatterbox has no words for: English.
        ("fi", "I couldn't find anything called Whirlpool in your home."),
    ],
)
async def test_a_phrase_in_the_language_or_english(
    hass: HomeAssistant, language: str, sentence: str
) -> None:
    """The sentence of a key, its placeholder filled, in the language asked."""
    assert (
        await async_phrase(hass, language, "not_found", names="Whirlpool") == sentence
    )


async def test_chatterboxs_error_is_said_in_the_language(hass: HomeAssistant) -> None:
    """The error keeps its key and placeholders; its words are German."""
    err = HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key="model_not_found",
        translation_placeholders={"model": "qwen3"},
    )

    spoken = await async_spoken_error(hass, "de", err)

    assert str(spoken) == "Der Sprachmodell-Server hat das Modell qwen3 nicht"
    assert (spoken.translation_key, spoken.translation_placeholders) == (
        "model_not_found",
        {"model": "qwen3"},
    )


@pytest.mark.parametrize(
    "err",
    [
        HomeAssistantError(translation_domain="light", translation_key="no_light"),
        HomeAssistantError("Already in words"),
    ],
    ids=["another-integrations", "with-its-own-words"],
)
async def test_other_errors_are_left_as_they_are(
    hass: HomeAssistant, err: HomeAssistantError
) -> None:
    """Only Chatterbox's translated errors are said anew."""
    assert await async_spoken_error(hass, "de", err) is err
