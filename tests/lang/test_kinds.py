"""The words that name kinds of devices, in the conversation's language and English."""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.lang.kinds import kinds_named
from custom_components.chatterbox.tools.statements import async_state_words


@pytest.mark.parametrize(
    ("words", "language", "kinds"),
    [
        ("turn off the lights in the attic", "en", {"light"}),
        ("schalte die lampen und den ventilator aus", "de", {"light", "fan"}),
        ("wyłącz telewizor", "pl", {"media_player"}),
        ("baja las persianas", "es", {"cover"}),
        ("slå av lysene og viften", "nb", {"light", "fan"}),
        ("släck lamporna", "sv", {"light"}),
        ("desliga as luzes", "pt", {"light"}),
        # English words count in every language.
        ("mach die lights aus", "de", {"light"}),
        # Another language's do not: "lampen" is German, not English.
        ("schalte die lampen aus", "en", set()),
        # "Switch" is what is done, not a kind of device.
        ("switch off everything", "en", set()),
    ],
)
def test_kinds_are_named_by_their_words(
    words: str, language: str, kinds: set[str]
) -> None:
    """Each language's words for a kind, singular or plural, name its domain."""
    assert kinds_named(words.split(), language) == kinds


async def test_home_assistants_names_of_the_kinds_count_in_any_language(
    hass: HomeAssistant,
) -> None:
    """A Finnish conversation starts: Home Assistant's "Valo" names the lights.

    Chatterbox has no Finnish words of its own; Home Assistant's translations
    name each kind in the language, and they count from the turn on.
    """
    await async_setup_component(hass, "light", {})
    assert kinds_named(["valo"], "fi") == set()

    await async_state_words(hass, "fi")

    assert kinds_named(["valo"], "fi") == {"light"}
    assert kinds_named(["valo"], "en") == set()
