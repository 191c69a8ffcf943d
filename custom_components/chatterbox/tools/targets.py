"""The entities a tool call would act on, found the way Home Assistant acts.

A call reaches entities in three ways:
- An intent (`HassTurnOff`): its handler matches the name, area, floor, domain
  and device class, reads the name "all" as no name, and prefers the area and
  floor of the device that is asking. The same handler, with the same slots
  and preferences, is asked here which entities it would act on. An intent
  script reaches what its action references.
- An action: a script tool runs its script; `homeassistant__call_action`, or
  any other tool, acts on the entity, device, area, floor and label ids in
  its arguments, and on any entity its arguments name, by id or by name.
- What those run: a script or an automation reaches what its actions
  reference, a scene or a group its members, in turn.

None means the reach cannot be worked out, and the caller counts the call as
acting on everything: a template (rendered only when the call runs), a script
whose targets are templates, a script tool whose entity is gone, a timer that
will run a spoken command, or an action that hands its work to something
else (another conversation agent, a Python script).

It is a little over 400 lines: the three ways share the resolution of ids
and names, and split apart they would pass it back and forth.
"""

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
import re
from typing import Any, Final, TypeGuard

import probatio

from homeassistant.core import HomeAssistant, split_entity_id
from homeassistant.helpers import (
    entity_registry as er,
    intent,
    llm,
    script as script_helper,
    target,
)
from homeassistant.helpers.template import Template, is_template_string

_SCRIPT: Final = "script"
_AUTOMATION: Final = "automation"
# The keys of a target, as actions take them.
_TARGET_KEYS: Final = ("entity_id", "device_id", "area_id", "floor_id", "label_id")
# Where a template in a script's actions changes what the script acts on.
_TARGETING_KEYS: Final = frozenset(
    {*_TARGET_KEYS, "target", "action", "service", "scene"}
)
_ENTITY_ID: Final = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
_ACTION: Final = re.compile(r"^([a-z0-9_]+)\.([a-z0-9_]+)$")
# Script actions that act on script entities rather than run one by name.
_SCRIPT_SERVICES: Final = frozenset({"turn_on", "turn_off", "toggle", "reload"})
# Actions whose effect no argument shows: they hand a sentence to another
# conversation agent, or run code.
_OPAQUE_DOMAINS: Final = frozenset(
    {"conversation", "python_script", "pyscript", "shell_command", "rest_command"}
)
# The timer slot whose sentence Home Assistant's own agent runs when it ends.
_LATER_COMMAND: Final = "conversation_command"
# Intents that act on a satellite's timers, not on devices: their name and
# area find a timer ("cancel the timers in the hallway" leaves its lock be).
TIMER_INTENTS: Final = frozenset(
    {
        intent.INTENT_START_TIMER,
        intent.INTENT_CANCEL_TIMER,
        intent.INTENT_CANCEL_ALL_TIMERS,
        intent.INTENT_INCREASE_TIMER,
        intent.INTENT_DECREASE_TIMER,
        intent.INTENT_PAUSE_TIMER,
        intent.INTENT_UNPAUSE_TIMER,
        intent.INTENT_TIMER_STATUS,
    }
)
# How deep arguments are searched, and how many references are followed: a
# model's arguments and a home's scripts are finite, but neither is trusted.
_MAX_DEPTH: Final = 16
_MAX_REACHED: Final = 10_000
# The longest string argument that is compared with the entities' names.
_MAX_NAME: Final = 100


@dataclass(frozen=True, slots=True)
class Reach:
    """What a call acts on: its direct targets, and everything they run."""

    direct: frozenset[str]
    """The entity ids the call names or matches."""
    through: frozenset[str]
    """The entity ids its scripts, automations, scenes and groups act on."""

    @property
    def every(self) -> frozenset[str]:
        """Return every entity id the call reaches."""
        return self.direct | self.through


def reach(
    hass: HomeAssistant,
    tool: llm.Tool,
    args: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> Reach | None:
    """Return what a call would act on, or None if that cannot be told."""
    inner = tool
    while isinstance(inner, llm.NamespacedTool):
        inner = inner.tool
    if isinstance(inner, llm.IntentTool):
        direct = _intent_targets(hass, inner.intent_type, args, llm_context)
    else:
        direct = _action_targets(hass, inner, args)
    if direct is None:
        return None
    reached = _run_by(hass, direct)
    if reached is None:
        return None
    return Reach(frozenset(direct), frozenset(reached - direct))


def _intent_targets(
    hass: HomeAssistant,
    intent_type: str,
    args: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> set[str] | None:
    """Return the entities an intent would act on, as its handler matches them."""
    handler = next(
        (found for found in intent.async_get(hass) if found.intent_type == intent_type),
        None,
    )
    if handler is None:
        return set()  # Home Assistant refuses an unknown intent
    # As llm.IntentTool builds the slots: blank values dropped, the asking
    # device's area and floor over whatever the call said.
    slots = {
        key: {"value": value}
        for key, value in args.items()
        if not intent.is_blank_slot_value(value)
    }
    preferences = llm.async_get_match_preferences(hass, llm_context)
    for key, value in (
        ("preferred_area_id", preferences.area_id),
        ("preferred_floor_id", preferences.floor_id),
    ):
        if value:
            slots[key] = {"value": value}
    if isinstance(handler, intent.ServiceIntentHandler):
        return _service_intent_targets(hass, handler, slots, llm_context.assistant)
    if _LATER_COMMAND in slots:
        return None  # a timer that will say something to an agent when it ends
    config = getattr(handler, "config", None)
    if isinstance(config, Mapping) and isinstance(
        runs := config.get("action"), script_helper.Script
    ):
        return _script_reach(hass, runs)  # an intent script
    # A handler of its own (a thermostat's temperature) matches in its own
    # way: everything it might choose counts, every entity of a shared name
    # and, with no name, every one of its domains.
    constraints = _constraints(
        slots, llm_context.assistant, handler.platforms, allow_duplicate_names=True
    )
    if intent_type in TIMER_INTENTS or not constraints.has_constraints:
        return set()
    result = intent.async_match_targets(hass, constraints)
    return {state.entity_id for state in result.states}


def _service_intent_targets(
    hass: HomeAssistant,
    handler: intent.ServiceIntentHandler,
    slots: dict[str, Any],
    assistant: str | None,
) -> set[str]:
    """Return what a service intent acts on: exactly what its handler matches."""
    try:
        slots = handler.async_validate_slots(slots)
    except probatio.Invalid:
        return set()  # refused the same way before it acts
    constraints = _constraints(
        slots,
        assistant,
        handler.required_domains,
        features=handler.required_features,
        states=handler.required_states,
    )
    if not constraints.has_constraints:
        return set()  # "Service handler cannot target all devices"
    result = intent.async_match_targets(
        hass,
        constraints,
        intent.MatchTargetsPreferences(
            area_id=_value(slots, "preferred_area_id"),
            floor_id=_value(slots, "preferred_floor_id"),
        ),
    )
    if not result.is_match:
        return set()  # fails with MatchFailedError before it acts
    return {state.entity_id for state in result.states}


def _constraints(
    slots: Mapping[str, Any],
    assistant: str | None,
    domains: Collection[str] | None,
    **extra: Any,
) -> intent.MatchTargetsConstraints:
    """Build the match constraints from an intent's slots, as handlers do."""
    name = _value(slots, "name")
    return intent.MatchTargetsConstraints(
        name=None if name == "all" else _text(name),
        area_name=_text(_value(slots, "area")),
        floor_name=_text(_value(slots, "floor")),
        domains=_texts(_value(slots, "domain")) or domains,
        device_classes=_texts(_value(slots, "device_class")),
        assistant=assistant,
        **extra,
    )


def _value(slots: Mapping[str, Any], key: str) -> Any:
    """Return a slot's value."""
    slot = slots.get(key)
    return slot.get("value") if isinstance(slot, dict) else None


def _action_targets(
    hass: HomeAssistant, tool: llm.Tool, args: Mapping[str, Any]
) -> set[str] | None:
    """Return the entities an action-like call names, or None if it can't tell."""
    found = _Found()
    found.search(args, 0)
    action = named_action(tool, args)
    if found.unknown or (action and action[0] in _OPAQUE_DOMAINS):
        return None
    entity_ids = _entity_ids(hass, found.entity_ids)
    if entity_ids is None:
        return None
    if "all" in found.entity_ids:
        # Every entity of the action's domain: of any domain if it has none.
        entity_ids |= {
            state.entity_id
            for state in hass.states.async_all(action[0] if action else None)
        }
    if found.names:
        # A tool of another integration may name devices as people do.
        entity_ids |= {
            state.entity_id
            for state in hass.states.async_all()
            if state.name.strip().lower() in found.names
        }
    if runs_script(action):
        if (script_id := _script_entity(hass, action[1])) is None:
            return None  # a script Home Assistant may still run by its key
        entity_ids.add(script_id)
    entity_ids |= _referenced(hass, found.selection)
    return {entity_id for entity_id in entity_ids if hass.states.get(entity_id)}


def _entity_ids(hass: HomeAssistant, given: Iterable[str]) -> set[str] | None:
    """Read entity ids as Home Assistant does, registry ids too; None if one fails."""
    registry = er.async_get(hass)
    entity_ids: set[str] = set()
    for value in given:
        if value in {"", "none"}:
            continue  # no entity
        if value == "all" or _ENTITY_ID.match(value):
            entity_ids.add(value)
        elif (entry := registry.async_get(value)) is not None:
            entity_ids.add(entry.entity_id)
        else:
            return None
    return entity_ids - {"all"}


def named_action(tool: llm.Tool, args: Mapping[str, Any]) -> tuple[str, str] | None:
    """Return the action a call runs, as (domain, service), if it names one."""
    if isinstance(tool, llm.ActionTool):
        # A script tool: ActionTool keeps its action to itself.
        domain, service = getattr(tool, "_domain", None), getattr(tool, "_action", None)
        if isinstance(domain, str) and isinstance(service, str):
            return domain, service
    action = args.get("action")
    if isinstance(action, str) and (match := _ACTION.match(action.strip().lower())):
        return match.group(1), match.group(2)
    return None


def runs_script(action: tuple[str, str] | None) -> TypeGuard[tuple[str, str]]:
    """Tell whether an action runs a script by name (script.leave_home)."""
    return (
        action is not None
        and action[0] == _SCRIPT
        and action[1] not in _SCRIPT_SERVICES
    )


def _script_entity(hass: HomeAssistant, key: str) -> str | None:
    """Return the entity of the script with a key, which a rename leaves behind."""
    entity_id = er.async_get(hass).async_get_entity_id(_SCRIPT, _SCRIPT, key)
    if entity_id is None and hass.states.get(f"{_SCRIPT}.{key}"):
        entity_id = f"{_SCRIPT}.{key}"
    return entity_id


class _Found:
    """What a search of a call's arguments found."""

    def __init__(self) -> None:
        """Start with nothing found."""
        self.entity_ids: set[str] = set()
        self.selection: dict[str, list[str]] = {}
        self.names: set[str] = set()
        """Other short strings, lowercased: perhaps an entity's name."""
        self.unknown = False
        """A template, or arguments too deep to read."""

    def search(self, value: Any, depth: int) -> None:
        """Collect ids and entity ids from arguments, and notice templates."""
        if depth > _MAX_DEPTH:
            self.unknown = True
        elif isinstance(value, str):
            self._text(value)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                self.search(key, depth + 1)
                if key in _TARGET_KEYS:
                    self._select(key, item)
                self.search(item, depth + 1)
        elif isinstance(value, list | tuple):
            for item in value:
                self.search(item, depth + 1)

    def _text(self, value: str) -> None:
        """Read one string: a template, entity ids, or perhaps a name."""
        if is_template_string(value):
            self.unknown = True
            return
        # Home Assistant reads entity ids in any case, around spaces, and a
        # string of them separated by commas.
        parts = [part.strip().lower() for part in value.split(",")]
        ids = [part for part in parts if _ENTITY_ID.match(part)]
        self.entity_ids.update(ids)
        if not ids and len(parts[0]) <= _MAX_NAME:
            self.names.add(value.strip().lower())

    def _select(self, key: str, value: Any) -> None:
        """Add ids given under a target key: one, a list, or separated by commas."""
        ids = [value] if isinstance(value, str) else value
        if not isinstance(ids, list):
            return
        for item in ids:
            if not isinstance(item, str):
                continue
            for part in item.split(","):
                if key == "entity_id":
                    # An entity id, "all", or a registry id (a UUID).
                    self.entity_ids.add(part.strip().lower())
                else:
                    self.selection.setdefault(key, []).append(part.strip())


def _run_by(hass: HomeAssistant, entity_ids: Collection[str]) -> set[str] | None:
    """Return the entities and everything their scripts, scenes and groups reach."""
    reached = set(entity_ids)
    todo = list(entity_ids)
    while todo and len(reached) < _MAX_REACHED:
        found = _references(hass, todo.pop())
        if found is None:
            return None
        for entity_id in found - reached:
            if hass.states.get(entity_id):
                reached.add(entity_id)
                todo.append(entity_id)
    return reached


def _references(hass: HomeAssistant, entity_id: str) -> set[str] | None:
    """Return the entities one entity acts on when it runs or is turned on."""
    found: set[str] = set()
    domain = split_entity_id(entity_id)[0]
    if domain in (_SCRIPT, _AUTOMATION):
        component = hass.data.get(domain)
        entity = component.get_entity(entity_id) if component is not None else None
        runs = getattr(entity, "script", None) or getattr(entity, "action_script", None)
        if isinstance(runs, script_helper.Script):
            if (referenced := _script_reach(hass, runs)) is None:
                return None
            found |= referenced
    state = hass.states.get(entity_id)
    members = state.attributes.get("entity_id") if state else None
    if isinstance(members, list | tuple):
        # A scene's entities, a group's members.
        found.update(member for member in members if isinstance(member, str))
    return found


def _script_reach(hass: HomeAssistant, runs: script_helper.Script) -> set[str] | None:
    """Return what a script's actions reference; None if a template chooses."""
    if _templated_target(runs.sequence):
        return None
    return runs.referenced_entities | _referenced(
        hass,
        {
            "device_id": list(runs.referenced_devices),
            "area_id": list(runs.referenced_areas),
            "floor_id": list(runs.referenced_floors),
            "label_id": list(runs.referenced_labels),
        },
    )


def _templated_target(config: Any, *, targeting: bool = False) -> bool:
    """Tell whether a template in a script's actions chooses what it acts on.

    The actions are the home's own configuration, validated by Home Assistant:
    finite, and no deeper than a person writes them.
    """
    if isinstance(config, Template):
        return targeting and not config.is_static
    if isinstance(config, str):
        return targeting and is_template_string(config)
    if isinstance(config, Mapping):
        return any(
            _templated_target(item, targeting=targeting or key in _TARGETING_KEYS)
            for key, item in config.items()
        )
    if isinstance(config, list | tuple):
        return any(_templated_target(item, targeting=targeting) for item in config)
    return False


def _referenced(hass: HomeAssistant, selection: Mapping[str, list[str]]) -> set[str]:
    """Return the entities that device, area, floor and label ids refer to."""
    if not any(selection.values()):
        return set()
    selected = target.async_extract_referenced_entity_ids(
        hass,
        target.TargetSelection({key: ids for key, ids in selection.items() if ids}),
        primary_entities_only=False,
    )
    return selected.referenced | selected.indirectly_referenced


def _text(value: Any) -> str | None:
    """Return a string argument, or None."""
    return value if isinstance(value, str) and value else None


def _texts(value: Any) -> Collection[str] | None:
    """Return a list argument of strings, or None."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | set | tuple) and all(
        isinstance(item, str) for item in value
    ):
        return set(value) or None
    return None
