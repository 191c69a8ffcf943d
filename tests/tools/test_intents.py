"""What Home Assistant's own sentences make of what the user said."""

import importlib.resources
import json
import logging
from pathlib import Path

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er, llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.tools.intents import (
    MAX_CHARS,
    NOTHING,
    Recognized,
    async_recognize,
)
from tests.helpers.sensitive import FRONT

# What neither reads nor changes: "never mind", and a custom sentence's reply.
NEITHER = {"HassNevermind", "HassRespond"}


def spoken(language: str | None = "en", device_id: str | None = None) -> llm.LLMContext:
    """Return the context of a turn in a language, from a device or none."""
    return llm.LLMContext(
        platform="test",
        context=None,
        language=language,
        assistant=conversation.DOMAIN,
        device_id=device_id,
    )


@pytest.fixture
async def assist(hass: HomeAssistant, guarded_home: dict[str, str]) -> dict[str, str]:
    """Set up Assist over the guarded home; the front door has a Swedish alias."""
    assert await async_setup_component(hass, conversation.DOMAIN, {})
    er.async_get(hass).async_update_entity(
        FRONT, aliases=[er.COMPUTED_NAME, "ytterdörren"]
    )
    return guarded_home


@pytest.mark.usefixtures("assist")
@pytest.mark.parametrize(
    ("said", "language"),
    [
        ("Is the front door locked?", "en"),
        ("Ist Front door abgeschlossen?", "de"),
        ("Är ytterdörren låst?", "sv"),
    ],
)
async def test_a_question_about_a_lock_only_reads(
    hass: HomeAssistant, said: str, language: str
) -> None:
    """User asks whether the front door is locked: Home Assistant reads a state."""
    recognized = await async_recognize(hass, said, spoken(language))

    assert recognized == Recognized("HassGetState")
    assert recognized.reads
    assert not recognized.changes


@pytest.mark.usefixtures("assist")
async def test_a_command_changes_something(hass: HomeAssistant) -> None:
    """User asks to unlock the front door, even with a question mark: a change.

    Nothing is run: the door stays locked.
    """
    for said in ("Unlock the front door", "Unlock the front door?"):
        recognized = await async_recognize(hass, said, spoken())

        assert recognized == Recognized("HassTurnOff")
        assert recognized.changes
        assert not recognized.reads
    assert hass.states.get(FRONT).state == "locked"


@pytest.mark.usefixtures("assist")
@pytest.mark.parametrize(
    "said", ["How are you today?", "Tell me a joke", "", "   ", "x" * (MAX_CHARS + 1)]
)
async def test_chit_chat_and_what_is_no_sentence_are_nothing(
    hass: HomeAssistant, said: str
) -> None:
    """Small talk, nothing said, or a text longer than any sentence: no intent."""
    recognized = await async_recognize(hass, said, spoken())

    assert recognized is NOTHING
    assert not recognized.reads
    assert not recognized.changes


@pytest.mark.usefixtures("assist")
async def test_a_language_without_intents_is_nothing_and_quiet(
    hass: HomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """User speaks Esperanto, which Home Assistant's sentences lack: no intent.

    The default agent is not asked, so it logs no warning for each turn.
    """
    caplog.set_level(logging.WARNING)

    recognized = await async_recognize(hass, "Ĉu la pordo estas ŝlosita?", spoken("eo"))

    assert recognized is NOTHING
    assert "No intents were loaded" not in caplog.text
    assert "Unable to find supported language" not in caplog.text


@pytest.mark.usefixtures("assist")
async def test_an_entity_hidden_from_assist_is_not_matched(
    hass: HomeAssistant,
) -> None:
    """The front door is hidden from Assist: a question about it is no intent."""
    async_expose_entity(hass, conversation.DOMAIN, FRONT, should_expose=False)

    recognized = await async_recognize(hass, "Is the front door locked?", spoken())

    assert recognized is NOTHING


async def test_the_device_spoken_to_gives_the_area(
    hass: HomeAssistant, assist: dict[str, str]
) -> None:
    """User says "Turn on the light": from a kitchen satellite, the area is known."""
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    devices = dr.async_get(hass)
    satellite = devices.async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "satellite")}
    )
    devices.async_update_device(satellite.id, area_id=assist["Kitchen"])

    from_nowhere = await async_recognize(hass, "Turn on the light", spoken())
    from_kitchen = await async_recognize(
        hass, "Turn on the light", spoken(device_id=satellite.id)
    )

    assert from_nowhere is NOTHING
    assert from_kitchen == Recognized("HassTurnOn")


@pytest.mark.usefixtures("guarded_home")
async def test_without_the_default_agent_nothing_is_recognised(
    hass: HomeAssistant,
) -> None:
    """Conversation is not set up yet: no intent, and no error."""
    recognized = await async_recognize(hass, "Is the front door locked?", spoken())

    assert recognized is NOTHING


@pytest.mark.usefixtures("assist")
async def test_a_broken_custom_sentence_file_is_nothing(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    """A custom sentences file that is not YAML fails the load: no intent.

    The turn goes on; the default language, loaded on its own, still works.
    """
    broken = tmp_path / "custom_sentences" / "de"
    broken.mkdir(parents=True)
    (broken / "broken.yaml").write_text("intents: [unclosed", encoding="utf-8")
    hass.config.config_dir = str(tmp_path)

    recognized = await async_recognize(hass, "Ist Front door verriegelt?", spoken("de"))

    assert recognized is NOTHING
    question = await async_recognize(hass, "Is the front door locked?", spoken(None))
    assert question.reads


def test_every_intent_of_home_assistant_reads_changes_or_neither() -> None:
    """Each intent Home Assistant's sentences know is sorted: a new one shows here."""
    known = json.loads(
        (
            importlib.resources.files("home_assistant_intents") / "intents.json"
        ).read_text(encoding="utf-8")
    )

    unsorted = [
        name
        for name in known
        if name not in NEITHER and Recognized(name).reads == Recognized(name).changes
    ]

    assert unsorted == []
    assert not any(Recognized(name).reads for name in NEITHER)
    assert not any(Recognized(name).changes for name in NEITHER)
