"""The entities a tool call would act on, found the way Home Assistant acts.

A call reaches entities in three ways:
- An intent (`HassTurnOff`): its handler matches the name, area, floor, domain
  and device class, reads the name "all" as no name, and prefers the area and
  floor of the device that is asking. The same handler, with the same slots
  and preferences, is asked here which entities it would act on.
- An action: a script tool runs its script; `homeassistant__call_action`, or
  any other tool, acts on the entity, device, area, floor and label ids in
  its arguments, and on any entity its arguments name, by id or by name.
- What those run: a script or an automation reaches what it references, a
  scene or a group its members, in turn.

None means the reach cannot be worked out (a template in the arguments, which
is only rendered when the call runs): the caller counts such a call as acting
on everything.
"""

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
import re
from typing import Any, Final, TypeGuard

import probatio

from homeassistant.components import automation, script
from homeassistant.core import HomeAssistant, State, split_entity_id
from homeassistant.helpers import intent, llm, target

_SCRIPT: Final = "script"
_AUTOMATION: Final = "automation"
# The keys of a target, as actions take them.
_TARGET_KEYS: Final = ("entity_id", "device_id", "area_id", "floor_id", "label_id")
_ENTITY_ID: Final = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
_ACTION: Final = re.compile(r"^([a-z0-9_]+)\.([a-z0-9_]+)$")
# Script actions that act on script entities rather than run one by name.
_SCRIPT_SERVICES: Final = frozenset({"turn_on", "turn_off", "toggle", "reload"})
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
        direct: set[str] | None = _intent_targets(
            hass, inner.intent_type, args, llm_context
        )
    else:
        direct = _action_targets(hass, inner, args)
    if direct is None:
        return None
    return Reach(frozenset(direct), frozenset(_run_by(hass, direct) - direct))


def _intent_targets(
    hass: HomeAssistant,
    intent_type: str,
    args: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> set[str]:
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
        try:
            slots = handler.async_validate_slots(slots)
        except probatio.Invalid:
            return set()  # refused the same way before it acts
        constraints = _constraints(
            slots,
            llm_context.assistant,
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
        return (
            {state.entity_id for state in result.states} if result.is_match else set()
        )
    # A handler of its own (a thermostat's temperature) matches in its own
    # way: everything it might choose counts, every entity of a shared name
    # and, with no name, every one of its domains.
    constraints = _constraints(
        slots, llm_context.assistant, handler.platforms, allow_duplicate_names=True
    )
    if not constraints.has_constraints:
        return set()
    result = intent.async_match_targets(hass, constraints)
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
    if found.template:
        return None
    action = named_action(tool, args)
    entity_ids = {entity_id for entity_id in found.entity_ids if entity_id != "all"}
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
        entity_ids.add(f"{_SCRIPT}.{action[1]}")
    if found.selection:
        selected = target.async_extract_referenced_entity_ids(
            hass, target.TargetSelection(found.selection), primary_entities_only=False
        )
        entity_ids |= selected.referenced | selected.indirectly_referenced
    return {entity_id for entity_id in entity_ids if hass.states.get(entity_id)}


def named_action(tool: llm.Tool, args: Mapping[str, Any]) -> tuple[str, str] | None:
    """Return the action a call runs, as (domain, service), if it names one."""
    if isinstance(tool, llm.ActionTool):
        # A script tool: ActionTool keeps its action to itself.
        domain, service = getattr(tool, "_domain", None), getattr(tool, "_action", None)
        if isinstance(domain, str) and isinstance(service, str):
            return domain, service
    action = args.get("action")
    if isinstance(action, str) and (match := _ACTION.match(action.strip())):
        return match.group(1), match.group(2)
    return None


def runs_script(action: tuple[str, str] | None) -> TypeGuard[tuple[str, str]]:
    """Tell whether an action runs a script by name (script.leave_home)."""
    return (
        action is not None
        and action[0] == _SCRIPT
        and action[1] not in _SCRIPT_SERVICES
    )


class _Found:
    """What a search of a call's arguments found."""

    def __init__(self) -> None:
        """Start with nothing found."""
        self.entity_ids: set[str] = set()
        self.selection: dict[str, list[str]] = {}
        self.names: set[str] = set()
        """Other short strings, lowercased: perhaps an entity's name."""
        self.template = False

    def search(self, value: Any, depth: int) -> None:
        """Collect ids and entity ids from arguments, and notice templates."""
        if depth > _MAX_DEPTH:
            self.template = True  # too deep to tell: treated as unknown
            return
        if isinstance(value, str):
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
        """Read one string: a template, an entity id, or perhaps a name."""
        # Home Assistant reads entity ids in any case, around spaces.
        plain = value.strip().lower()
        if "{{" in value or "{%" in value:
            self.template = True
        elif _ENTITY_ID.match(plain):
            self.entity_ids.add(plain)
        elif len(plain) <= _MAX_NAME:
            self.names.add(plain)

    def _select(self, key: str, value: Any) -> None:
        """Add ids given under a target key, which may be one or a list."""
        ids = [value] if isinstance(value, str) else value
        if not isinstance(ids, list):
            return
        for item in ids:
            if isinstance(item, str):
                if key == "entity_id" and item.strip().lower() == "all":
                    self.entity_ids.add("all")
                else:
                    self.selection.setdefault(key, []).append(item.strip())


def _run_by(hass: HomeAssistant, entity_ids: Collection[str]) -> set[str]:
    """Return the entities and everything their scripts, scenes and groups reach."""
    reached = set(entity_ids)
    todo = list(entity_ids)
    while todo and len(reached) < _MAX_REACHED:
        for found in _references(hass, todo.pop()):
            if found not in reached and hass.states.get(found):
                reached.add(found)
                todo.append(found)
    return reached


def _references(hass: HomeAssistant, entity_id: str) -> Iterator[str]:
    """Yield the entities one entity acts on when it runs or is turned on."""
    domain = split_entity_id(entity_id)[0]
    if domain == _SCRIPT:
        yield from _referenced(
            hass,
            {
                "entity_id": script.entities_in_script(hass, entity_id),
                "device_id": script.devices_in_script(hass, entity_id),
                "area_id": script.areas_in_script(hass, entity_id),
                "floor_id": script.floors_in_script(hass, entity_id),
                "label_id": script.labels_in_script(hass, entity_id),
            },
        )
    elif domain == _AUTOMATION:
        yield from _referenced(
            hass,
            {
                "entity_id": automation.entities_in_automation(hass, entity_id),
                "device_id": automation.devices_in_automation(hass, entity_id),
                "area_id": automation.areas_in_automation(hass, entity_id),
                "floor_id": automation.floors_in_automation(hass, entity_id),
                "label_id": automation.labels_in_automation(hass, entity_id),
            },
        )
    state: State | None = hass.states.get(entity_id)
    members = state.attributes.get("entity_id") if state else None
    if isinstance(members, list | tuple):
        # A scene's entities, a group's members.
        yield from (member for member in members if isinstance(member, str))


def _referenced(hass: HomeAssistant, selection: dict[str, list[str]]) -> set[str]:
    """Return the entities a target of ids refers to."""
    selected = target.async_extract_referenced_entity_ids(
        hass,
        target.TargetSelection({k: v for k, v in selection.items() if v}),
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
