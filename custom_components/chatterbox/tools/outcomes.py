"""What a turn's calls came to: what they changed, and what the home lacks.

The guard records each call here, with what it would reach, worked out before
it runs (after it, a paused player no longer matches "playing"). The checks
of the answer read the record: an answer that claims a change needs a call
that made one; the parts of a request need calls that reached them; a request
for a device the home does not have is answered as such.
"""

from collections.abc import Mapping
from typing import Any, Final

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm

from ..const import LOGGER
from ..lang.numbers import as_number
from .targets import Reach, reach

# Why a match failed when what it was asked for does not exist, or is not
# Assist's to use, and which of the call's constraints names it.
_NOT_THERE: Final = {
    intent.MatchFailedReason.NAME: "name",
    intent.MatchFailedReason.ASSISTANT: "name",
    intent.MatchFailedReason.INVALID_AREA: "area_name",
    intent.MatchFailedReason.INVALID_FLOOR: "floor_name",
}
# The longest name of something not found that is said back to the user.
_MAX_NAME: Final = 60


def only_reads(tool: llm.Tool) -> bool:
    """Tell whether a tool only reads: it says so, or it is one that gets.

    Home Assistant declares nothing for its own tools; the ones that only read
    are named so (HassGetState, HassGetWeather, GetLiveContext, GetDateTime).
    """
    bare = tool.name.rsplit("__", 1)[-1]
    return tool.annotations.read_only or bare.startswith(("HassGet", "Get"))


def not_there(err: Exception) -> list[str]:
    """Return what a failed match was asked for that does not exist, if that failed.

    Other failures (a player that is not playing, a light without brightness)
    name something that exists: they are not said to be missing.
    """
    if not isinstance(err, intent.MatchFailedError):
        return []
    reason = err.result.no_match_reason
    field = _NOT_THERE.get(reason) if reason is not None else None
    value = getattr(err.constraints, field, None) if field else None
    if not isinstance(value, str):
        return []
    said = " ".join(value.split())
    return [said] if 0 < len(said) <= _MAX_NAME else []


class Outcomes:
    """The record of a turn's calls."""

    def __init__(self, hass: HomeAssistant, llm_context: llm.LLMContext) -> None:
        """Start the turn's record."""
        self._hass = hass
        self._context = llm_context
        self.acted = False
        """A call that may change something ran without an error."""
        self.acted_on: set[str] | None = set()
        """The entities such calls reached; None once one's reach is unknown."""
        self.missing: list[str] = []
        """What calls asked for that the home does not have, as they named it."""
        self.values: set[float] = set()
        """The numbers that calls which may change something ran with."""
        self.redone = False
        """A call acted again on nothing but what calls before it acted on."""

    def reach_of(self, tool: llm.Tool, tool_args: Mapping[str, Any]) -> Reach | None:
        """Return what a call that may change something would reach, if known."""
        if only_reads(tool):
            return None
        try:
            return reach(self._hass, tool, tool_args, self._context)
        except Exception:  # noqa: BLE001  # a record that fails must not end the turn
            LOGGER.warning(
                "Could not tell what %s would reach", tool.name, exc_info=True
            )
            return None

    def add(
        self,
        call: llm.ToolInput,
        tool: llm.Tool,
        reached: Reach | None,
        result: llm.ToolResult,
        unmatched: list[str],
    ) -> None:
        """Record a call's result: what it changed, or what it did not find."""
        if result.error:
            self.missing.extend(n for n in unmatched if n not in self.missing)
            return
        if only_reads(tool):
            return
        self.acted = True
        self.values.update(numbers_in(call.tool_args))
        if reached is None or self.acted_on is None:
            self.acted_on = None
        else:
            self.redone |= bool(reached.every) and reached.every <= self.acted_on
            self.acted_on |= reached.every


def numbers_in(value: Any) -> list[float]:
    """Return the numbers in a call's arguments, written as numbers or text."""
    match value:
        case bool():
            return []
        case int() | float():
            return [float(value)]
        case str():
            return [number] if (number := as_number(value)) is not None else []
        case Mapping():
            return [n for item in value.values() for n in numbers_in(item)]
        case list() | tuple():
            return [n for item in value for n in numbers_in(item)]
    return []
