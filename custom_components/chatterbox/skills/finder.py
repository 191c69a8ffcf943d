"""Find the exposed devices a model looks for, in a home too large to list.

The overview (overview.py) tells the model what kinds of devices each area
has; what the request names comes with it (in_view.py). For the rest ("which
windows are open?") the model searches: by words of a name, an area or a
floor, a domain, a state. Words match as they do in mentions.py (case and
endings aside), and only devices exposed to the assistant are ever found.
"""

from collections.abc import Iterable
from typing import Any, Final

import probatio

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import (
    floor_registry as fr,
    llm,
)

from ..context.in_view import describe_state
from ..context.mentions import area_entry, known_names, same_word
from ..lang.text import words_in
from ..tools.own import TOOL_PREFIX, SkillTool, error_result, reads_only

FIND_DEVICES: Final = f"{TOOL_PREFIX}find_devices"
# The most devices one search returns: enough for a room, not a house.
MAX_FOUND: Final = 25
# The longest search word taken: a name, not a page.
_MAX_QUERY_CHARS: Final = 100


class FindDevicesTool(SkillTool):
    """Search the home's exposed devices by name, area, domain and state."""

    name = FIND_DEVICES
    description = (
        "Find devices of this home that are not listed: by words of their "
        "name, their area or floor, their domain (light, switch, cover, lock, "
        "climate, sensor…) or their state (on, off, open, locked…). Give one "
        f"or more. Returns at most {MAX_FOUND} devices with their states."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional("name", description="Words of the device's name"): str,
            probatio.Optional("area", description="An area's or a floor's name"): str,
            probatio.Optional("domain", description="The kind, e.g. light"): str,
            probatio.Optional("state", description="The state, e.g. on"): str,
        }
    )
    annotations = reads_only(online=False)

    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Return the devices that match every word given, by name."""
        asked = {
            key: words_in(value[:_MAX_QUERY_CHARS])
            for key, value in arguments.items()
            if value.strip()
        }
        if not asked:
            return error_result(
                "NothingToFind", "Give a name, an area, a domain or a state."
            )
        found = sorted(
            (
                state
                for state in _exposed(hass, llm_context.assistant)
                if _matches(hass, state, asked)
            ),
            key=lambda state: (state.name.casefold(), state.entity_id),
        )
        data: dict[str, Any] = {
            "devices": [describe_state(hass, state) for state in found[:MAX_FOUND]]
        }
        if len(found) > MAX_FOUND:
            data["more"] = (
                f"{len(found) - MAX_FOUND} more match; search by area or name "
                "to narrow it down."
            )
        return llm.ToolResult(data=data)


def _exposed(hass: HomeAssistant, assistant: str) -> Iterable[State]:
    """Yield the states of the entities exposed to the assistant."""
    return (
        state
        for state in hass.states.async_all()
        if async_should_expose(hass, assistant, state.entity_id)
    )


def _matches(
    hass: HomeAssistant, state: State, asked: dict[str, tuple[str, ...]]
) -> bool:
    """Tell whether a device matches every part of the search."""
    if (domain := asked.get("domain")) and not _same_domain(domain, state.domain):
        return False
    if (wanted := asked.get("state")) and " ".join(wanted) != " ".join(
        words_in(state.state)
    ):
        return False
    if (name := asked.get("name")) and not _every_word(name, known_names(hass, state)):
        return False
    return not (area := asked.get("area")) or _every_word(area, _places(hass, state))


def _same_domain(words: tuple[str, ...], domain: str) -> bool:
    """Tell whether the words name the domain: "binary sensors", "lights"."""
    parts = words_in(domain)
    return len(words) == len(parts) and all(
        same_word(word, part) for word, part in zip(words, parts, strict=True)
    )


def _every_word(words: tuple[str, ...], names: Iterable[str]) -> bool:
    """Tell whether every word searched for is a word of one of the names."""
    named = [word for name in names for word in words_in(name)]
    return all(any(same_word(word, part) for part in named) for word in words)


def _places(hass: HomeAssistant, state: State) -> list[str]:
    """Return the names and aliases of a device's area and of its floor."""
    if (area := area_entry(hass, state.entity_id)) is None:
        return []
    places = [area.name, *area.aliases]
    if area.floor_id and (floor := fr.async_get(hass).async_get_floor(area.floor_id)):
        places += [floor.name, *floor.aliases]
    return places
