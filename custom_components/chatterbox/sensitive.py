"""Which tool calls need the user's yes before they run.

A call is sensitive when its tool may write and it either acts on an entity of
a sensitive kind (by default a lock, an alarm panel, a valve, a garage door,
door or gate cover; the user may choose others), or its tool says, explicitly,
that it is destructive and acts outside Home Assistant. Home Assistant gives
every tool that declares nothing those same defaults, intent tools included,
so only explicit annotations count: otherwise every light switch would become
a question.

The targets are found from the call's arguments, the way Home Assistant's
intents find them: `HassTurnOff` unlocks a lock, so the tool name alone says
nothing.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
import re
from typing import Any, Final

from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm

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
}
DEFAULT_KINDS: Final = (
    "lock",
    "alarm_control_panel",
    "valve",
    "garage",
    "door",
    "gate",
)
# What the user may answer to go ahead, in the languages Assist speaks most.
_YES: Final = frozenset(
    {
        "yes", "yeah", "yep", "sure", "ok", "okay", "please", "do it", "go ahead",
        "confirm", "ja", "jawohl", "oui", "si", "sí", "sì", "tak", "da", "sim",
    }
)  # fmt: skip
_VERBS: Final = {
    ("lock", "HassTurnOn"): "lock",
    ("lock", "HassTurnOff"): "unlock",
    ("cover", "HassTurnOn"): "open",
    ("cover", "HassTurnOff"): "close",
    ("valve", "HassTurnOn"): "open",
    ("valve", "HassTurnOff"): "close",
}


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A sensitive call held back until the user says yes."""

    tool_name: str
    tool_args: Mapping[str, Any]
    action: str
    """The action in words, such as "unlock Front door"."""


def sensitive_action(
    hass: HomeAssistant,
    tool: llm.Tool,
    tool_args: Mapping[str, Any],
    assistant: str | None,
    kinds: Collection[str] = DEFAULT_KINDS,
) -> str | None:
    """Say in words what a sensitive call would do, or None if it is not one."""
    if tool.annotations.read_only:
        return None
    guarded = {KINDS[kind] for kind in kinds if kind in KINDS}
    targets = [
        state
        for state in _targets(hass, tool_args, assistant)
        if (state.domain, None) in guarded
        or (state.domain, state.attributes.get("device_class")) in guarded
    ]
    bare = tool.name.rsplit("__", 1)[-1]
    if targets:
        verb = _VERBS.get((targets[0].domain, bare), _words(bare))
        return f"{verb} {' and '.join(state.name for state in targets)}"
    declared = tool.annotations != llm.ToolAnnotations()
    if declared and tool.annotations.destructive and tool.annotations.open_world:
        return _words(bare)
    return None


def is_yes(text: str) -> bool:
    """Tell whether an answer confirms: a yes word, alone or leading."""
    words = re.sub(r"[^\w\s]", " ", text.casefold()).split()
    return bool(words) and (
        words[0] in _YES or " ".join(words[:2]) in _YES or " ".join(words) in _YES
    )


def _targets(
    hass: HomeAssistant, tool_args: Mapping[str, Any], assistant: str | None
) -> list[State]:
    """Find the entities an intent-style call means, as the intent would."""
    if not any(tool_args.get(key) for key in ("name", "area", "floor")):
        return []
    result = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            name=_text(tool_args.get("name")),
            area_name=_text(tool_args.get("area")),
            floor_name=_text(tool_args.get("floor")),
            domains=_texts(tool_args.get("domain")),
            device_classes=_texts(tool_args.get("device_class")),
            assistant=assistant,
        ),
    )
    return list(result.states) if result.is_match else []


def _text(value: Any) -> str | None:
    """Return a string argument, or None."""
    return value if isinstance(value, str) and value else None


def _texts(value: Any) -> Collection[str] | None:
    """Return a list argument of strings, or None."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def _words(name: str) -> str:
    """Turn a tool name such as HassTurnOff into words: "turn off"."""
    name = name.removeprefix("Hass")
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").lower()
