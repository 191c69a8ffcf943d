"""Every way a call can reach a sensitive device meets the question.

Each story is a call a model can make, through Home Assistant as a user
reaches it, that acts on a lock or a garage door without naming it plainly.
"""

from datetime import timedelta
from typing import Any, override

import probatio
import pytest

from homeassistant.components import ai_task, conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.intent import async_register_timer_handler
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import (
    device_registry as dr,
    entity_registry as er,
    intent,
    llm,
)
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockUser,
    async_fire_time_changed,
)

from custom_components.chatterbox.const import SUBENTRY_AI_TASK
from custom_components.chatterbox.tools.sensitive import DEFAULT_KINDS, sensitive_action
from tests.helpers.common import AGENT_ENTITY_ID, MODELS, ask, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.sensitive import CONTEXT, FRONT, GARAGE, FreeTool

SIDE_DOORS = ("lock.side_door", "lock.side_door_2")  # kitchen, hallway
UNLOCK = "Do you want me to unlock Front door?"

pytestmark = pytest.mark.usefixtures("loaded_entry")


class _Operate(llm.Tool):
    """Another integration's tool: an action on an entity, declaring nothing."""

    name = "operate"
    description = "Run a Home Assistant action on one entity."
    integration = "house"
    parameters = probatio.Schema(
        {probatio.Required("action"): str, probatio.Required("entity_id"): str}
    )

    @override
    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: Any
    ) -> llm.ToolResult:
        """Call the action."""
        domain, service = tool_input.tool_args["action"].split(".")
        await hass.services.async_call(
            domain,
            service,
            {"entity_id": tool_input.tool_args["entity_id"]},
            blocking=True,
        )
        return llm.ToolResult(data={"success": True})


class _HouseAPI(llm.API):
    """An LLM API another integration registers, with the operate tool."""

    @override
    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Return the API with its one tool."""
        return llm.APIInstance(
            api=self, api_prompt="", llm_context=llm_context, tools=[_Operate()]
        )


async def _say(
    hass: HomeAssistant,
    text: str,
    device_id: str | None = "satellite",
    context: Context | None = None,
) -> str:
    """Speak to the agent from a device, in one conversation; return the answer."""
    result = await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            "reach",
            context or Context(),
            agent_id=AGENT_ENTITY_ID,
            language="en",
            device_id=device_id,
        )
    )
    return str(result.response.speech["plain"]["speech"])


def _states(hass: HomeAssistant, *entity_ids: str) -> list[str]:
    """Return the entities' states."""
    return [hass.states.get(entity_id).state for entity_id in entity_ids]


@pytest.mark.parametrize(
    ("args", "question"),
    [
        (
            {"domain": ["lock"]},
            "Do you want me to unlock Front door, Side door and Side door?",
        ),
        (
            {"name": "", "domain": ["lock"]},
            "Do you want me to unlock Front door, Side door and Side door?",
        ),
        (
            {"domain": ["cover"], "device_class": ["garage"]},
            "Do you want me to close Garage door?",
        ),
    ],
    ids=["locks-by-domain", "empty-name", "garage-by-class"],
)
async def test_a_call_without_a_name_is_asked_about(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    args: dict[str, Any],
    question: str,
) -> None:
    """The model targets every lock, or every garage door, by kind alone."""
    llm_server.reply(ToolCalls([Call("HassTurnOff", args)]))

    assert await _say(hass, "Make the house ready") == question

    assert _states(hass, FRONT, *SIDE_DOORS) == ["locked"] * 3


async def test_an_automation_cannot_unlock_every_lock_by_kind(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """Unattended, the same call is refused outright."""
    llm_server.reply(
        ToolCalls([Call("HassTurnOff", {"domain": ["lock"]})]), Text("Not done.")
    )

    await ask(hass, "Unlock everything")

    assert _states(hass, FRONT, *SIDE_DOORS) == ["locked"] * 3
    refused = tool_messages(llm_server.last_chat_request)[-1]["content"]
    assert refused["data"]["error"] == "NotAllowed"


async def test_the_name_all_is_no_way_around(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """Home Assistant reads the name "all" as no name: everything in the garage."""
    llm_server.reply(ToolCalls([Call("HassTurnOn", {"name": "all", "area": "Garage"})]))

    assert await _say(hass, "Open up the garage") == (
        "Do you want me to open Garage door?"
    )

    assert _states(hass, GARAGE) == ["closed"]
    llm_server.reply(Text("The garage is open."))
    assert await _say(hass, "Yes") == "The garage is open."
    assert _states(hass, GARAGE) == ["open"]


async def test_a_shared_name_resolved_by_the_satellites_area_is_asked_about(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    config_entry: MockConfigEntry,
) -> None:
    """Two locks are called Side door; the kitchen satellite means the kitchen's.

    The question is asked, and the yes unlocks the one Home Assistant picks.
    """
    devices = dr.async_get(hass)
    satellite = devices.async_get_or_create(
        config_entry_id=config_entry.entry_id, identifiers={("test", "kitchen")}
    )
    devices.async_update_device(satellite.id, area_id=guarded_home["Kitchen"])
    llm_server.reply(ToolCalls([Call("HassTurnOff", {"name": "Side door"})]))

    assert await _say(hass, "Unlock the side door", satellite.id) == (
        "Do you want me to unlock Side door?"
    )
    assert _states(hass, *SIDE_DOORS) == ["locked", "locked"]

    llm_server.reply(Text("Unlocked."))
    await _say(hass, "Yes", satellite.id)

    assert _states(hass, *SIDE_DOORS) == ["unlocked", "locked"]


async def test_a_preference_the_model_adds_is_dropped(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """The model picks a side door with preferred_area_id, no parameter of the tool.

    The argument is dropped before the call runs: the name stays ambiguous, the
    intent fails, and both doors stay locked.
    """
    hallway = guarded_home["Hallway"]
    llm_server.reply(
        ToolCalls(
            [Call("HassTurnOff", {"name": "Side door", "preferred_area_id": hallway})]
        ),
        Text("Which side door?"),
    )

    assert await _say(hass, "Unlock the side door") == "Which side door?"

    assert _states(hass, *SIDE_DOORS) == ["locked", "locked"]
    failed = tool_messages(llm_server.last_chat_request)[-1]["content"]
    assert failed["error"] is True
    assert hallway not in str(tool_messages(llm_server.last_chat_request)[-1])


async def test_a_script_that_unlocks_is_asked_about(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """The script tool declares nothing, but its script unlocks the front door."""
    llm_server.reply(ToolCalls([Call("script__leave_home", {})]))

    assert await _say(hass, "I'm leaving") == (
        "Do you want me to run Leave home, which acts on Front door?"
    )
    assert _states(hass, FRONT) == ["locked"]

    llm_server.reply(Text("Done."))
    await _say(hass, "Yes, go ahead")

    assert _states(hass, FRONT) == ["unlocked"]


async def test_a_scene_that_unlocks_is_asked_about(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """Turning on a scene sets the lock it holds: that is an unlock too."""
    llm_server.reply(ToolCalls([Call("HassTurnOn", {"name": "Welcome"})]))

    assert await _say(hass, "Welcome mode") == (
        "Do you want me to turn on Welcome, which acts on Front door?"
    )

    assert _states(hass, FRONT) == ["locked"]


async def test_a_timer_that_will_speak_a_command_is_asked_about(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    config_entry: MockConfigEntry,
) -> None:
    """A timer's command is said to Home Assistant's own agent when it ends.

    What that sentence will do can't be known now, so the timer is asked about.
    """
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=config_entry.entry_id, identifiers={("test", "timers")}
    )
    async_register_timer_handler(hass, satellite.id, lambda *_: None)
    timer = {"seconds": 1, "conversation_command": "unlock the front door"}
    llm_server.reply(ToolCalls([Call("HassStartTimer", timer)]))

    assert await _say(hass, "In a second, let them in", satellite.id) == (
        "Do you want me to start timer?"
    )
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=5))
    await hass.async_block_till_done()

    assert _states(hass, FRONT) == ["locked"]


@pytest.mark.parametrize(
    ("target", "question"),
    [
        ({"entity_id": FRONT}, "Do you want me to let guest in Front door?"),
        ({"entity_id": "lock.{{ door }}"}, "Do you want me to let guest in?"),
    ],
    ids=["plain", "templated"],
)
async def test_an_intent_script_that_unlocks_is_asked_about(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    target: dict[str, str],
    question: str,
) -> None:
    """An intent script is a tool whose action unlocks: what it references counts."""
    assert await async_setup_component(
        hass,
        "intent_script",
        {
            "intent_script": {
                "LetGuestIn": {
                    "description": "Let a guest in",
                    "action": [{"action": "lock.unlock", "target": target}],
                    "speech": {"text": "Done"},
                }
            }
        },
    )
    llm_server.reply(ToolCalls([Call("LetGuestIn", {})]))

    assert await _say(hass, "Let the guest in") == question

    assert _states(hass, FRONT) == ["locked"]


async def test_a_renamed_script_is_still_followed(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """The script's entity was renamed; its tool runs it by its old key."""
    er.async_get(hass).async_update_entity(
        "script.leave_home", new_entity_id="script.goodbye"
    )
    await hass.async_block_till_done()
    async_expose_entity(hass, conversation.DOMAIN, "script.goodbye", True)  # noqa: FBT003
    llm_server.reply(ToolCalls([Call("script__goodbye", {})]))

    assert await _say(hass, "Bye") == (
        "Do you want me to run Leave home, which acts on Front door?"
    )

    assert _states(hass, FRONT) == ["locked"]


async def test_a_script_whose_target_is_a_template_is_asked_about(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """The door the script unlocks is only known when its template renders."""
    llm_server.reply(ToolCalls([Call("script__open_for", {"door": "front_door"})]))

    assert await _say(hass, "Let the guest in") == ("Do you want me to run Open for?")

    assert _states(hass, FRONT) == ["locked"]


async def test_a_script_that_reaches_nothing_sensitive_runs_at_once(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """The evening script only lights the kitchen: no question."""
    llm_server.reply(ToolCalls([Call("script__evening", {})]), Text("Evening set."))

    assert await _say(hass, "Evening, please") == "Evening set."

    assert _states(hass, "light.kitchen_light") == ["on"]


@pytest.mark.parametrize(
    "agent_data",
    [{CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, "house"]}],
)
async def test_another_integrations_action_tool_is_asked_about(
    hass: HomeAssistant, llm_server: LLMServer, guarded_home: dict[str, str]
) -> None:
    """A tool that takes an action and an entity: what it names is what it acts on."""
    llm.async_register_api(hass, _HouseAPI(hass=hass, id="house", name="House"))
    unlock = {"action": "lock.unlock", "entity_id": FRONT}
    llm_server.reply(ToolCalls([Call("operate", unlock)]))

    assert await _say(hass, "Open the door for the plumber") == UNLOCK
    assert _states(hass, FRONT) == ["locked"]

    llm_server.reply(Text("Unlocked."))
    await _say(hass, "Ok")

    assert _states(hass, FRONT) == ["unlocked"]


@pytest.mark.skipif(
    not hasattr(llm, "LLM_API_HOME_ASSISTANT"),
    reason="Home Assistant 2026.11 brought the homeassistant API",
)
@pytest.mark.parametrize(
    "agent_data",
    [{CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, "homeassistant"]}],
)
@pytest.mark.parametrize(
    ("target", "question"),
    [
        ({"entity_id": FRONT}, UNLOCK),
        (
            {"entity_id": "{{ states.lock | map(attribute='entity_id') | list }}"},
            "Do you want me to call action lock.unlock?",
        ),
        (
            {"entity_id": "{# a comment #}lock.front_door"},
            "Do you want me to call action lock.unlock?",
        ),
        ({"entity_id": "light.kitchen_light, lock.front_door"}, UNLOCK),
        ({"entity_id": "registry id"}, UNLOCK),
    ],
    ids=["by-id", "by-template", "by-comment", "by-commas", "by-registry-id"],
)
async def test_call_action_is_asked_about(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    hass_admin_user: MockUser,
    target: dict[str, str],
    question: str,
) -> None:
    """An administrator's agent calls lock.unlock itself, in each way it takes.

    A template is only rendered when the call runs: what it reaches can't be
    known before, so it is asked about.
    """
    if target["entity_id"] == "registry id":
        target = {"entity_id": er.async_get(hass).async_get(FRONT).id}
    call = {"action": "lock.unlock", "target": target}
    llm_server.reply(ToolCalls([Call("homeassistant__call_action", call)]))
    admin = Context(user_id=hass_admin_user.id)

    assert await _say(hass, "Let them in", context=admin) == question

    assert _states(hass, FRONT) == ["locked"]


async def test_an_ai_task_given_an_api_cannot_unlock(
    hass: HomeAssistant,
    llm_server: LLMServer,
    guarded_home: dict[str, str],
    config_entry: MockConfigEntry,
) -> None:
    """Another integration hands a task its API: the unlock gets the automation policy.

    Nobody is there to say yes, so the call is refused, not asked about.
    """
    hass.config_entries.async_add_subentry(
        config_entry,
        ConfigSubentry(
            data={CONF_MODEL: MODELS[0]},
            subentry_type=SUBENTRY_AI_TASK,
            title="Tasks",
            unique_id=None,
        ),
    )
    await hass.async_block_till_done()
    api = _HouseAPI(hass=hass, id="house", name="House")
    llm.async_register_api(hass, api)
    unlock = {"action": "lock.unlock", "entity_id": FRONT}
    llm_server.reply(ToolCalls([Call("operate", unlock)]), Text("Not done."))

    result = await ai_task.async_generate_data(
        hass,
        task_name="Door",
        entity_id="ai_task.tasks",
        instructions="Let the plumber in",
        llm_api=api,
    )

    assert result.data == "Not done."
    assert _states(hass, FRONT) == ["locked"]
    refused = tool_messages(llm_server.last_chat_request)[-1]["content"]
    assert refused["data"]["error"] == "NotAllowed"


def _intent_tool(hass: HomeAssistant, intent_type: str) -> llm.Tool:
    """Return Home Assistant's own tool for an intent, as an API would build it."""
    handler = next(h for h in intent.async_get(hass) if h.intent_type == intent_type)
    return llm.IntentTool(intent_type, handler)


def _nested(depth: int) -> dict[str, Any]:
    """Return arguments nested this deep, with an entity id at the bottom."""
    value: Any = {"entity_id": FRONT}
    for _ in range(depth):
        value = {"next": value}
    return value


EVERYTHING = ["lock", "garage", "button", "switch"]


@pytest.mark.parametrize(
    ("tool", "args", "kinds", "action"),
    [
        # Intents, with the tool under another API's namespace too.
        ("HassTurnOff", {"name": "Front door"}, None, "unlock Front door"),
        ("ns__HassTurnOff", {"name": "Front door"}, None, "unlock Front door"),
        ("HassTurnOn", {"name": "Kitchen light"}, None, None),
        ("HassTurnOn", {"name": "Nothing here"}, None, None),
        ("HassTurnOn", {}, None, None),
        ("HassTurnOn", {"name": "Garage door", "device_class": ["bogus"]}, None, None),
        # A handler of its own: whatever it might choose counts.
        ("HassGetState", {"name": "Side door"}, None,
         "get state Side door and Side door"),
        ("HassGetState", {"domain": "cover"}, None, "get state Garage door"),
        ("HassGetState", {}, None, None),
        # Said as a person says it: "stop", not "stop moving".
        ("HassStopMoving", {"name": "Garage door"}, None, "stop Garage door"),
        # Timers are no devices: a room's timers leave its lock be.
        ("HassCancelAllTimers", {"area": "Hallway"}, None, None),
        ("HassCancelTimer", {"area": "Kitchen", "name": "Side door"}, None, None),
        # Actions and ids in the arguments, however given.
        ("free", {"action": "lock.unlock", "entity_id": "all"}, None,
         "unlock Front door, Side door and Side door"),
        ("free", {"target": {"entity_id": [FRONT]}, "action": "lock.unlock"}, None,
         "unlock Front door"),
        ("free", {"action": "lock.unlock", "entity_id": "{{ 'lock.front_door' }}"},
         None, "free lock.unlock"),
        ("free", {"entity_id": ["{% raw %}"]}, None, "free"),
        ("free", _nested(40), None, "free"),
        ("free", _nested(3), None, "free Front door"),
        ("free", {"entity_id": 5, "area_id": "garage"}, None, "free Garage door"),
        ("free", {"action": "script.turn_on", "entity_id": "script.leave_home"}, None,
         "turn on Leave home, which acts on Front door"),
        ("free", {"entity_id": [FRONT, *SIDE_DOORS, GARAGE, "button.garage_relay",
                                "switch.pond_pump"]}, EVERYTHING,
         "free Garage relay, Garage door, Front door, Side door, Side door and 1 more"),
        ("free", {"item": "milk"}, None, None),
        ("free", {"entity_id": "no such thing"}, None, "free"),
        ("free", {"entity_id": "none"}, None, None),
        ("free", {"entity_id": [5, "lock.front_door"]}, None, "free Front door"),
        ("free", {"entity_id": "registry id"}, None, "free Front door"),
        ("free", {"action": "script.no_such_script"}, None,
         "free script.no_such_script"),
        ("free", {"action": "conversation.process", "text": "unlock"}, None,
         "free conversation.process"),
        ("free", {"device": " FRONT DOOR"}, None, "free Front door"),
        ("free", {"entity_id": " Lock.Front_Door "}, None, "free Front door"),
    ],
)  # fmt: skip
async def test_what_a_call_reaches(
    hass: HomeAssistant,
    guarded_home: dict[str, str],
    tool: str,
    args: dict[str, Any],
    kinds: list[str] | None,
    action: str | None,
) -> None:
    """What a call acts on is found as Home Assistant will act, then named."""
    if tool == "free":
        built: llm.Tool = FreeTool()
    elif tool.startswith("ns__"):
        built = llm.NamespacedTool("ns", _intent_tool(hass, tool.removeprefix("ns__")))
    else:
        built = _intent_tool(hass, tool)
    args = {
        key: guarded_home.get(str(value).title(), value) if key == "area_id" else value
        for key, value in args.items()
    }
    if args.get("entity_id") == "registry id":
        args["entity_id"] = er.async_get(hass).async_get(FRONT).id
    chosen = kinds if kinds is not None else list(DEFAULT_KINDS)

    said = sensitive_action(hass, built, args, CONTEXT, chosen)

    assert (str(said) if said else None) == action


async def test_an_automation_reaches_what_it_runs(
    hass: HomeAssistant, guarded_home: dict[str, str]
) -> None:
    """Triggering an automation that unlocks the door is an unlock."""
    assert await async_setup_component(
        hass,
        "automation",
        {
            "automation": {
                "alias": "Open house",
                "triggers": [],
                "actions": [{"action": "lock.unlock", "target": {"entity_id": FRONT}}],
            }
        },
    )
    await hass.async_block_till_done()
    call = {"action": "automation.trigger", "entity_id": "automation.open_house"}

    assert str(sensitive_action(hass, FreeTool(), call, CONTEXT)) == (
        "trigger Open house, which acts on Front door"
    )
    # A script known by its state alone, not in the registry, is itself.
    hass.states.async_set("script.by_hand", "off")
    by_hand = {"action": "script.by_hand"}
    assert sensitive_action(hass, FreeTool(), by_hand, CONTEXT) is None
