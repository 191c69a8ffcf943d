"""The eval's cases and checks, and the usage its proxy reads (no model needed)."""

import datetime as dt
import json

from .cases import (
    UNASKED,
    UNTRUE,
    Case,
    EntityState,
    Outcome,
    failures,
    load_cases,
    numbers_in,
)
from .proxy import usage_of
from .report import CaseRecord, TurnRecord, table

CATEGORIES = {
    "lights",
    "brightness",
    "thermostat",
    "lock",
    "fan",
    "door question",
    "weather",
    "arithmetic",
    "time",
    "two-step",
    "follow-up",
    "impossible",
    "chit-chat",
    "state question",
    "every part",
    "everything in a room",
    "refers back",
    "no such device",
    "only what was asked",
    "only what is true",
}
OFF = EntityState("off", {})
ON = EntityState("on", {"brightness": 128})
LOCKED = EntityState("locked", {})


def test_the_cases_cover_every_category_with_a_quick_three() -> None:
    """Cases.yaml holds at least 30 cases over the issue's categories."""
    cases = load_cases()
    assert len(cases) >= 30
    assert {case.category for case in cases} == CATEGORIES
    assert len([case for case in cases if case.quick]) == 3


def test_a_light_turned_on_passes_and_a_stray_change_fails() -> None:
    """The user asks for the kitchen light; the bedroom light must stay off."""
    case = Case.parse(
        {
            "id": "on",
            "category": "lights",
            "turns": ["Turn on the kitchen light"],
            "states": {
                "light.kitchen": {"state": "on", "brightness": 127, "tolerance": 3}
            },
        }
    )
    before = {"light.kitchen": OFF, "light.bedroom": OFF}
    done = Outcome(before, {"light.kitchen": ON, "light.bedroom": OFF}, ["Done."])
    assert failures(case, done) == []
    stray = Outcome(before, {"light.kitchen": ON, "light.bedroom": ON}, ["Done."])
    assert failures(case, stray) == ["light.bedroom changed to on {'brightness': 128}"]
    nothing = Outcome(before, dict(before), ["Done."])
    assert failures(case, nothing) == [
        "light.kitchen is off, not on",
        "light.kitchen brightness is None, not 127",
    ]


def test_facts_in_the_answer_are_found_in_any_wording() -> None:
    """Numbers, words and refusals are read from the answer, not matched whole."""
    case = Case.parse(
        {
            "id": "oslo",
            "category": "weather",
            "turns": ["How cold is it in Oslo?"],
            "numbers": [-3.2],
            "tolerance": 0.6,
            "not_words": ["unlocked"],
        }
    )
    before = {"lock.front_door": LOCKED}
    for answer in ("It is \u22123 °C in Oslo.", "Oslo: -3.2 degrees, snow."):
        assert failures(case, Outcome(before, before, [answer])) == []
    assert failures(case, Outcome(before, before, ["It is 3 °C."])) == [
        "answer lacks -3.2"
    ]
    refusal = Case.parse(
        {"id": "no", "category": "impossible", "turns": ["x"], "refusal": True}
    )
    assert failures(refusal, Outcome(before, before, ["I can't find a garage."])) == []
    assert failures(refusal, Outcome(before, before, ["Turned it on."])) == [
        "answer does not say it could not"
    ]
    assert numbers_in("1,234 and 5.5 or 6,5") == [1234.0, 5.5, 6.5]


def test_the_time_is_read_in_24_or_12_hours() -> None:
    """An answer tells the time when it holds the turn's time, give or take."""
    case = Case.parse({"id": "t", "category": "time", "turns": ["x"], "time": True})
    asked = dt.datetime(2026, 11, 22, 15, 4, tzinfo=dt.UTC)
    for answer, right in (
        ("It is 15:04.", True),
        ("It's 3:05 PM.", True),
        ("It is 3:04 in the morning.", False),
        ("It is quarter past three.", False),
    ):
        outcome = Outcome({}, {}, [answer], asked_at=asked)
        assert (failures(case, outcome) == []) is right, answer


def test_chit_chat_must_not_call_tools_or_write_calls_out() -> None:
    """A joke needs no tool, and a call written as text is not an answer."""
    case = Case.parse(
        {
            "id": "joke",
            "category": "chit-chat",
            "turns": ["Tell me a joke"],
            "no_tools": True,
            "prose": True,
        }
    )
    written = '```json\n{"name": "HassTurnOn", "arguments": {}}\n```'
    outcome = Outcome({}, {}, [written], tools=["intent__HassTurnOn"])
    assert failures(case, outcome) == [
        "called intent__HassTurnOn",
        "answer is a tool call written as text",
    ]


def test_usage_is_read_from_the_usage_chunk_or_llama_cpp_timings() -> None:
    """Chatterbox's streams carry usage; core's carry only llama.cpp's timings."""
    usage = {"prompt_tokens": 2800, "prompt_tokens_details": {"cached_tokens": 2700}}
    with_usage = (
        b'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
        b'data: {"choices":[{"finish_reason":"stop","delta":{}}]}\n\n'
        + f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode()
        + b"data: [DONE]\n\n"
    )
    timings = (
        b'data: {"choices":[{"finish_reason":"tool_calls","delta":{}}],'
        b'"timings":{"cache_n":2690,"prompt_n":25}}\n\ndata: [DONE]\n\n'
    )
    whole = json.dumps({"choices": [{"finish_reason": "stop"}], "usage": usage})
    assert usage_of(with_usage) == usage_of(whole.encode())
    assert usage_of(with_usage) is not None
    assert (usage_of(with_usage).prompt_tokens, usage_of(with_usage).cached_tokens) == (
        2800,
        2700,
    )
    read = usage_of(timings)
    assert read is not None
    assert (read.prompt_tokens, read.cached_tokens, read.finish_reason) == (
        2715,
        2690,
        "tool_calls",
    )
    assert usage_of(b"data: [DONE]\n\n") is None


def test_the_table_shows_each_column_side_by_side() -> None:
    """Two columns, one case each: passes, times and the cached share."""
    case = Case.parse({"id": "a", "category": "lights", "turns": ["x"]})
    records = [
        CaseRecord("ours", case, 0, [], ["ok"], [], [TurnRecord(2.0, 2, 3000, 2900)]),
        CaseRecord(
            "core", case, 0, ["no answer"], [""], [], [TurnRecord(8.0, 1, 3000, 0)]
        ),
    ]
    lines = table(["ours", "core"], records).splitlines()
    assert lines[2] == "| Cases passed | 1 of 1 | 0 of 1 |"
    assert lines[3] == "| … lights | 1/1 | 0/1 |"
    assert "| Turn time, mean | 2.0 s | 8.0 s |" in lines
    assert "| Cached share of prompt tokens | 97 % | 0 % |" in lines


def test_an_untrue_answer_and_an_unrequested_question_fail() -> None:
    """The door was locked, the answer says unlocked, and the lamp was asked about.

    Both fail the case, each counted apart in the table.
    """
    case = Case.parse({"id": "lock", "category": "lock", "turns": ["Lock it"]})
    before = {"lock.front_door": LOCKED}
    outcome = Outcome(
        before,
        dict(before),
        ["The front door is unlocked."],
        untrue=["Front door unlocked"],
        unasked=["light.living_room_lamp"],
    )

    assert failures(case, outcome) == [
        f"{UNTRUE}Front door unlocked",
        f"{UNASKED}light.living_room_lamp",
    ]
