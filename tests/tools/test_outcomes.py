"""The record of a turn's calls: what they changed, and what the home lacks."""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm

from custom_components.chatterbox.tools.outcomes import (
    Outcomes,
    not_there,
    numbers_in,
    only_reads,
)
from custom_components.chatterbox.tools.targets import Reach
from tests.helpers.sensitive import CONTEXT, FreeTool


def failed(reason: intent.MatchFailedReason, **asked: str) -> Exception:
    """Return the error of a match that failed for a reason."""
    return intent.MatchFailedError(
        result=intent.MatchTargetsResult(is_match=False, no_match_reason=reason),
        constraints=intent.MatchTargetsConstraints(**asked),
    )


@pytest.mark.parametrize(
    ("err", "missing"),
    [
        (failed(intent.MatchFailedReason.NAME, name="Hot tub"), ["Hot tub"]),
        (failed(intent.MatchFailedReason.ASSISTANT, name="Safe"), ["Safe"]),
        (failed(intent.MatchFailedReason.INVALID_AREA, area_name="Attic"), ["Attic"]),
        (
            failed(intent.MatchFailedReason.INVALID_FLOOR, floor_name="Top\nfloor"),
            ["Top floor"],
        ),
        # The TV exists: it is not playing. Nothing is missing.
        (failed(intent.MatchFailedReason.STATE, name="TV"), []),
        (failed(intent.MatchFailedReason.NAME, name="x" * 61), []),
        (ValueError("no"), []),
    ],
)
def test_only_what_does_not_exist_is_missing(
    err: Exception, missing: list[str]
) -> None:
    """Not found means no such name, area or floor; not a device in a state."""
    assert not_there(err) == missing


def test_a_tool_that_only_reads_says_so_or_gets() -> None:
    """Declared read-only, or named as Home Assistant names its getters."""
    getter = FreeTool()
    getter.name = "homeassistant__GetLiveContext"

    assert only_reads(FreeTool(llm.ToolAnnotations(read_only=True)))
    assert only_reads(getter)
    assert not only_reads(FreeTool())


async def test_the_record_keeps_what_calls_changed_and_missed(
    hass: HomeAssistant,
) -> None:
    """A change reached the light; a failed call asked for a hot tub."""
    outcomes = Outcomes(hass, CONTEXT)
    done = llm.ToolResult({"success": True})
    error = llm.ToolResult({"error": "MatchFailedError"}, error=True)
    light = Reach(frozenset({"light.kitchen"}), frozenset())

    hot_tub = llm.ToolInput("free", {"name": "Hot tub", "temperature": 38})
    outcomes.add(hot_tub, FreeTool(), None, error, ["Hot tub"])
    outcomes.add(hot_tub, FreeTool(), None, error, ["Hot tub"])
    assert (outcomes.acted, outcomes.missing) == (False, ["Hot tub"])
    assert not outcomes.values

    dim = llm.ToolInput("free", {"name": "Kitchen", "brightness": "20", "on": True})
    outcomes.add(dim, FreeTool(), light, done, [])
    assert outcomes.acted
    assert outcomes.acted_on == {"light.kitchen"}
    assert outcomes.values == {20.0}

    outcomes.add(llm.ToolInput("free", {}), FreeTool(), None, done, [])
    assert outcomes.acted_on is None


async def test_a_call_that_acts_again_on_what_was_done_is_a_redo(
    hass: HomeAssistant,
) -> None:
    """The light and the pump were switched; switching the light again is a redo.

    A call that reaches anything new is none.
    """
    outcomes = Outcomes(hass, CONTEXT)
    done = llm.ToolResult({"success": True})
    light = Reach(frozenset({"light.kitchen"}), frozenset())
    both = Reach(frozenset({"light.kitchen"}), frozenset({"switch.pump"}))
    call = llm.ToolInput("free", {})

    outcomes.add(call, FreeTool(), both, done, [])
    assert not outcomes.redone
    outcomes.add(call, FreeTool(), Reach(frozenset(), frozenset()), done, [])
    assert not outcomes.redone
    outcomes.add(call, FreeTool(), light, done, [])
    assert outcomes.redone


async def test_a_reach_that_cannot_be_worked_out_is_unknown(
    hass: HomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """Arguments no tool takes make no reach: unknown, logged, the turn goes on."""
    outcomes = Outcomes(hass, CONTEXT)
    reads = FreeTool(llm.ToolAnnotations(read_only=True))

    assert outcomes.reach_of(reads, {"entity_id": "light.kitchen"}) is None
    assert outcomes.reach_of(FreeTool(), ["not", "a", "mapping"]) is None  # type: ignore[arg-type]
    assert "Could not tell what free would reach" in caplog.text


@pytest.mark.parametrize(
    ("arguments", "numbers"),
    [
        ({"temperature": 22}, [22.0]),
        ({"brightness": "18,5"}, [18.5]),
        ({"rgb": [255, 0, 10], "name": "Lamp"}, [255.0, 0.0, 10.0]),
        ({"on": True, "nested": {"level": 0.5}}, [0.5]),
        ({"name": "Lamp", "note": None}, []),
    ],
)
def test_the_numbers_a_call_ran_with(
    arguments: dict[str, object], numbers: list[float]
) -> None:
    """Numbers anywhere in the arguments, as numbers or text; a yes is none."""
    assert numbers_in(arguments) == numbers
