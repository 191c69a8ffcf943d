"""Tests of what an answer says of the devices it names, against their states."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.tools.statements import (
    Contradiction,
    async_state_words,
    contradictions,
)

LOCK = "lock.front_door"
PUMP = "switch.pond_pump"
BLIND = "cover.bedroom_blind"
THERMOSTAT = "climate.hall_thermostat"
LAMP = "light.desk_lamp"


@pytest.fixture
async def home(hass: HomeAssistant) -> None:
    """Build a home: a locked door, a running pump, an open blind, a thermostat."""
    for domain in ("homeassistant", "lock", "switch", "cover", "climate", "light"):
        assert await async_setup_component(hass, domain, {})
    hass.states.async_set(LOCK, "locked", {"friendly_name": "Front door"})
    hass.states.async_set(PUMP, "on", {"friendly_name": "Pond pump"})
    hass.states.async_set(
        BLIND,
        "open",
        {
            "friendly_name": "Bedroom blind",
            "current_position": 40,
            "supported_features": 15,
        },
    )
    hass.states.async_set(
        THERMOSTAT,
        "heat",
        {
            "friendly_name": "Hall thermostat",
            "current_temperature": 19.5,
            "temperature": 21,
        },
    )
    hass.states.async_set(
        LAMP, "off", {"friendly_name": "Desk lamp", "brightness": None}
    )
    for entity_id in (LOCK, PUMP, BLIND, THERMOSTAT, LAMP):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("language", "answer", "said"),
    [
        ("en", "The Front door is now unlocked.", "unlocked / unlocking"),
        ("en", "I switched off the Pond pump.", "off"),
        ("de", "Die Front door ist jetzt entriegelt.", "entriegelt"),
        ("nl", "De Front door is ontgrendeld.", "ontgrendeld / ontgrendelen"),
        ("sv", "Front door är olåst nu.", "olåst"),
        ("pl", "Pond pump jest wyłączona.", "wyłączono"),
        ("it", "La Pond pump è spenta.", "spento"),
    ],
)
async def test_a_state_the_device_is_not_in_contradicts_it(
    hass: HomeAssistant, language: str, answer: str, said: str
) -> None:
    """The answer says, in Home Assistant's words for the language, another state."""
    words = await async_state_words(hass, language)

    (found,) = contradictions(hass, answer, words)

    assert found.entity_id in (LOCK, PUMP)
    assert found.said == said


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("language", "answer"),
    [
        ("en", "The Front door is locked and the Pond pump is on."),
        ("en", "The Front door is locking."),
        ("en", "The Front door is not unlocked."),
        ("en", "I couldn't switch off the Pond pump."),
        ("de", "Die Front door ist verriegelt, die Pond pump ist ein."),
        ("it", "La Front door è bloccata."),
        ("en", "The Bedroom blind is open at 40 percent."),
        ("en", "The Hall thermostat heats to 21 degrees; it is 19.5 degrees now."),
        ("en", "You asked for 24 degrees: the Hall thermostat heats to 21 degrees."),
        ("en", "The kitchen is warm."),
    ],
)
async def test_what_the_home_bears_out_stands(
    hass: HomeAssistant, language: str, answer: str
) -> None:
    """True states, a negation, a state on its way, figures it shows: nothing."""
    words = await async_state_words(hass, language)

    assert contradictions(hass, answer, words, known=[24], language=language) == []


@pytest.mark.usefixtures("home")
async def test_an_unlocked_door_said_unlocked_in_swedish_stands(
    hass: HomeAssistant,
) -> None:
    """The Swedish "låst upp" holds "låst", but "upp" is of the way to unlocked."""
    hass.states.async_set(LOCK, "unlocked", {"friendly_name": "Front door"})
    words = await async_state_words(hass, "sv")

    assert contradictions(hass, "Jag har låst upp Front door.", words) == []
    assert contradictions(hass, "Front door är låst.", words) == [
        Contradiction(LOCK, "låst")
    ]


@pytest.mark.usefixtures("home")
async def test_a_figure_no_value_of_the_device_gives_contradicts_it(
    hass: HomeAssistant,
) -> None:
    """The thermostat shows 19.5 and 21: 25 degrees is neither."""
    words = await async_state_words(hass, "en")

    found = contradictions(hass, "The Hall thermostat reads 25 degrees.", words)

    assert found == [Contradiction(THERMOSTAT, "25")]


@pytest.mark.usefixtures("home")
async def test_the_features_a_device_supports_are_no_figure_it_shows(
    hass: HomeAssistant,
) -> None:
    """The blind is open at 40 percent; its features' mask, 15, is no position."""
    words = await async_state_words(hass, "en")

    found = contradictions(hass, "The Bedroom blind is open at 15 percent.", words)

    assert found == [Contradiction(BLIND, "15")]
    assert contradictions(hass, "The Bedroom blind is open at 40 percent.", words) == []


@pytest.mark.usefixtures("home")
async def test_a_device_that_shows_no_figure_now_is_at_none(
    hass: HomeAssistant,
) -> None:
    """The desk lamp is off: at 0 percent, no other. The pump has no figure.

    A figure said beside a switch is nobody's ("the pump keeps the pond at
    12 degrees"); one said of a light that shows none is not so.
    """
    words = await async_state_words(hass, "en")

    found = contradictions(hass, "I set the Desk lamp to 40 percent.", words)

    assert found == [Contradiction(LAMP, "40")]
    assert contradictions(hass, "The Desk lamp is off (0 %).", words) == []
    answer = "The Pond pump keeps the pond at 12 degrees."
    assert contradictions(hass, answer, words) == []


@pytest.mark.usefixtures("home")
async def test_a_figure_the_model_read_may_be_of_something_else(
    hass: HomeAssistant,
) -> None:
    """The thermostat heats to 21; the 5 degrees outside were read elsewhere."""
    words = await async_state_words(hass, "en")
    answer = "The Hall thermostat heats to 21 degrees, with 5 degrees outside."

    assert contradictions(hass, answer, words, known=[5.0]) == []
    assert contradictions(hass, answer, words) == [Contradiction(THERMOSTAT, "5")]


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("language", "answer"),
    [
        ("en", "No, the Front door is unlocked."),
        ("de", "Nein, die Front door ist entriegelt."),
    ],
)
async def test_a_no_before_a_comma_answers_and_negates_nothing(
    hass: HomeAssistant, language: str, answer: str
) -> None:
    """The usual shape of a wrong answer to "is it locked?" is read."""
    words = await async_state_words(hass, language)

    assert [
        found.entity_id
        for found in contradictions(hass, answer, words, language=language)
    ] == [LOCK]


@pytest.mark.usefixtures("home")
async def test_a_question_or_an_offer_states_nothing(hass: HomeAssistant) -> None:
    """An offer, "Do you want me to turn the Pond pump off?", says no state."""
    words = await async_state_words(hass, "en")

    answer = "Do you want me to turn the Pond pump off? It is on now."

    assert contradictions(hass, answer, words) == []


@pytest.mark.usefixtures("home")
async def test_a_figure_in_a_sentence_of_two_devices_is_nobodys(
    hass: HomeAssistant,
) -> None:
    """Which device a figure is of cannot be told: it is not read."""
    words = await async_state_words(hass, "en")

    answer = "The Hall thermostat is on heat and the Bedroom blind is at 90 percent."

    assert contradictions(hass, answer, words) == []


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    "answer",
    [
        "The Pond pump was off; it is on now.",
        'Say "Switch off the Pond pump", and I will.',
        "Sag „Pond pump aus“, dann schalte ich sie aus.",
    ],
    ids=["before-and-now", "quoted", "quoted-german"],
)
async def test_a_state_said_beside_the_one_now_or_in_quotes_stands(
    hass: HomeAssistant, answer: str
) -> None:
    """What the pump was, said with what it is; a command in quotes: nothing."""
    words = await async_state_words(hass, "de" if "Sag" in answer else "en")

    assert contradictions(hass, answer, words) == []


@pytest.mark.parametrize(
    ("language", "names"),
    [("en", ["Temperature"]), ("de", ["Temperatur", "Temperature"])],
)
async def test_a_device_class_is_named_in_home_assistants_words(
    hass: HomeAssistant, language: str, names: list[str]
) -> None:
    """A thermometer's kind, in the language and in English; none without a class."""
    assert await async_setup_component(hass, "sensor", {})
    words = await async_state_words(hass, language)
    hass.states.async_set("sensor.flur", "19", {"device_class": "temperature"})
    hass.states.async_set("sensor.count", "3")

    assert words.kind_names(hass.states.get("sensor.flur")) == names
    assert words.kind_names(hass.states.get("sensor.count")) == []


@pytest.mark.usefixtures("home")
async def test_what_is_said_of_the_next_device_is_its_own(hass: HomeAssistant) -> None:
    """The words before the Pond pump's name that say its state are its own.

    The pump is off, the door locked: "…locked the Front door and switched
    off the Pond pump" says "off" of the pump, not of the door.
    """
    hass.states.async_set(PUMP, "off", {"friendly_name": "Pond pump"})
    words = await async_state_words(hass, "en")

    answer = "I locked the Front door and switched off the Pond pump."
    assert contradictions(hass, answer, words) == []
    assert contradictions(hass, "I switched off the Front door.", words) == []
    assert contradictions(hass, "The Front door is off and unlocked.", words) == [
        Contradiction(LOCK, "unlocked / unlocking")
    ]


@pytest.mark.usefixtures("home")
async def test_on_is_any_state_but_off(hass: HomeAssistant) -> None:
    """A player that is playing is on: "skipped a track on the Speakers" stands."""
    assert await async_setup_component(hass, "media_player", {})
    hass.states.async_set(
        "media_player.speakers", "playing", {"friendly_name": "Speakers"}
    )
    async_expose_entity(
        hass, conversation.DOMAIN, "media_player.speakers", should_expose=True
    )
    words = await async_state_words(hass, "en")

    assert (
        contradictions(hass, "I skipped to the next track on the Speakers.", words)
        == []
    )
    assert [
        found.said for found in contradictions(hass, "The Speakers are off.", words)
    ] == ["off"]
