"""Tests of what a round's response comes to: the turn's next step, as a value."""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.agent.decision import decide
from custom_components.chatterbox.agent.outcome import (
    Answered,
    AskUser,
    Decision,
    Fail,
    NotFound,
    NothingDone,
    RunAgain,
    StatesAnswer,
)
from custom_components.chatterbox.lang.wording import Action, Deed
from custom_components.chatterbox.prompts import (
    CLAIM_NOTE,
    CLAIM_UNNAMED,
    MADE_UP_NOTE,
)
from custom_components.chatterbox.tools.command import Command
from custom_components.chatterbox.tools.confirm import PendingCall
from custom_components.chatterbox.tools.guard import REPEATED_CALL, ToolTally
from custom_components.chatterbox.wire.stream import StreamStats
from tests.helpers.common import ask, assert_every_tool_call_answered
from tests.helpers.faults import sentence
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls
from tests.helpers.tools import FakeTool, weather_agent

AGENT = "conversation.chatterbox"
TOOLS = {"intent__HassTurnOn": frozenset({"name", "domain"})}


def log_of(hass: HomeAssistant, *results: llm.ToolResult) -> conversation.ChatLog:
    """Return a chat log in which the user asked and the model's calls answered."""
    content: list[conversation.Content] = [
        conversation.SystemContent("You are a voice assistant."),
        conversation.UserContent("Turn on the kitchen light"),
    ]
    for number, result in enumerate(results):
        call_id = f"call_{number}"
        content += [
            conversation.AssistantContent(
                AGENT, tool_calls=[llm.ToolInput("HassTurnOn", {}, call_id)]
            ),
            conversation.ToolResultContent(AGENT, call_id, "HassTurnOn", result),
        ]
    return conversation.ChatLog(hass, "conversation", content=content)


DONE = llm.ToolResult({"success": True})
FAILED = llm.ToolResult({"error": "MatchFailedError"}, error=True)
REPEAT = llm.ToolResult({"error": REPEATED_CALL}, error=True)


def spoke(chars: int = 0, calls: int = 0, finish: str = "stop") -> StreamStats:
    """Return the stats of a response with so many characters and calls."""
    return StreamStats(finish_reason=finish, content_chars=chars, tool_calls=calls)


@pytest.fixture
def agent_data(ha_core: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Give the agent only the test tools, and a limit of 4 tool rounds."""
    return weather_agent(ha_core, tools)


async def test_an_answer_ends_the_turn(hass: HomeAssistant) -> None:
    """The model said something and called nothing: the turn is answered."""
    decision = decide(spoke(12), ToolTally(), log_of(hass), tools=TOOLS, left=3)

    assert decision == Answered()


async def test_results_waiting_for_the_model_run_another_round(
    hass: HomeAssistant,
) -> None:
    """The model called a tool and its result is in: the model reads it next."""
    chat_log = log_of(hass, DONE)

    decision = decide(spoke(calls=1), ToolTally(), chat_log, tools=TOOLS, left=2)

    assert decision == RunAgain()


async def test_words_beside_calls_still_run_another_round(
    hass: HomeAssistant,
) -> None:
    """Words and a call together: the result still goes back to the model."""
    chat_log = log_of(hass, DONE)

    decision = decide(spoke(11, 1), ToolTally(), chat_log, tools=TOOLS, left=2)

    assert decision == RunAgain()


async def test_held_calls_ask_the_user_first(hass: HomeAssistant) -> None:
    """A call held for the user's yes ends the turn with the question."""
    unlock = Action((Deed("unlock", ("Front door",)),))
    held = (PendingCall("HassTurnOff", {"name": "Front door"}, unlock),)

    decision = decide(
        spoke(calls=1), ToolTally(held), log_of(hass, FAILED), tools=TOOLS, left=2
    )

    assert decision == AskUser()


async def test_a_filtered_answer_fails(hass: HomeAssistant) -> None:
    """The server's content filter stopped the answer: the user hears so."""
    decision = decide(
        spoke(5, finish="content_filter"),
        ToolTally(),
        log_of(hass),
        tools=TOOLS,
        left=3,
    )

    assert decision == Fail("content_filtered")


async def test_nothing_said_fails(hass: HomeAssistant) -> None:
    """No words and no calls is no answer."""
    decision = decide(spoke(), ToolTally(), log_of(hass), tools=TOOLS, left=3)

    assert decision == Fail("empty_response")


async def test_calls_from_an_agent_without_tools_fail(hass: HomeAssistant) -> None:
    """Calls alone, from an agent that has no tools, are no answer."""
    decision = decide(spoke(calls=1), ToolTally(), log_of(hass), tools={}, left=3)

    assert decision == Fail("empty_response")


@pytest.mark.parametrize(
    ("results", "tally", "key"),
    [
        pytest.param((DONE,), ToolTally(), "out_of_steps", id="still-working"),
        pytest.param((FAILED,), ToolTally(), "could_not", id="last-call-failed"),
        pytest.param(
            (FAILED, REPEAT), ToolTally(), "could_not", id="repeat-of-a-failure"
        ),
        pytest.param(
            (DONE, REPEAT),
            ToolTally(answer_now=True),
            "empty_response",
            id="told-to-answer",
        ),
    ],
)
async def test_calls_on_the_last_round_fail_with_what_fits(
    hass: HomeAssistant,
    results: tuple[llm.ToolResult, ...],
    tally: ToolTally,
    key: str,
) -> None:
    """The model only called tools when none were left: the user hears why."""
    chat_log = log_of(hass, *results)

    decision = decide(spoke(calls=1), tally, chat_log, tools=TOOLS, left=0)

    assert decision == Fail(key)


async def test_a_question_the_model_did_not_answer_gets_the_states(
    hass: HomeAssistant,
) -> None:
    """Nothing said about a question on the front door: its state answers."""
    command = Command("en", check_claims=True, asked_about=("lock.front_door",))

    decision = decide(
        spoke(), ToolTally(), log_of(hass), tools=TOOLS, left=3, command=command
    )

    assert decision == StatesAnswer(("lock.front_door",))


@pytest.mark.parametrize(
    ("calls", "left"), [(1, 0), (0, 3)], ids=["calls-on-the-last-round", "silence"]
)
async def test_a_request_acted_on_without_a_word_gets_the_states(
    hass: HomeAssistant, calls: int, left: int
) -> None:
    """The lights were switched, and the model said nothing: their states answer.

    What the request named comes first, in its order; then what else changed.
    """
    command = Command(
        "en",
        check_claims=True,
        parts=("light.kitchen", "light.bedroom", "light.hall"),
    )
    acted_on = frozenset({"switch.fan", "light.bedroom", "light.kitchen"})
    tally = ToolTally(acted=True, acted_on=acted_on)

    decision = decide(
        spoke(calls=calls),
        tally,
        log_of(hass, DONE),
        tools=TOOLS,
        left=left,
        command=command,
    )

    assert decision == StatesAnswer(("light.kitchen", "light.bedroom", "switch.fan"))


async def test_a_request_to_act_and_read_acted_on_without_a_word_gets_both(
    hass: HomeAssistant,
) -> None:
    """User: turn off the light, and how warm is it? The model goes silent.

    The light's state, then what else changed, then the thermometer's.
    """
    command = Command(
        "en",
        check_claims=True,
        parts=("light.kitchen",),
        reads=("sensor.living_room_temperature",),
    )
    tally = ToolTally(acted=True, acted_on=frozenset({"light.kitchen", "fan.den"}))

    decision = decide(
        spoke(), tally, log_of(hass, DONE), tools=TOOLS, left=3, command=command
    )

    assert decision == StatesAnswer(
        ("light.kitchen", "fan.den", "sensor.living_room_temperature")
    )


async def test_a_call_of_unknown_reach_is_no_states_answer(
    hass: HomeAssistant,
) -> None:
    """A script ran, whose devices cannot be told: no states are said."""
    command = Command("en", check_claims=True, parts=("light.kitchen",))
    tally = ToolTally(acted=True, acted_on=None)

    decision = decide(
        spoke(), tally, log_of(hass, DONE), tools=TOOLS, left=3, command=command
    )

    assert decision == Fail("empty_response")


@pytest.mark.parametrize(
    ("left", "told", "expected"),
    [
        (3, frozenset(), RunAgain(MADE_UP_NOTE, "made_up")),
        (3, frozenset({"made_up"}), Fail("empty_response")),
        (1, frozenset(), Fail("empty_response")),
    ],
    ids=["told-once", "not-twice", "not-on-the-last-round"],
)
async def test_a_made_up_result_gets_the_model_one_more_round(
    hass: HomeAssistant, left: int, told: frozenset[str], expected: object
) -> None:
    """The model wrote a result in place of a call: it is told, once, with tools."""
    stats = StreamStats(finish_reason="stop", made_up=1)

    decision = decide(
        stats, ToolTally(), log_of(hass), tools=TOOLS, left=left, told=told
    )

    assert decision == expected


async def test_a_turn_that_changed_something_is_not_said_not_found(
    hass: HomeAssistant,
) -> None:
    """A name failed, then another call worked: not found would mislead."""
    tally = ToolTally(missing=("Living room light",), acted=True)

    decision = decide(spoke(), tally, log_of(hass, DONE), tools=TOOLS, left=3)

    assert decision == Fail("empty_response")


@pytest.mark.parametrize(
    ("calls", "left"), [(1, 0), (0, 3)], ids=["calls-on-the-last-round", "silence"]
)
async def test_a_turn_that_found_no_such_device_says_so(
    hass: HomeAssistant, calls: int, left: int
) -> None:
    """Nothing matched what the calls named: the turn ends in what was not found."""
    tally = ToolTally(missing=("Hot tub",))

    decision = decide(
        spoke(calls=calls), tally, log_of(hass, FAILED), tools=TOOLS, left=left
    )

    assert decision == NotFound(("Hot tub",))


def answered(chat_log: conversation.ChatLog, *answers: str) -> conversation.ChatLog:
    """Add the model's answers, each as a message of its own, to the chat log."""
    for answer in answers:
        chat_log.content.append(conversation.AssistantContent(AGENT, answer))
    return chat_log


@pytest.mark.parametrize(
    ("answer", "tally", "left", "told", "expected"),
    [
        pytest.param(
            "It has been turned on.",
            ToolTally(),
            3,
            set(),
            RunAgain(CLAIM_NOTE.format(then=CLAIM_UNNAMED), "claim"),
            id="claim-once",
        ),
        pytest.param(
            "It has been turned on.",
            ToolTally(),
            3,
            {"claim"},
            NothingDone(),
            id="claim-again",
        ),
        pytest.param(
            "It has been turned on.",
            ToolTally(),
            0,
            set(),
            NothingDone(),
            id="claim-on-the-last-round",
        ),
        # The next round would have no tools to make the call with.
        pytest.param(
            "It has been turned on.",
            ToolTally(),
            1,
            set(),
            NothingDone(),
            id="claim-before-the-last-round",
        ),
        pytest.param(
            "It has been turned on.",
            ToolTally(acted=True),
            3,
            set(),
            Answered(),
            id="a-call-acted",
        ),
        pytest.param(
            "It is already on.", ToolTally(), 3, set(), Answered(), id="no-claim"
        ),
    ],
)
async def test_a_claim_needs_a_call_that_acted(  # the parameters
    hass: HomeAssistant,
    answer: str,
    tally: ToolTally,
    left: int,
    told: set[str],
    expected: RunAgain | NothingDone | Answered,
) -> None:
    """An answer that says it was done, when no call did it, is not the answer."""
    chat_log = answered(log_of(hass), answer)

    decision = decide(
        spoke(20),
        tally,
        chat_log,
        tools=TOOLS,
        left=left,
        command=Command("en", check_claims=True),
        told=frozenset(told),
    )

    assert decision == expected


@pytest.mark.parametrize(
    ("acted_on", "told", "expected"),
    [
        pytest.param(frozenset({"light.a"}), set(), "ask", id="one-part-left"),
        pytest.param(frozenset({"light.a", "light.b"}), set(), None, id="all-done"),
        pytest.param(None, set(), None, id="reach-unknown"),
        pytest.param(frozenset({"light.a"}), {"parts"}, None, id="asked-once"),
    ],
)
async def test_every_part_named_is_acted_on(
    hass: HomeAssistant,
    acted_on: frozenset[str] | None,
    told: set[str],
    expected: str | None,
) -> None:
    """Two lights named, one switched: the model is told of the other, once."""
    hass.states.async_set("light.b", "off", {"friendly_name": "Hall lamp"})
    chat_log = answered(log_of(hass, DONE), "The kitchen light is on.")

    decision = decide(
        spoke(20),
        ToolTally(acted=True, acted_on=acted_on),
        chat_log,
        tools=TOOLS,
        left=3,
        command=Command("en", check_claims=True, parts=("light.a", "light.b")),
        told=frozenset(told),
    )

    if expected is None:
        assert decision == Answered()
    else:
        assert isinstance(decision, RunAgain)
        assert decision.why == "parts"
        assert decision.note is not None
        assert "Hall lamp" in decision.note


@pytest.mark.parametrize(
    ("left", "told", "made"),
    [
        pytest.param(3, set(), True, id="once"),
        # The next round reads the result: it needs no tools.
        pytest.param(1, set(), True, id="before-the-last-round"),
        pytest.param(3, {"described"}, False, id="made-already"),
        pytest.param(0, set(), False, id="on-the-last-round"),
    ],
)
async def test_a_call_the_answer_describes_is_made(
    hass: HomeAssistant, left: int, told: set[str], *, made: bool
) -> None:
    """The model told the user which tool to call: the call is made, once."""
    chat_log = answered(
        log_of(hass), 'Call the intent__HassTurnOn tool with {"name": "Lamp"}.'
    )

    decision = decide(
        spoke(20),
        ToolTally(),
        chat_log,
        tools=TOOLS,
        left=left,
        command=Command("en", check_claims=True),
        told=frozenset(told),
    )

    if made:
        assert isinstance(decision, RunAgain)
        assert decision.why == "described"
        assert [(c.tool_name, c.tool_args) for c in decision.calls] == [
            ("intent__HassTurnOn", {"name": "Lamp"})
        ]
    else:
        assert decision == Answered()


async def test_a_call_described_after_a_result_is_not_made(
    hass: HomeAssistant,
) -> None:
    """After a tool ran, words that read as a call may quote its result."""
    chat_log = answered(
        log_of(hass, DONE), 'It says: call intent__HassTurnOn with {"name": "Lamp"}.'
    )

    decision = decide(
        spoke(20),
        ToolTally(),
        chat_log,
        tools=TOOLS,
        left=3,
        command=Command("en", check_claims=True),
    )

    assert decision == Answered()


@pytest.mark.parametrize(
    ("values", "left", "told", "expected"),
    [
        pytest.param(frozenset(), 3, set(), "ask", id="not-set"),
        pytest.param(frozenset({20.0}), 3, set(), None, id="set"),
        pytest.param(frozenset(), 3, {"values"}, None, id="asked-once"),
        pytest.param(frozenset(), 1, set(), None, id="no-round-to-set-it"),
    ],
)
async def test_a_number_asked_for_is_set(
    hass: HomeAssistant,
    values: frozenset[float],
    left: int,
    told: set[str],
    expected: str | None,
) -> None:
    """Dimming to 20 answered by switching on: the model is told of the 20, once."""
    chat_log = answered(log_of(hass, DONE), "The bedroom light is on.")

    decision = decide(
        spoke(20),
        ToolTally(acted=True, values=values),
        chat_log,
        tools=TOOLS,
        left=left,
        command=Command("en", check_claims=True, values=("20",)),
        told=frozenset(told),
    )

    if expected is None:
        assert decision == Answered()
    else:
        assert isinstance(decision, RunAgain)
        assert decision.why == "values"
        assert decision.note is not None
        assert "asked for 20" in decision.note


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (REPEAT, Answered("The kitchen light is on.")),
        (DONE, Fail("out_of_steps")),
    ],
    ids=["beside-a-refused-repeat", "beside-a-result"],
)
async def test_the_last_round_never_runs_again(
    hass: HomeAssistant, result: llm.ToolResult, expected: Decision
) -> None:
    """Words and a call on the last round end the turn, never in another round.

    Words beside a refused repeat are the answer, said once more after the
    refusal; beside a result the model never reads, the agent's own
    sentence: Home Assistant reads the answer from the chat log's last
    message, which would be the result.
    """
    chat_log = log_of(hass, DONE)
    chat_log.content += [
        conversation.AssistantContent(
            AGENT,
            "The kitchen light is on.",
            tool_calls=[llm.ToolInput("HassTurnOn", {}, "call_last")],
        ),
        conversation.ToolResultContent(AGENT, "call_last", "HassTurnOn", result),
    ]

    decision = decide(spoke(24, 1), ToolTally(), chat_log, tools=TOOLS, left=0)

    assert decision == expected


@pytest.mark.usefixtures("loaded_entry")
async def test_calls_that_kept_failing_end_in_a_sorry(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """Each try fails and the model will not stop: the user hears it failed.

    Not that the steps ran out: asking again would fail again.
    """
    llm_server.reply(
        *(ToolCalls([Call("BrokenTool", {"city": f"City {n}"})]) for n in range(4)),
        Text("Here is the weather."),
    )

    result = await ask(hass, "Weather everywhere?", "failing")

    assert result.response.speech["plain"]["speech"] == sentence("could_not")
    assert len(tools["BrokenTool"].calls) == 3
    result = await ask(hass, "And now?", "failing")
    assert result.response.speech["plain"]["speech"] == "Here is the weather."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_call_that_worked_but_was_repeated_is_no_failure(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The forecast came back, and the model only calls for it again.

    The user is not told it failed (it did not), nor to ask one thing at a
    time (they did): the model gave no answer.
    """
    same = Call("GetForecast", {"city": "Paris"})
    llm_server.reply(*(ToolCalls([same]) for _ in range(3)), Text("Paris is sunny."))

    result = await ask(hass, "Weather in Paris?", "circling")

    assert result.response.speech["plain"]["speech"] == sentence("empty_response")
    assert len(tools["GetForecast"].calls) == 1
    result = await ask(hass, "And now?", "circling")
    assert result.response.speech["plain"]["speech"] == "Paris is sunny."
    assert_every_tool_call_answered(llm_server.last_chat_request)


@pytest.mark.usefixtures("loaded_entry")
async def test_a_failed_call_made_again_is_told_once_with_its_tools(
    hass: HomeAssistant, llm_server: LLMServer, tools: dict[str, FakeTool]
) -> None:
    """The model repeats a call that failed: it is told so, and tries another.

    Without the note, the next request would read as the one before (the
    repeat is not shown), and the model would answer it the same way.
    """
    broken = Call("BrokenTool", {"city": "Paris"})
    llm_server.reply(
        ToolCalls([broken]),
        ToolCalls([broken]),
        ToolCalls([Call("GetForecast", {"city": "Paris"})]),
        Text("Paris is sunny."),
    )

    result = await ask(hass, "Weather in Paris?", "failed-again")

    assert result.response.speech["plain"]["speech"] == "Paris is sunny."
    assert len(tools["BrokenTool"].calls) == 1
    told = llm_server.chat_requests[2]
    assert "tool_choice" not in told
    assert told["messages"][-1]["content"].startswith(
        "Note: BrokenTool failed with these arguments already"
    )
    assert_every_tool_call_answered(llm_server.last_chat_request)
