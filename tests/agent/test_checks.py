"""Tests of the check protocol: the aids, then the verifier, by one gate."""

from dataclasses import replace

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from custom_components.chatterbox.agent.answer_checks import CHECKS
from custom_components.chatterbox.agent.checks import (
    Check,
    Finding,
    Round,
    run_checks,
    stands,
)
from custom_components.chatterbox.agent.outcome import (
    Decision,
    NothingDone,
    RunAgain,
)
from custom_components.chatterbox.tools.guard import ToolTally
from custom_components.chatterbox.wire.stream import StreamStats


def round_of(hass: HomeAssistant, left: int, told: frozenset[str]) -> Round:
    """Return a round that ended in an answer, with rounds left and notes given."""
    chat_log = conversation.ChatLog(
        hass,
        "conversation",
        content=[
            conversation.UserContent("Turn on the lamp"),
            conversation.AssistantContent("conversation.chatterbox", "It is on."),
        ],
    )
    return Round(
        chat_log,
        StreamStats(finish_reason="stop", content_chars=9),
        ToolTally(),
        command=None,
        tools={},
        left=left,
        told=told,
        read=[],
        answer="It is on.",
    )


def finds(what: str) -> Check:
    """Return a check that always finds something, with a note and a fallback."""
    return Check(
        what,
        f"trace_{what}",
        lambda _state: True,
        lambda _state: Finding({"what": what}, {"what": what}),
        "Note: {what}.",
        lambda _state, _found: NothingDone(),
    )


QUIET = Check(
    "quiet",
    "trace_quiet",
    lambda _state: True,
    lambda _state: None,
    "Never said.",
    stands,
)
ONLY_ASKS = Check(
    "asks",
    "trace_asks",
    lambda _state: True,
    lambda _state: Finding({}),
    "Note: once.",
    stands,
    aid=True,
)


@pytest.mark.parametrize(
    ("left", "told", "expected"),
    [
        (3, frozenset(), RunAgain("Note: first.\n\nNote: second.", "first")),
        (2, frozenset(), RunAgain("Note: first.\n\nNote: second.", "first")),
        (1, frozenset(), NothingDone()),
        (3, frozenset({"second"}), NothingDone()),
    ],
    ids=["rounds-left", "just-enough", "too-few-rounds", "told-already"],
)
async def test_the_verifier_gives_every_finding_in_one_note_once(
    hass: HomeAssistant, left: int, told: frozenset[str], expected: Decision
) -> None:
    """All the verifier finds goes in one note, once a turn; then the first decides."""
    state = round_of(hass, left, told)

    assert run_checks(state, (QUIET, finds("first"), finds("second"))) == expected


async def test_an_aid_that_lets_the_answer_stand_passes_the_round_on(
    hass: HomeAssistant,
) -> None:
    """An aid that only asks, told already, leaves the round to the verifier."""
    state = round_of(hass, 3, frozenset({"asks"}))

    assert run_checks(state, (ONLY_ASKS, finds("next"))) == RunAgain(
        "Note: next.", "next"
    )
    assert run_checks(state, (ONLY_ASKS, QUIET)) is None
    fresh = round_of(hass, 3, frozenset())
    assert run_checks(fresh, (ONLY_ASKS, finds("next"))) == RunAgain(
        "Note: once.", "asks"
    )


async def test_an_aid_is_not_asked_of_a_capable_model(hass: HomeAssistant) -> None:
    """A turn that guides no small model skips the aids: the verifier decides."""
    state = replace(round_of(hass, 3, frozenset()), guide=False)

    assert run_checks(state, (ONLY_ASKS, QUIET)) is None


async def test_a_check_that_does_not_apply_is_not_asked(hass: HomeAssistant) -> None:
    """When says no: its finder never runs."""
    never = Check(
        "never",
        "trace_never",
        lambda _state: False,
        lambda _state: pytest.fail("the finder of a check that does not apply ran"),
        None,
        stands,
    )

    assert run_checks(round_of(hass, 3, frozenset()), (never,)) is None


def test_every_check_has_its_own_key_and_a_way_to_end() -> None:
    """Each check of the list is told apart, and has a note or calls or a fallback."""
    keys = [check.key for check in CHECKS]

    assert len(keys) == len(set(keys))
    assert all(check.rounds in (1, 2) for check in CHECKS)
    assert keys.index("claim") < keys.index("statements") < keys.index("figures")
