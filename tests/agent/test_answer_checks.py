"""Tests of the checks that hold an answer to the request it answers."""

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.agent.answer_checks import asks_back
from custom_components.chatterbox.agent.decision import decide
from custom_components.chatterbox.agent.outcome import (
    Answered,
    Decision,
    NothingDone,
    RunAgain,
    StatesAnswer,
)
from custom_components.chatterbox.prompts import (
    ASKED_BACK_NOTE,
    FIGURES_NOTE,
)
from custom_components.chatterbox.tools.command import Command
from custom_components.chatterbox.tools.guard import ToolTally
from custom_components.chatterbox.wire.stream import StreamStats

AGENT = "conversation.chatterbox"
LIGHT = "light.kitchen_light"
# A request that names the kitchen light to act on, and a question that names
# no device.
SWITCH = Command("en", check_claims=True, parts=(LIGHT,))
WEATHER = Command("en", check_claims=False, question=True)


def checked(
    chat_log: conversation.ChatLog,
    command: Command,
    tally: ToolTally,
    left: int,
    told: frozenset[str],
    *,
    read: list[dict[str, str]] | None = None,
) -> Decision:
    """Return what a round that ended in the chat log's answer comes to."""
    answer = chat_log.content[-1]
    assert isinstance(answer, conversation.AssistantContent)
    stats = StreamStats(finish_reason="stop", content_chars=len(answer.content or ""))
    return decide(
        stats,
        tally,
        chat_log,
        tools={},
        left=left,
        command=command,
        told=told,
        read=read or [],
    )


def answered(
    hass: HomeAssistant, said: str, answer: str, *, read: bool = False
) -> conversation.ChatLog:
    """Return a chat log in which the model answered, after a read if asked."""
    content: list[conversation.Content] = [
        conversation.SystemContent("You are a voice assistant."),
        conversation.UserContent(said),
    ]
    if read:
        call = llm.ToolInput("GetLiveContext", {}, "call_0")
        content += [
            conversation.AssistantContent(AGENT, tool_calls=[call]),
            conversation.ToolResultContent(
                AGENT, "call_0", "GetLiveContext", llm.ToolResult({"result": "-"})
            ),
        ]
    content.append(conversation.AssistantContent(AGENT, answer))
    return conversation.ChatLog(hass, "conversation", content=content)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Is the front door locked?", True),
        ("Which one?  ", True),
        ("The door is locked. Anything else?", False),
        ("The door is locked.", False),
        ("", False),
    ],
)
def test_an_answer_asks_back_when_it_is_one_question(
    answer: str,
    expected: bool,  # noqa: FBT001
) -> None:
    """One question and nothing else asks back; words before it answer."""
    assert asks_back(answer) is expected


async def test_a_claim_after_the_note_is_not_passed_on(hass: HomeAssistant) -> None:
    """The model was told nothing changed, and claims a change: none is said."""
    chat_log = answered(hass, "Turn off the kitchen light", "I turned it off.")

    decision = checked(chat_log, SWITCH, ToolTally(), 3, frozenset({"claim"}))

    assert decision == NothingDone()


async def test_a_question_answered_with_a_question_is_asked_again(
    hass: HomeAssistant,
) -> None:
    """User asks about the weather; the model says a question back, no tool ran.

    It gets one more round to call the tool that tells.
    """
    chat_log = answered(hass, "How windy is it in Bergen?", "Is it windy in Bergen?")

    decision = checked(chat_log, WEATHER, ToolTally(), 3, frozenset())

    assert decision == RunAgain(ASKED_BACK_NOTE, "asked_back")


@pytest.mark.parametrize(
    ("left", "told", "read"),
    [
        (1, frozenset(), False),
        (3, frozenset({"asked_back"}), False),
        (3, frozenset(), True),
    ],
    ids=["last-round", "told-already", "after-a-read"],
)
async def test_a_question_back_stands_when_it_may(
    hass: HomeAssistant,
    left: int,
    told: frozenset[str],
    read: bool,  # noqa: FBT001
) -> None:
    """On the last round, after the note, or after a result ("which Springfield?")."""
    chat_log = answered(hass, "How cold is it?", "Which town?", read=read)

    assert checked(chat_log, WEATHER, ToolTally(), left, told) == Answered()


async def test_a_question_about_devices_asked_back_gets_their_states(
    hass: HomeAssistant,
) -> None:
    """A question that names the lock, asked back: the model is told to answer.

    A note, never the answer replaced: a question back is not false.
    """
    command = Command(
        "en", check_claims=False, asked_about=("lock.front_door",), question=True
    )
    chat_log = answered(hass, "Is the door locked?", "Is the door locked?")

    decision = checked(chat_log, command, ToolTally(), 3, frozenset())

    assert decision == RunAgain(ASKED_BACK_NOTE, "asked_back")
    told = checked(chat_log, command, ToolTally(), 3, frozenset({"asked_back"}))
    assert told == Answered()


# What the model read: the question, and the thermometer's state after it.
READ = [{"role": "user", "content": "How warm is it?\n- Thermometer: 19.5 °C"}]


# A question about the thermometer: the answer's figure is of the home.
ABOUT_THERMOMETER = Command(
    "en", check_claims=False, asked_about=("sensor.thermometer",), question=True
)


async def test_a_figure_read_nowhere_is_told_once(hass: HomeAssistant) -> None:
    """The thermometer reads 19.5; the model says 22 degrees: it is told so."""
    chat_log = answered(hass, "How warm is it?", "It is 22 degrees.")

    decision = checked(
        chat_log, ABOUT_THERMOMETER, ToolTally(), 3, frozenset(), read=READ
    )

    assert decision == RunAgain(FIGURES_NOTE.format(figures="22"), "figures")


async def test_a_figure_read_stands(hass: HomeAssistant) -> None:
    """The thermometer reads 19.5, and so does the answer: it stands."""
    chat_log = answered(hass, "How warm is it?", "It is 19.5 degrees.")

    assert checked(chat_log, WEATHER, ToolTally(), 3, frozenset(), read=READ) == (
        Answered()
    )


@pytest.mark.parametrize(
    ("left", "told"),
    [(1, frozenset()), (3, frozenset({"figures"}))],
    ids=["last-round", "told-already"],
)
async def test_a_figure_of_nothing_in_the_home_stands(
    hass: HomeAssistant, left: int, told: frozenset[str]
) -> None:
    """A figure the answer gives of nothing in the home is the model's to give.

    Neither the answer nor the question names a device or an area: "22
    degrees" may be a sauna's, or a holiday's; it stands, note or none.
    """
    chat_log = answered(hass, "How warm is it?", "It is 22 degrees.")

    decision = checked(chat_log, WEATHER, ToolTally(), left, told, read=READ)

    assert decision == Answered()


async def test_a_figure_read_nowhere_about_a_device_gets_its_state(
    hass: HomeAssistant,
) -> None:
    """A question about the thermometer answered with a figure after the note.

    The user hears the thermometer's state, which the agent reads itself.
    """
    command = Command(
        "en", check_claims=False, asked_about=("sensor.thermometer",), question=True
    )
    chat_log = answered(hass, "How warm is it?", "It is 22 degrees.")

    decision = checked(
        chat_log, command, ToolTally(), 3, frozenset({"figures"}), read=READ
    )

    assert decision == StatesAnswer(("sensor.thermometer",))
