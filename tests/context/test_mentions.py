"""What a person's words name: exposed entities by name or alias, areas, floors."""

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.context.mentions import (
    MAX_MENTIONED,
    Mentions,
    find_mentions,
)

# Name, area: input booleans stand in for devices, all exposed to Assist.
HOME = {
    "kitchen_light": ("Kitchen light", "Küche"),
    "oven": ("Oven", "Küche"),
    "desk_lamp": ("Desk lamp", "Office"),
    "porch_light": ("Porch light", None),
    "secret_safe": ("Secret safe", "Office"),
}


@pytest.fixture
async def home(hass: HomeAssistant) -> None:
    """Build the home: two areas on one floor, the safe not exposed."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {key: {"name": name} for key, (name, _) in HOME.items()}},
    )
    floor = fr.async_get(hass).async_create("Ground floor", aliases={"downstairs"})
    areas = ar.async_get(hass)
    office = areas.async_create("Office", floor_id=floor.floor_id)
    kitchen = areas.async_create("Küche", aliases={"Kuchnia"})
    entities = er.async_get(hass)
    for key, (_, area) in HOME.items():
        entity_id = f"input_boolean.{key}"
        entities.async_get_or_create("input_boolean", "test", key)
        entry = entities.async_get_or_create(
            "input_boolean", "input_boolean", key, suggested_object_id=key
        )
        area_id = {"Office": office.id, "Küche": kitchen.id}.get(area or "")
        entities.async_update_entity(entry.entity_id, area_id=area_id)
        async_expose_entity(
            hass, conversation.DOMAIN, entity_id, should_expose=key != "secret_safe"
        )
    entities.async_update_entity("input_boolean.oven", aliases={"Stove"})


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("sentence", "named"),
    [
        ("Is the kitchen light on?", ["input_boolean.kitchen_light"]),
        ("Turn off the KITCHEN LIGHTS please", ["input_boolean.kitchen_light"]),
        ("is the stove still on", ["input_boolean.oven"]),
        (
            "Switch off the porch light and the desk lamp.",
            ["input_boolean.desk_lamp", "input_boolean.porch_light"],
        ),
        ("What is the weather like?", []),
        ("Turn on the light", []),
        ("Open the secret safe", []),
    ],
)
async def test_entities_are_named_by_name_or_alias(
    hass: HomeAssistant, sentence: str, named: list[str]
) -> None:
    """A name's words in order, in any case or number; never an unexposed one."""
    assert sorted(find_mentions(hass, sentence).named) == named


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    "sentence",
    ["Wyłącz wszystko w kuchni", "Alles in der Küche aus", "Is anything on in Küche?"],
)
async def test_an_area_is_named_by_name_or_alias_inflected(
    hass: HomeAssistant, sentence: str
) -> None:
    """In "w kuchni" the alias Kuchnia is inflected: the area's entities count."""
    found = find_mentions(hass, sentence)

    assert len(found.areas) == 1
    assert sorted(found.in_areas) == [
        "input_boolean.kitchen_light",
        "input_boolean.oven",
    ]
    assert found.named == ()


@pytest.mark.usefixtures("home")
async def test_a_floor_names_its_areas(hass: HomeAssistant) -> None:
    """Downstairs is the ground floor, where the office is; the safe stays hidden."""
    found = find_mentions(hass, "Turn off everything downstairs")

    assert found.in_areas == ("input_boolean.desk_lamp",)


@pytest.mark.usefixtures("home")
async def test_an_entity_named_is_not_counted_again_by_its_area(
    hass: HomeAssistant,
) -> None:
    """The oven, named, and the rest of its kitchen."""
    found = find_mentions(hass, "Is the oven in the Küche off?")

    assert found.named == ("input_boolean.oven",)
    assert found.in_areas == ("input_boolean.kitchen_light",)
    assert found.entities == ("input_boolean.oven", "input_boolean.kitchen_light")


async def test_a_big_home_brings_a_bounded_number(hass: HomeAssistant) -> None:
    """Three hundred lamps of one name: a few dozen come into view."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {f"lamp_{n}": {"name": "Attic lamp"} for n in range(300)}},
    )
    for n in range(300):
        async_expose_entity(
            hass, conversation.DOMAIN, f"input_boolean.lamp_{n}", should_expose=True
        )

    found = find_mentions(hass, "Turn off the attic lamps " + "and " * 2000)

    assert len(found.entities) == MAX_MENTIONED


async def test_nothing_named_is_nothing(hass: HomeAssistant) -> None:
    """An empty sentence, or one of punctuation, names nothing."""
    assert await async_setup_component(hass, "homeassistant", {})

    assert find_mentions(hass, "?!") == Mentions()
    assert not find_mentions(hass, "")


@pytest.mark.usefixtures("home")
async def test_a_change_in_the_home_is_found_at_once(hass: HomeAssistant) -> None:
    """A renamed entity, a new alias, a new entity: the next sentence finds them."""
    assert find_mentions(hass, "Is the porch light on?").named

    hass.states.async_set(
        "input_boolean.porch_light", "off", {"friendly_name": "Veranda light"}
    )
    assert not find_mentions(hass, "Is the porch light on?").named
    assert find_mentions(hass, "Is the veranda light on?").named == (
        "input_boolean.porch_light",
    )

    er.async_get(hass).async_update_entity(
        "input_boolean.desk_lamp", aliases={"Reading lamp"}
    )
    await hass.async_block_till_done()
    assert find_mentions(hass, "Turn off the reading lamp").named == (
        "input_boolean.desk_lamp",
    )

    hass.states.async_set("light.garden", "off", {"friendly_name": "Garden light"})
    async_expose_entity(hass, conversation.DOMAIN, "light.garden", should_expose=True)
    await hass.async_block_till_done()
    assert find_mentions(hass, "Turn on the garden light").named == ("light.garden",)
