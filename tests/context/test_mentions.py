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
    assert sorted(find_mentions(hass, sentence, language="en").named) == named


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    "sentence",
    ["Wyłącz wszystko w kuchni", "Alles in der Küche aus", "Is anything on in Küche?"],
)
async def test_an_area_is_named_by_name_or_alias_inflected(
    hass: HomeAssistant, sentence: str
) -> None:
    """In "w kuchni" the alias Kuchnia is inflected: the area's entities count."""
    found = find_mentions(hass, sentence, language="en")

    assert len(found.areas) == 1
    assert sorted(found.in_areas) == [
        "input_boolean.kitchen_light",
        "input_boolean.oven",
    ]
    assert found.named == ()


@pytest.mark.usefixtures("home")
async def test_a_floor_names_its_areas(hass: HomeAssistant) -> None:
    """Downstairs is the ground floor, where the office is; the safe stays hidden."""
    found = find_mentions(hass, "Turn off everything downstairs", language="en")

    assert found.in_areas == ("input_boolean.desk_lamp",)


@pytest.mark.usefixtures("home")
async def test_an_entity_named_is_not_counted_again_by_its_area(
    hass: HomeAssistant,
) -> None:
    """The oven, named by its alias, and the rest of its kitchen."""
    found = find_mentions(hass, "Is the stove in the Küche off?", language="en")

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

    found = find_mentions(
        hass, "Turn off the attic lamps " + "and " * 2000, language="en"
    )

    assert len(found.entities) == MAX_MENTIONED


async def test_nothing_named_is_nothing(hass: HomeAssistant) -> None:
    """An empty sentence, or one of punctuation, names nothing."""
    assert await async_setup_component(hass, "homeassistant", {})

    assert find_mentions(hass, "?!", language="en") == Mentions()
    assert not find_mentions(hass, "", language="en")


@pytest.mark.usefixtures("home")
async def test_a_name_taken_out_of_the_aliases_names_nothing(
    hass: HomeAssistant,
) -> None:
    """The oven is known as "Stove" alone, as Home Assistant's intents know it.

    Given its own name back among its aliases, it is found by both.
    """
    assert not find_mentions(hass, "Is the oven on?", language="en").named

    er.async_get(hass).async_update_entity(
        "input_boolean.oven", aliases=[er.COMPUTED_NAME, "Stove"]
    )
    await hass.async_block_till_done()

    assert find_mentions(hass, "Is the oven on?", language="en").named == (
        "input_boolean.oven",
    )
    assert find_mentions(hass, "Is the stove on?", language="en").named == (
        "input_boolean.oven",
    )


@pytest.mark.usefixtures("home")
async def test_a_change_in_the_home_is_found_at_once(hass: HomeAssistant) -> None:
    """A renamed entity, a new alias, a new entity: the next sentence finds them."""
    assert find_mentions(hass, "Is the porch light on?", language="en").named

    hass.states.async_set(
        "input_boolean.porch_light", "off", {"friendly_name": "Veranda light"}
    )
    assert not find_mentions(hass, "Is the porch light on?", language="en").named
    assert find_mentions(hass, "Is the veranda light on?", language="en").named == (
        "input_boolean.porch_light",
    )

    er.async_get(hass).async_update_entity(
        "input_boolean.desk_lamp", aliases={"Reading lamp"}
    )
    await hass.async_block_till_done()
    assert find_mentions(hass, "Turn off the reading lamp", language="en").named == (
        "input_boolean.desk_lamp",
    )

    hass.states.async_set("light.garden", "off", {"friendly_name": "Garden light"})
    async_expose_entity(hass, conversation.DOMAIN, "light.garden", should_expose=True)
    await hass.async_block_till_done()
    assert find_mentions(hass, "Turn on the garden light", language="en").named == (
        "light.garden",
    )


# A home where names stand inside each other: key, name, area.
FANS = [
    ("guest_room_fan", "Guest room fan", "Guest Room"),
    ("guest_room_lamp", "Guest room lamp", "Guest Room"),
    ("bedroom_fan", "Fan", "Bedroom"),
    ("bedroom_2_fan", "Fan", "Bedroom 2"),
    ("attic_fan", "Fan", "Attic"),
]


@pytest.fixture
async def fans(hass: HomeAssistant) -> dict[str, str]:
    """Build the home of many fans; return its areas' ids by name."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(
        hass,
        "input_boolean",
        {"input_boolean": {key: {"name": name} for key, name, _ in FANS}},
    )
    areas = ar.async_get(hass)
    ids = {name: areas.async_create(name).id for name in {area for *_, area in FANS}}
    entities = er.async_get(hass)
    for key, _, area in FANS:
        entry = entities.async_get_or_create(
            "input_boolean", "input_boolean", key, suggested_object_id=key
        )
        entities.async_update_entity(entry.entity_id, area_id=ids[area])
        async_expose_entity(
            hass, conversation.DOMAIN, entry.entity_id, should_expose=True
        )
    return ids


async def test_a_name_inside_a_longer_one_is_part_of_it(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """The guest room fan: not the Guest Room's lamp, nor every "Fan"."""
    found = find_mentions(hass, "Turn on the guest room fan", language="en")

    assert found == Mentions(named=("input_boolean.guest_room_fan",))


async def test_the_area_said_again_on_its_own_counts(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """Said once inside the fan's name and once on its own, the room is named."""
    found = find_mentions(
        hass,
        "Turn on the guest room fan and everything in the guest room",
        language="en",
    )

    assert found.named == ("input_boolean.guest_room_fan",)
    assert found.areas == (fans["Guest Room"],)
    assert found.in_areas == ("input_boolean.guest_room_lamp",)


async def test_a_shared_name_is_the_one_in_the_area_said(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """Bedroom 2 is not the Bedroom: the fan there is the one meant."""
    found = find_mentions(hass, "Turn on the fan in bedroom 2", language="en")

    assert found.named == ("input_boolean.bedroom_2_fan",)
    assert found.areas == (fans["Bedroom 2"],)
    assert found.shared == ()


async def test_a_shared_name_is_the_one_here_when_no_area_is_said(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """Said to the attic's satellite, "the fan" is the attic's."""
    found = find_mentions(hass, "Turn on the fan", here=fans["Attic"], language="en")

    assert found.named == ("input_boolean.attic_fan",)
    assert found.shared == ()


async def test_a_shared_name_not_told_apart_names_all_of_them(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """Which "Fan" is meant cannot be told: all three, marked as shared."""
    found = find_mentions(
        hass, "Turn on the fan", here=fans["Guest Room"], language="en"
    )

    fans_named = (
        "input_boolean.bedroom_fan",
        "input_boolean.bedroom_2_fan",
        "input_boolean.attic_fan",
    )
    assert sorted(found.named) == sorted(fans_named)
    assert sorted(found.shared) == sorted(fans_named)


@pytest.fixture
async def attic(hass: HomeAssistant) -> str:
    """Build an attic with a light, a fan, a radio and a relay; return its id.

    The relay is a switch called "Ceiling light".
    """
    assert await async_setup_component(hass, "homeassistant", {})
    area = ar.async_get(hass).async_create("Attic")
    entities = er.async_get(hass)
    for entity_id, name in (
        ("light.reading_corner", "Reading corner"),
        ("fan.ceiling", "Ceiling"),
        ("media_player.radio", "Radio"),
        ("switch.relay", "Ceiling light"),
    ):
        domain, key = entity_id.split(".")
        entities.async_get_or_create(domain, "test", key, suggested_object_id=key)
        entities.async_update_entity(entity_id, area_id=area.id)
        hass.states.async_set(entity_id, "off", {"friendly_name": name})
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)
    return area.id


@pytest.mark.parametrize(
    ("sentence", "language", "in_areas"),
    [
        (
            "Turn off the lights in the attic",
            "en",
            ["light.reading_corner", "switch.relay"],
        ),
        ("Schalte die Lampen im Attic aus", "de", ["light.reading_corner"]),
        (
            "Is the fan or the music on in the attic?",
            "en",
            ["fan.ceiling", "media_player.radio"],
        ),
        (
            "Turn off everything in the attic",
            "en",
            [
                "fan.ceiling",
                "light.reading_corner",
                "media_player.radio",
                "switch.relay",
            ],
        ),
    ],
)
async def test_of_an_area_the_kinds_said_come(
    hass: HomeAssistant, attic: str, sentence: str, language: str, in_areas: list[str]
) -> None:
    """The lights in the attic are its lights, and the switch called a light.

    Everything in it is all of it.
    """
    found = find_mentions(hass, sentence, language=language)

    assert found.areas == (attic,)
    assert sorted(found.in_areas) == in_areas


async def test_a_shared_name_said_nowhere_in_particular_names_all(
    hass: HomeAssistant, fans: dict[str, str]
) -> None:
    """Said to no satellite, "the fan" is no more the one without an area."""
    hass.states.async_set("fan.hall", "off", {"friendly_name": "Fan"})
    async_expose_entity(hass, conversation.DOMAIN, "fan.hall", should_expose=True)

    found = find_mentions(hass, "Turn on the fan", language="en")

    assert len(found.named) == len(found.shared) == 4
    assert "fan.hall" in found.named
