"""What a request names to act on, and the calls that reach outside it."""

from dataclasses import replace

import probatio
import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
    llm,
)
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.context.mentions import find_mentions
from custom_components.chatterbox.context.message import read_message
from custom_components.chatterbox.lang.text import words_in
from custom_components.chatterbox.tools.scope import (
    MAX_NAMED,
    Scope,
    request_scope,
    turn_scope,
)
from custom_components.chatterbox.tools.sensitive import DEFAULT_KINDS
from custom_components.chatterbox.tools.targets import Reach
from tests.helpers.sensitive import CONTEXT, FreeTool

# entity id: name, area (None: none of its own)
HOME = {
    "light.ceiling": ("Ceiling light", "Kitchen"),
    "light.kitchen": ("Kitchen light", "Kitchen"),
    "fan.kitchen": ("Extractor", "Kitchen"),
    "lock.back_door": ("Back door", "Kitchen"),
    "sensor.kitchen": ("Kitchen temperature", "Kitchen"),
    "light.hall": ("Hall lamp", "Hall"),
    "lock.front_door": ("Front door", "Hall"),
    "light.desk": ("Desk lamp", "Office"),
    "switch.relay": ("Reading light", "Office"),
    "media_player.office": ("Office speaker", "Office"),
    "light.bedside": ("Bedside lamp", "Bedroom"),
    "media_player.tv": ("Television", "TV room"),
    "light.floor": ("Floor lamp", "TV room"),
    "cover.garage": ("Garage door", None),
    # Its device is in the hall; the entity has no area of its own.
    "fan.hall": ("Ceiling fan", None),
}
EVERYTHING = sorted(HOME)


@pytest.fixture
def home(ha_core: HomeAssistant) -> None:
    """Build a kitchen, a hall, a TV room, and an office and bedroom upstairs."""
    hass = ha_core
    upstairs = fr.async_get(hass).async_create("Upstairs").floor_id
    areas = ar.async_get(hass)
    ids = {
        name: areas.async_create(
            name, floor_id=upstairs if name in {"Office", "Bedroom"} else None
        ).id
        for name in ("Kitchen", "Hall", "Office", "Bedroom", "TV room")
    }
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("test", "hall_fan")}
    )
    dr.async_get(hass).async_update_device(device.id, area_id=ids["Hall"])
    entities = er.async_get(hass)
    for entity_id, (name, area) in HOME.items():
        domain, key = entity_id.split(".")
        registered = entities.async_get_or_create(
            domain,
            "test",
            key,
            suggested_object_id=key,
            device_id=device.id if entity_id == "fan.hall" else None,
        )
        entities.async_update_entity(
            registered.entity_id, area_id=ids[area] if area else None
        )
        hass.states.async_set(entity_id, "on", {"friendly_name": name})
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=True)


class TextTool(FreeTool):
    """A tool that takes a list's item and a message, as Assist's list tools do."""

    def __init__(self) -> None:
        """Declare the texts."""
        super().__init__()
        self.parameters = probatio.Schema(
            {probatio.Optional("item"): str, probatio.Optional("message"): str}
        )


def scope_of(hass: HomeAssistant, said: str) -> Scope | None:
    """Return the scope of a sentence, as a turn finds it."""
    mentions = find_mentions(hass, said, language="en")
    return request_scope(hass, words_in(said), mentions, "en")


def covered(hass: HomeAssistant, said: str) -> list[str]:
    """Return the entities of the home within a sentence's scope."""
    scope = scope_of(hass, said)
    assert scope is not None, said
    return [entity_id for entity_id in EVERYTHING if scope.covers(entity_id)]


pytestmark = pytest.mark.usefixtures("home")


@pytest.mark.parametrize(
    ("said", "scope"),
    [
        ("Turn off the hall lamp", ["light.hall"]),
        ("Unlock the front door", ["lock.front_door"]),
        ("Dim the desk lamp and the hall lamp", ["light.desk", "light.hall"]),
        # The "light" of "kitchen light" names that light, not the ceiling's.
        ("Turn on the kitchen light", ["light.kitchen"]),
        # A thermometer beside a device: it is read, the lamp acted on.
        (
            "Turn on the hall lamp if the kitchen temperature is low",
            ["light.hall", "sensor.kitchen"],
        ),
        # A word of a name names the device as people do; so does the first
        # part of a compound word of it ("zet koffie": "Koffiezetapparaat").
        ("Switch on the hall lamp, I'm reading", ["light.hall", "switch.relay"]),
        ("Close the garage and dim the hall lamp", ["cover.garage", "light.hall"]),
    ],
)
async def test_a_named_device_is_the_scope(
    hass: HomeAssistant, said: str, scope: list[str]
) -> None:
    """User names devices: they, and nothing else, may be changed."""
    assert covered(hass, said) == sorted(scope)


@pytest.mark.parametrize(
    ("said", "scope"),
    [
        (
            "Switch off everything in the kitchen",
            [
                "fan.kitchen",
                "light.ceiling",
                "light.kitchen",
                "lock.back_door",
                "sensor.kitchen",
            ],
        ),
        # A device in the hall, though the entity has no area of its own.
        (
            "Turn everything off in the hall",
            ["fan.hall", "light.hall", "lock.front_door"],
        ),
        ("Make the office cosy", ["light.desk", "media_player.office", "switch.relay"]),
    ],
)
async def test_an_area_is_the_scope(
    hass: HomeAssistant, said: str, scope: list[str]
) -> None:
    """User names a room: its devices, of every kind, and no other room's."""
    assert covered(hass, said) == sorted(scope)


@pytest.mark.parametrize(
    "said", ["Turn off everything upstairs", "Upstairs, please, it's bedtime"]
)
async def test_a_floor_is_the_scope_of_its_areas(
    hass: HomeAssistant, said: str
) -> None:
    """User names a floor: the devices of its rooms."""
    assert covered(hass, said) == [
        "light.bedside",
        "light.desk",
        "media_player.office",
        "switch.relay",
    ]


@pytest.mark.parametrize(
    ("said", "scope"),
    [
        (
            "Turn off all the lights",
            [
                "light.bedside",
                "light.ceiling",
                "light.desk",
                "light.floor",
                "light.hall",
                "light.kitchen",
                # A switch whose name says it is a light is one of the lights.
                "switch.relay",
            ],
        ),
        ("Are the fans spinning? Stop them", ["fan.hall", "fan.kitchen"]),
        ("Lock all the locks", ["lock.back_door", "lock.front_door"]),
        ("Pause the music", ["media_player.office", "media_player.tv"]),
    ],
)
async def test_kinds_alone_are_the_scope(
    hass: HomeAssistant, said: str, scope: list[str]
) -> None:
    """User names kinds of device, no room, no device: every one of those kinds."""
    assert covered(hass, said) == sorted(scope)


@pytest.mark.parametrize(
    ("said", "scope"),
    [
        ("Turn off the lights in the kitchen", ["light.ceiling", "light.kitchen"]),
        ("Dim the lights upstairs", ["light.bedside", "light.desk", "switch.relay"]),
        # The "TV" of the TV room names the room, not the television.
        ("Turn off the lights in the TV room", ["light.floor"]),
        # Devices named, and kinds beside them, with no room: both.
        (
            "Turn off the hall lamp and the fans",
            ["fan.hall", "fan.kitchen", "light.hall"],
        ),
        # A room's lights, and a device named elsewhere.
        (
            "Turn on the lights in the kitchen and the desk lamp",
            ["light.ceiling", "light.desk", "light.kitchen"],
        ),
    ],
)
async def test_a_kind_in_an_area_is_the_scope(
    hass: HomeAssistant, said: str, scope: list[str]
) -> None:
    """User names kinds in a room: that room's devices of those kinds."""
    assert covered(hass, said) == sorted(scope)


@pytest.mark.parametrize(
    ("earlier", "said", "scope"),
    [
        ("Turn on the hall lamp", "Turn it off again", ["light.hall"]),
        (
            "Open the back door and the garage door",
            "Close them too",
            ["cover.garage", "lock.back_door"],
        ),
        (
            "Turn on the lights upstairs",
            "Turn them off again",
            # The room's every device: which of them "them" means is the model's.
            ["light.bedside", "light.desk", "media_player.office", "switch.relay"],
        ),
    ],
)
async def test_what_a_request_refers_back_to_is_the_scope(
    hass: HomeAssistant, earlier: str, said: str, scope: list[str]
) -> None:
    """User refers back: what the message before named is the scope."""
    mentions = replace(find_mentions(hass, earlier, language="en"), earlier=True)
    found = request_scope(hass, words_in(said), mentions, "en")

    assert found is not None
    assert [e for e in EVERYTHING if found.covers(e)] == sorted(scope)


@pytest.mark.parametrize(
    "said",
    [
        "I'm cold",
        "It's too dark in here",
        "Lock up for the night",
        "Light the way to bed",
        "Yes",
        "Switch off everything",
        # Only a thermometer: it is read, and names nothing to change.
        "The kitchen temperature is too low",
    ],
)
async def test_words_that_name_nothing_set_no_scope(
    hass: HomeAssistant, said: str
) -> None:
    """User names no device, room or kind: the model reads it as it will."""
    assert scope_of(hass, said) is None


async def test_a_change_outside_the_scope_is_refused_and_traced(
    hass: HomeAssistant,
) -> None:
    """User asks for the hall lamp; a call that also unlocks the door is refused.

    The refusal names the door, in the debug trace too; a call within, a read,
    and a call that reaches nothing in the home are not refused.
    """
    scope = scope_of(hass, "Turn off the hall lamp")
    assert scope is not None
    tool = FreeTool()

    with trace.async_conversation_trace() as traced:
        refused = scope.review(
            tool, {}, Reach(frozenset({"light.hall", "lock.front_door"}), frozenset())
        )
        within = Reach(frozenset({"light.hall"}), frozenset())
        assert scope.review(tool, {}, within) is None
        assert scope.review(tool, {}, Reach(frozenset(), frozenset())) is None

    assert refused is not None
    assert refused.error
    assert refused.data["error"] == "NotRequested"
    assert "did not ask for Front door" in refused.data["error_text"]
    assert "Hall lamp" not in refused.data["error_text"]
    events = [event["data"] for event in traced.as_dict()["events"]]
    assert events == [
        {"chatterbox_not_requested": {"tool": "free", "entities": ["lock.front_door"]}}
    ]


@pytest.mark.parametrize(
    ("said", "args"),
    [
        # The hall is the item's, not a room the list is in.
        ("Add vacuum the hall to my list", {"item": "vacuum the hall"}),
        ("Put fix the hall lamp on my tasks", {"item": "Fix the hall lamp"}),
        ("Tell everyone the kitchen is tidy", {"message": "The kitchen is tidy"}),
    ],
)
async def test_targets_said_in_a_calls_own_text_hold_no_list_back(
    hass: HomeAssistant, said: str, args: dict[str, str]
) -> None:
    """User adds an item that names a room: the list is no change outside it.

    The words name the hall (or the hall lamp, or the kitchen) only inside what the call
    adds or says, so the call on a list that is in no room runs.
    """
    scope = scope_of(hass, said)
    assert scope is not None
    to_do = Reach(frozenset({"todo.tasks"}), frozenset())

    assert scope.review(TextTool(), args, to_do) is None


async def test_a_text_the_tool_does_not_take_is_no_way_past_the_scope(
    hass: HomeAssistant,
) -> None:
    """User asks for the hall lamp; the model unlocks the door with a "message".

    The message says the hall lamp, but the tool takes no message: the unlock
    is refused as before.
    """
    scope = scope_of(hass, "Turn off the hall lamp")
    assert scope is not None
    door = Reach(frozenset({"lock.front_door"}), frozenset())

    refused = scope.review(FreeTool(), {"message": "the hall lamp"}, door)

    assert refused is not None
    assert refused.data["error"] == "NotRequested"


async def test_a_calls_own_text_that_does_not_say_the_targets_is_refused(
    hass: HomeAssistant,
) -> None:
    """User asks for the kitchen light; an item added to a list is refused.

    The item says nothing of the kitchen light: the list is outside what the
    words name, as before.
    """
    scope = scope_of(hass, "Turn off the kitchen light")
    assert scope is not None
    to_do = Reach(frozenset({"todo.tasks"}), frozenset())

    refused = scope.review(TextTool(), {"item": "buy milk"}, to_do)
    in_part = scope.review(TextTool(), {"item": "the kitchen"}, to_do)

    assert refused is not None
    assert refused.data["error"] == "NotRequested"
    assert in_part is not None


async def test_a_change_whose_reach_cannot_be_told_is_refused(
    hass: HomeAssistant,
) -> None:
    """User asks for the hall lamp; a call that may act anywhere is refused.

    A template, a timer that will say a command: what it acts on is only
    settled when it runs, and nothing says it is what the user asked for.
    """
    scope = scope_of(hass, "Turn off the hall lamp")
    assert scope is not None

    refused = scope.review(FreeTool(), {"entity_id": "{{ states.lock }}"}, None)

    assert refused is not None
    assert refused.data["error"] == "NotRequested"


async def test_a_scripts_own_reach_is_not_held_to_the_scope(
    hass: HomeAssistant,
) -> None:
    """User names a scene; what it acts on is the scene's to do."""
    scope = scope_of(hass, "Turn off the hall lamp")
    assert scope is not None

    reached = Reach(frozenset({"light.hall"}), frozenset({"lock.front_door"}))

    assert scope.review(FreeTool(), {}, reached) is None


async def test_a_refusal_names_a_few_devices(hass: HomeAssistant) -> None:
    """A call on the whole home is refused, naming only the first devices."""
    scope = scope_of(hass, "Unlock the front door")
    assert scope is not None

    refused = scope.review(FreeTool(), {}, Reach(frozenset(EVERYTHING), frozenset()))

    assert refused is not None
    text = refused.data["error_text"]
    assert text.count(", ") == MAX_NAMED - 1
    assert "Front door" not in text


async def test_the_turns_scope_is_its_users_message(hass: HomeAssistant) -> None:
    """The scope comes from what the user said last, to an agent with Assist.

    No message, no scope; nor for an agent without Assist, for which no
    names are looked up: a device it names would not be known as named.
    """
    chat_log = conversation.ChatLog(hass, "scope")
    said = "Turn off the hall lamp"
    mentions = find_mentions(hass, said, language="en")
    assert await async_setup_component(hass, "llm", {})
    chat_log.llm_api = await llm.async_get_api(hass, llm.LLM_API_ASSIST, CONTEXT)

    assert turn_scope(hass, {}, read_message(chat_log), mentions, "en") is None

    chat_log.content.append(conversation.UserContent(said))
    scope = turn_scope(hass, {}, read_message(chat_log), mentions, "en")

    assert scope is not None
    assert scope.covers("light.hall")
    assert not scope.covers("lock.front_door")
    chat_log.llm_api = None
    assert turn_scope(hass, {}, read_message(chat_log), mentions, "en") is None


@pytest.mark.parametrize(
    ("said", "front_door"),
    [
        ("Turn everything in the hall off", False),
        ("Switch off all of the hall", False),
        ("Lock the hall", True),
        ("Lock all the locks in the front hall", True),
        ("Unlock the front door and everything in the hall", True),
    ],
)
async def test_everything_of_an_area_is_no_sensitive_device_of_it(
    hass: HomeAssistant,
    said: str,
    front_door: bool,  # noqa: FBT001
) -> None:
    """The hall's lock is within "the hall", not within "everything in the hall".

    Its name, or the word for its kind, still reach it.
    """
    mentions = find_mentions(hass, said, language="en")
    scope = request_scope(hass, words_in(said), mentions, "en", DEFAULT_KINDS)
    assert scope is not None

    assert scope.covers("lock.front_door") is front_door


@pytest.mark.parametrize(
    ("said", "covered_too"),
    [
        # A word of a name reaches an everyday device, never a sensitive one.
        ("Switch on the hall lamp, I'm reading", ["switch.relay"]),
        ("Dim the hall lamp, the front is dark", []),
        # An ending is no compound: "reader" is no "Reading light".
        ("Switch on the hall lamp for the reader", []),
    ],
)
async def test_a_part_of_a_name_reaches_no_sensitive_device(
    hass: HomeAssistant, said: str, covered_too: list[str]
) -> None:
    """User names a lamp and says a word of another device's name.

    The word names an everyday device too (the model may act on it), but no
    lock: a sensitive device is reached by its name only.
    """
    mentions = find_mentions(hass, said, language="en")
    scope = request_scope(hass, words_in(said), mentions, "en", DEFAULT_KINDS)
    assert scope is not None

    within = [entity_id for entity_id in EVERYTHING if scope.covers(entity_id)]
    assert within == sorted(["light.hall", *covered_too])
