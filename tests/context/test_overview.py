"""The overview that replaces a device list too long for the context window."""

from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, floor_registry as fr
from homeassistant.util.yaml import dump

from custom_components.chatterbox.context.overview import (
    FEW_HEADING,
    LIVE_CONTEXT_NOTE,
    OVERVIEW_HEADING,
    OVERVIEW_NOTE,
    STATIC_HEADING,
    Listed,
    find_static_list,
    overview_for,
    read_devices,
    write_overview,
)

LISTING = f"""{STATIC_HEADING}
- names: Kitchen light
  domain: light
  areas: Kitchen, Cookery
- names: 'Tom''s lamp, a lamp with a name long enough that the dumper wraps it onto
    the next line'
  domain: light
  areas: "Tom's room"
- names: Outdoor temperature
  domain: sensor
- names: Kitchen fan
  domain: fan
  areas: Kitchen"""
PROMPT = f"You are a voice assistant.\n\n{LISTING}\n\nWhen controlling, call tools."


def test_the_list_is_found_from_its_heading_to_its_last_item() -> None:
    """Four devices, and the words after the list are not part of it."""
    found = find_static_list(PROMPT)

    assert found is not None
    assert PROMPT[found.start : found.end] == LISTING
    assert found.entities == 4
    assert found.tokens == round(len(LISTING) / 3.5)


def test_a_list_at_the_very_end_runs_to_the_end() -> None:
    """Nothing after the list: it ends where the prompt does."""
    found = find_static_list(f"Intro\n{LISTING}")

    assert found is not None
    assert found.end == len(f"Intro\n{LISTING}")


def test_instructions_that_quote_the_heading_are_not_the_list() -> None:
    """The user's instructions come first; Home Assistant's list is the last."""
    prompt = f"Never mention the {STATIC_HEADING}\n- names: x\n\n{PROMPT}"

    found = find_static_list(prompt)

    assert found is not None
    assert prompt[found.start : found.end] == LISTING


def test_a_prompt_without_a_list_has_none() -> None:
    """No Assist API, or a home with nothing exposed."""
    assert find_static_list("You are a voice assistant.") is None


def test_devices_are_read_with_their_domain_and_area() -> None:
    """Quotes are read, an area's aliases are not areas, a wrapped name is cut."""
    devices = read_devices(LISTING)

    assert [(d.names, d.domain, d.area) for d in devices] == [
        ("Kitchen light", "light", "Kitchen"),
        (
            "Tom's lamp, a lamp with a name long enough that the dumper wraps it onto",
            "light",
            "Tom's room",
        ),
        ("Outdoor temperature", "sensor", "(no area)"),
        ("Kitchen fan", "fan", "Kitchen"),
    ]
    # Each device keeps its lines as Home Assistant wrote them.
    assert "\n".join(d.text for d in devices) == LISTING.split("\n", 1)[1]


def test_the_overview_goes_by_floor_then_area_in_a_fixed_order() -> None:
    """Areas by floor, then name; areas without a floor, then no area, last.

    The kinds the home has few of are listed as Home Assistant lists them.
    """
    devices = [
        *[Listed(f"Lamp {n}", "light", "Study") for n in range(2)],
        Listed("Blind", "cover", "Study", "- names: Blind"),
        *[Listed(f"Fan {n}", "fan", "Attic") for n in range(4)],
        *[Listed(f"Spot {n}", "light", "Kitchen") for n in range(3)],
        Listed("Front door", "lock", "Hallway", "- names: Front door"),
        Listed("Thermostat", "climate", "Kitchen", "- names: Thermostat"),
        Listed("Boiler, heating", "climate", "(no area)", "- names: Boiler, heating"),
    ]
    floors = {"Study": "Upstairs", "Attic": "Upstairs", "Kitchen": "Ground floor"}

    assert write_overview(devices, floors).splitlines() == [
        OVERVIEW_HEADING,
        "- area: Kitchen",
        "  floor: Ground floor",
        "  devices: 1 climate, 3 light",
        "- area: Attic",
        "  floor: Upstairs",
        "  devices: 4 fan",
        "- area: Study",
        "  floor: Upstairs",
        "  devices: 1 cover, 2 light",
        "- area: Hallway",
        "  devices: 1 lock",
        "- area: (no area)",
        "  devices: 1 climate",
        FEW_HEADING,
        "- names: Boiler, heating",
        "- names: Thermostat",
        "- names: Blind",
        "- names: Front door",
        OVERVIEW_NOTE,
    ]


async def test_a_list_over_the_share_becomes_an_overview(hass: HomeAssistant) -> None:
    """The words around the list stay; the kitchen is on its floor."""
    ground = fr.async_get(hass).async_create("Ground floor").floor_id
    ar.async_get(hass).async_create("Kitchen", floor_id=ground)
    window = 400  # tokens; the list takes about 100 of them, over 10 %.

    overview = overview_for(hass, PROMPT, window=window, share=10)

    assert overview is not None
    assert overview.system.startswith("You are a voice assistant.\n\n")
    assert overview.system.endswith("\n\nWhen controlling, call tools.")
    assert "- area: Kitchen\n  floor: Ground floor\n  devices: 1 fan, 1 light" in (
        overview.system
    )
    assert "- names: Outdoor temperature\n  domain: sensor" in overview.system
    assert STATIC_HEADING not in overview.system
    assert (overview.entities, overview.limit) == (4, 40)
    assert overview_for(hass, PROMPT, window=window, share=10) == overview


async def test_without_the_search_the_overview_points_to_live_context(
    hass: HomeAssistant,
) -> None:
    """An agent that offers no search gets an overview that names none."""
    overview = overview_for(hass, PROMPT, window=400, share=10, search=False)

    assert overview is not None
    assert overview.search is False
    assert f"{LIVE_CONTEXT_NOTE}\n\nWhen controlling" in overview.system
    assert "find_devices" not in overview.system
    with_search = overview_for(hass, PROMPT, window=400, share=10)
    assert with_search is not None
    assert f"{OVERVIEW_NOTE}\n\nWhen controlling" in with_search.system


async def test_a_list_within_the_share_stays(hass: HomeAssistant) -> None:
    """A small home keeps Home Assistant's list as it is."""
    assert overview_for(hass, PROMPT, window=8192, share=25) is None
    assert overview_for(hass, "No list here.", window=10, share=1) is None


def test_names_that_look_like_the_list_do_not_end_or_restart_it() -> None:
    """Home Assistant's own dump of odd names: a line break, the heading, commas.

    A name with a line break leaves a blank line inside the list; a name that
    quotes the heading wraps it onto an indented line; an area whose name has
    a comma stays one area, and a quoted area loses its quotes.
    """
    devices = [
        {
            "names": "Line one\nline two",
            "domain": "light",
            "areas": "Kitchen, upstairs",
        },
        {"names": f"a: b - c {'x' * 70} {STATIC_HEADING}", "domain": "switch"},
        {"names": "Hall sensor", "domain": "binary_sensor", "areas": "Tom's room, den"},
    ]
    listing = f"{STATIC_HEADING}\n{dump(devices).rstrip()}"
    prompt = f"Instructions.\n{listing}\n\nWhen controlling, call tools."

    found = find_static_list(prompt)

    assert found is not None
    assert (prompt[found.start : found.end], found.entities) == (listing, 3)
    devices = read_devices(listing, ["Kitchen, upstairs", "Tom's room"])
    assert [(d.names, d.domain, d.area) for d in devices] == [
        ("Line one", "light", "Kitchen, upstairs"),
        ("a: b - c " + "x" * 70, "switch", "(no area)"),
        ("Hall sensor", "binary_sensor", "Tom's room"),
    ]


def test_an_area_too_long_for_its_line_is_the_known_area_it_starts() -> None:
    """A quoted area that wraps keeps only its start on its line: still found."""
    listing = (
        f"{STATIC_HEADING}\n- names: Lamp\n  domain: light\n"
        "  areas: 'Küche: Nord, the long\n    part'"
    )

    (device,) = read_devices(listing, ["Küche: Nord, the long part"])
    assert device.area == "Küche: Nord, the long part"
    # Without the home's areas, the part before the first comma.
    (device,) = read_devices(listing)
    assert device.area == "Küche: Nord"
