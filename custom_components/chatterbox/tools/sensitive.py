"""Which tool calls need the user's yes before they run, and the words for them.

A call is sensitive when its tool may write and it reaches an entity of a
sensitive kind (by default a lock, an alarm panel, a valve, a garage door, door
or gate cover; the user may choose others), directly or through a script,
automation, scene or group it runs; when what it reaches cannot be worked out;
or when its tool says, explicitly, that it is destructive (inside Home
Assistant or outside it), named by its title where it has one. Every tool
that declares nothing gets those same defaults, and Home Assistant's intent
tools keep destructive at it, so only explicit annotations count, and an
intent tool only when it says it acts outside Home Assistant: otherwise every
light switch would become a question.

What a call reaches is found the way Home Assistant will act (targets.py):
`HassTurnOff` unlocks a lock, so the tool name alone says nothing.
"""

from collections.abc import Collection, Mapping, Sequence
import re
from typing import Any, Final

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import llm

from ..lang.wording import Action, Deed
from .targets import Reach, named_action, reach, runs_script

# The kinds of entity a user can choose to guard: a domain, or a cover of a
# device class, which Home Assistant gives its own words ("garage door").
KINDS: Final = {
    "lock": ("lock", None),
    "alarm_control_panel": ("alarm_control_panel", None),
    "valve": ("valve", None),
    "garage": ("cover", "garage"),
    "door": ("cover", "door"),
    "gate": ("cover", "gate"),
    "window": ("cover", "window"),
    "siren": ("siren", None),
    "climate": ("climate", None),
    "water_heater": ("water_heater", None),
    "switch": ("switch", None),
    "button": ("button", None),
}
DEFAULT_KINDS: Final = (
    "lock",
    "alarm_control_panel",
    "valve",
    "garage",
    "door",
    "gate",
)
_VERBS: Final = {
    ("lock", "HassTurnOn"): "lock",
    ("lock", "HassTurnOff"): "unlock",
    ("cover", "HassTurnOn"): "open",
    ("cover", "HassTurnOff"): "close",
    ("valve", "HassTurnOn"): "open",
    ("valve", "HassTurnOff"): "close",
    ("button", "HassTurnOn"): "press",
}
# Tools whose names are no words a person says: "stop Garage door", not
# "stop moving Garage door".
_SAID: Final = {"HassStopMoving": "stop"}


type Kind = tuple[str, str | None]
"""A kind of entity: its domain, and a device class or None for any."""


def guarded_kinds(kinds: Collection[str]) -> frozenset[Kind]:
    """Return the kinds a user chose to guard, by their names in KINDS."""
    return frozenset(KINDS[kind] for kind in kinds if kind in KINDS)


def of_kinds(state: State, kinds: Collection[Kind]) -> bool:
    """Tell whether an entity is of one of the kinds."""
    return (state.domain, None) in kinds or (
        state.domain,
        state.attributes.get("device_class"),
    ) in kinds


def sensitive_action(
    hass: HomeAssistant,
    tool: llm.Tool,
    tool_args: Mapping[str, Any],
    llm_context: llm.LLMContext,
    kinds: Collection[str] = DEFAULT_KINDS,
) -> Action | None:
    """Say what a sensitive call would do, or None if it is not one."""
    if tool.annotations.read_only:
        return None
    bare = tool.name.rsplit("__", 1)[-1]
    action = named_action(tool, tool_args)
    reached = reach(hass, tool, tool_args, llm_context)
    if reached is None:
        return _unsettled(tool, bare, action, tool_args)
    guarded = guarded_kinds(kinds)
    states = [
        state
        for entity_id in sorted(reached.every)
        if (state := hass.states.get(entity_id)) is not None
        and of_kinds(state, guarded)
    ]
    if states:
        return _describe(hass, bare, action, reached, states)
    if _declares_destruction(tool):
        if tool.title:
            return Action((Deed("run", (tool.title,)),))
        return Action((Deed(_words(bare)),))
    return None


def _declares_destruction(tool: llm.Tool) -> bool:
    """Tell a tool that says it destroys, inside Home Assistant or outside it.

    Deleting automations, a list, a calendar's events. Home Assistant's own
    intent tools (device control) leave destructive at its default, true,
    and say only that they stay inside Home Assistant: what they reach is
    judged by its kind above, so they are held only when they say they act
    outside it too.
    """
    annotations = tool.annotations
    if annotations == llm.ToolAnnotations() or not annotations.destructive:
        return False
    inner = tool.tool if isinstance(tool, llm.NamespacedTool) else tool
    return annotations.open_world or not isinstance(inner, llm.IntentTool)


def _unsettled(
    tool: llm.Tool,
    bare: str,
    action: tuple[str, str] | None,
    tool_args: Mapping[str, Any],
) -> Action:
    """Say what a call does whose targets are only settled when it runs."""
    if runs_script(action) and "action" not in tool_args:
        # A script tool.
        return Action((Deed("run", (tool.title or _words(action[1]),)),))
    if action:
        return Action((Deed(f"{_words(bare)} {'.'.join(action)}"),))
    return Action((Deed(_words(bare)),))


def _describe(
    hass: HomeAssistant,
    bare: str,
    action: tuple[str, str] | None,
    reached: Reach,
    states: Sequence[State],
) -> Action:
    """Say what a call does to the guarded entities it reaches."""
    if runs_script(action):
        verb = "run"
    elif action is not None:
        verb = _words(action[1])
    else:
        verb = _words(bare)
    through = [state for state in states if state.entity_id not in reached.direct]
    if through:
        runs = [
            state
            for entity_id in sorted(reached.direct)
            if (state := hass.states.get(entity_id)) is not None
        ]
        return Action((Deed(verb, _names(runs)),), through=_names(through))
    # Each kind of device in its own words: one intent closes a garage door
    # and unlocks a lock, and the question says both.
    by_verb: dict[str, list[State]] = {}
    for state in states:
        said = verb if action else _VERBS.get((state.domain, bare), verb)
        by_verb.setdefault(said, []).append(state)
    return Action(
        tuple(
            Deed(said, _names(group), tuple(state.entity_id for state in group))
            for said, group in by_verb.items()
        )
    )


def _names(states: Sequence[State]) -> tuple[str, ...]:
    """Return the names of entities, in order."""
    return tuple(state.name for state in states)


def _words(name: str) -> str:
    """Turn a tool name such as HassTurnOff into words: "turn off"."""
    if (said := _SAID.get(name)) is not None:
        return said
    name = name.removeprefix("Hass")
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").lower()
