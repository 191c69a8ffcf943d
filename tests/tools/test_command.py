"""What a request for a change names as its parts, and which are left over."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.context.mentions import find_mentions
from custom_components.chatterbox.lang.text import words_in
from custom_components.chatterbox.tools.command import (
    Command,
    asked_reads,
    call_names,
    left_over,
    request_parts,
    request_values,
    values_left,
)
from custom_components.chatterbox.tools.statements import async_state_words

# entity id: name, area
HOME = {
    "light.ceiling": ("Ceiling light", "Kitchen"),
    "light.kitchen": ("Kitchen light", "Kitchen"),
    "fan.kitchen": ("Extractor", "Kitchen"),
    "cover.kitchen": ("Kitchen blind", "Kitchen"),
    "light.hall": ("Hall lamp", "Hall"),
    "sensor.kitchen": ("Kitchen sensor", "Kitchen"),
}


@pytest.fixture
def home(ha_core: HomeAssistant) -> None:
    """Build a kitchen and a hall; every device is exposed."""
    hass = ha_core
    areas = ar.async_get(hass)
    ids = {name: areas.async_create(name).id for name in ("Kitchen", "Hall")}
    entities = er.async_get(hass)
    for entity_id, (name, area) in HOME.items():
        domain, key = entity_id.split(".")
        entry = entities.async_get_or_create(
            domain, "test", key, suggested_object_id=key
        )
        entities.async_update_entity(entry.entity_id, area_id=ids[area])
        hass.states.async_set(entity_id, "on", {"friendly_name": name})
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("said", "parts"),
    [
        (
            "Turn off the kitchen light and the hall lamp",
            ["light.kitchen", "light.hall"],
        ),
        ("Turn off the lights in the kitchen", ["light.ceiling", "light.kitchen"]),
        (
            "Switch off everything in the kitchen",
            ["light.ceiling", "light.kitchen", "fan.kitchen"],
        ),
        ("Close the blinds in the kitchen", ["cover.kitchen"]),
        # No kind of device and no "everything": the area is not the target.
        ("Make the kitchen cosier", []),
        # Something is taken out: which named device stays cannot be told.
        ("Switch off everything in the kitchen except the extractor", []),
        # What only reports is no part.
        ("Turn on the hall lamp if the kitchen sensor says it is dark", ["light.hall"]),
        # The kitchen is where the light is, not a part of its own.
        ("Turn on the kitchen light", ["light.kitchen"]),
        ("Turn on the radio", []),
        # The "lamp" of the hall lamp names the lamp, not the kitchen's lights.
        (
            "Turn off the hall lamp and tell me how warm the kitchen is",
            ["light.hall"],
        ),
    ],
)
async def test_the_parts_of_a_request(
    hass: HomeAssistant, said: str, parts: list[str]
) -> None:
    """Named devices; an area's devices of the kinds named, or all that switch."""
    assert sorted(
        request_parts(
            hass, words_in(said), find_mentions(hass, said, language="en"), "en"
        )
    ) == sorted(parts)


async def test_parts_no_call_acted_on_are_left_over(hass: HomeAssistant) -> None:
    """Only what was not reached is left; nothing when a reach was unknown."""
    hass.states.async_set("light.hall", "on", {"friendly_name": "Hall lamp"})
    command = Command("en", check_claims=True, parts=("light.kitchen", "light.hall"))

    assert left_over(command, frozenset({"light.kitchen"})) == ["light.hall"]
    assert left_over(command, None) == []
    assert call_names(hass, ["light.hall", "light.gone"]) == "Hall lamp, light.gone"


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("said", "language", "values"),
    [
        ("Set the kitchen light to 40 percent", "en", ["40"]),
        ("Heat the hall to 18,5 degrees and the kitchen to 21°", "en", ["18,5", "21"]),
        ("Stell die Küche auf 21 Grad und das Licht auf 30 %", "de", ["21", "30"]),
        ("Sett kjøkkenet til 21 grader", "nb", ["21"]),
        ("Put the hall lamp at 25 per cent", "en", ["25"]),
        # Times, durations and counts are no setting.
        ("Turn on the hall lamp for 5 minutes at 7", "en", []),
        ("Turn on the hall lamp", "en", []),
    ],
)
async def test_the_numbers_a_request_asks_for(
    hass: HomeAssistant, said: str, language: str, values: list[str]
) -> None:
    """The numbers as written, each once."""
    mentions = find_mentions(hass, said, language=language)
    assert list(request_values(hass, said, mentions, language)) == values


@pytest.mark.usefixtures("home")
async def test_a_number_in_a_name_is_no_value(hass: HomeAssistant) -> None:
    """Lamp 2 names the lamp; the 30 is what is asked for."""
    hass.states.async_set("light.lamp_2", "on", {"friendly_name": "Lamp 2"})
    entry = er.async_get(hass).async_get_or_create(
        "light", "test", "lamp_2", suggested_object_id="lamp_2"
    )
    async_expose_entity(hass, conversation.DOMAIN, entry.entity_id, should_expose=True)
    said = "Dim lamp 2 to 30 percent"

    assert request_values(
        hass, said, find_mentions(hass, said, language="en"), "en"
    ) == ("30",)


def test_values_no_call_ran_with_are_left() -> None:
    """18,5 was set as 18.5; 21 was not set."""
    command = Command("de", check_claims=True, values=("18,5", "21"))

    assert values_left(command, frozenset({18.5, 1.0})) == ["21"]
    assert values_left(command, frozenset({18.5, 21.0})) == []


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("said", "reads"),
    [
        # By Home Assistant's name of its device class: "Temperature".
        (
            "Turn off the hall lamp and say what temperature the kitchen has",
            ["sensor.kitchen_gauge"],
        ),
        # By a word of its own name.
        (
            "Turn off the hall lamp and say how much pollen the kitchen has",
            ["sensor.kitchen_pollen"],
        ),
        # Named itself.
        ("Turn off the hall lamp and read me the kitchen sensor", ["sensor.kitchen"]),
        # A room's sensors that nothing asked for.
        ("Switch off everything in the kitchen", []),
        ("Turn off the hall lamp and tell me how the kitchen is", []),
        # A kind's word asks for the kind: the lights, not a light meter.
        ("Turn on the lights in the kitchen", []),
    ],
)
async def test_what_a_request_asks_to_be_told(
    hass: HomeAssistant, said: str, reads: list[str]
) -> None:
    """Only what reports and the words ask for; never the rest of the room."""
    assert await async_setup_component(hass, "sensor", {})
    kitchen = ar.async_get(hass).async_get_area_by_name("Kitchen")
    assert kitchen is not None
    entities = er.async_get(hass)
    for key, name, device_class in (
        ("kitchen_gauge", "Kitchen gauge", "temperature"),
        ("kitchen_pollen", "Kitchen pollen", None),
        ("kitchen_light_level", "Kitchen light level", "illuminance"),
    ):
        entry = entities.async_get_or_create(
            "sensor", "test", key, suggested_object_id=key
        )
        entities.async_update_entity(entry.entity_id, area_id=kitchen.id)
        hass.states.async_set(
            entry.entity_id, "3", {"friendly_name": name, "device_class": device_class}
        )
        async_expose_entity(
            hass, conversation.DOMAIN, entry.entity_id, should_expose=True
        )
    words = await async_state_words(hass, "en")
    mentions = find_mentions(hass, said, language="en")

    assert sorted(asked_reads(hass, words_in(said), mentions, "en", words)) == reads
