"""The evaluation's cases (cases.yaml) and the checks that say whether one passed.

A case is what a person says, in one or more turns, and the facts that show
it worked: states at the end, numbers or words in the last answer, the tools
used. Checks never compare wording.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import datetime as dt
from pathlib import Path
import re
from typing import Any

import yaml

CASES = Path(__file__).with_name("cases.yaml")
# Within this many minutes of the turn, a time in the answer is right.
TIME_SLACK = dt.timedelta(minutes=2)
# How an answer says it could not do something.
REFUSALS = (
    "no ",
    "not ",
    "n't",
    "cannot",
    "unable",
    "sorry",
    "unfortunately",
    "no such",
    "unknown",
)
# A tool call written out as text instead of made.
CALL_AS_TEXT = re.compile(r"```|\{\s*\"name\"\s*:|<tool_call>|\"arguments\"\s*:")
MINUS = "\u2212"  # as typographers write a negative number
NUMBER = re.compile(rf"(?<![\w.])[-{MINUS}]?\d+(?:[.,]\d+)?")
CLOCK = re.compile(
    r"\b(\d{1,2})[:.](\d{2})(?:[:.]\d{2})?\s*([ap])?\.?\s*m?\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Expected:
    """One entity's expected end: a state and attributes (within a tolerance)."""

    state: str | None = None
    attributes: Mapping[str, float] = field(default_factory=dict)
    tolerance: float = 0.0

    @classmethod
    def parse(cls, raw: Any) -> Expected:
        """Read `"on"` or `{state: "on", brightness: 128, tolerance: 3}`."""
        if isinstance(raw, str):
            return cls(state=raw)
        values = dict(raw)
        state = values.pop("state", None)
        tolerance = float(values.pop("tolerance", 0))
        return cls(state, {k: float(v) for k, v in values.items()}, tolerance)


@dataclass(frozen=True)
class Case:
    """One case: turns to say, and the facts that must hold afterwards."""

    id: str
    category: str
    turns: tuple[str, ...]
    start: Mapping[str, str] = field(default_factory=dict)
    states: Mapping[str, Expected] = field(default_factory=dict)
    numbers: tuple[float, ...] = ()
    tolerance: float = 0.0
    words: tuple[str, ...] = ()
    not_words: tuple[str, ...] = ()
    refusal: bool = False
    time: bool = False
    no_tools: bool = False
    prose: bool = False
    quick: bool = False

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Case:
        """Read a case from cases.yaml."""
        values = dict(raw)
        unknown = set(values) - set(cls.__dataclass_fields__)
        if unknown:
            msg = f"case {values.get('id')}: unknown keys {sorted(unknown)}"
            raise ValueError(msg)
        return cls(
            **values
            | {
                "turns": tuple(values["turns"]),
                "states": {
                    entity: Expected.parse(expected)
                    for entity, expected in values.get("states", {}).items()
                },
                "numbers": tuple(float(n) for n in values.get("numbers", ())),
                "tolerance": float(values.get("tolerance", 0)),
                "words": tuple(values.get("words", ())),
                "not_words": tuple(values.get("not_words", ())),
            }
        )


def load_cases(path: Path = CASES) -> list[Case]:
    """Read every case, refusing duplicate ids."""
    cases = [Case.parse(raw) for raw in yaml.safe_load(path.read_text("utf-8"))]
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        msg = f"duplicate case ids in {path}"
        raise ValueError(msg)
    return cases


@dataclass(frozen=True)
class EntityState:
    """What a case looks at of an entity: its state and attributes."""

    state: str
    attributes: Mapping[str, Any]


@dataclass
class Outcome:
    """What happened in a case: the states before and after, answers and calls."""

    before: Mapping[str, EntityState]
    after: Mapping[str, EntityState] = field(default_factory=dict)
    answers: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    asked_at: dt.datetime | None = None
    """When the last turn was said (Home Assistant's time zone)."""
    untrue: list[str] = field(default_factory=list)
    """What answers said of a device that it did not show when the turn ended."""
    unasked: list[str] = field(default_factory=list)
    """Devices a question for a yes named that the case does not change."""


def failures(case: Case, outcome: Outcome) -> list[str]:
    """Return why the case failed; empty when it passed."""
    found = [*outcome.errors]
    found += _state_failures(case, outcome)
    found += [f"{UNTRUE}{said}" for said in outcome.untrue]
    found += [f"{UNASKED}{name}" for name in outcome.unasked]
    answer = outcome.answers[-1] if outcome.answers else ""
    folded = answer.casefold()
    if not answer.strip():
        found.append("no answer")
    if case.numbers and not any(
        abs(number - wanted) <= case.tolerance
        for number in numbers_in(answer)
        for wanted in case.numbers
    ):
        found.append(f"answer lacks {_listed(case.numbers)}")
    if case.words and not any(word.casefold() in folded for word in case.words):
        found.append(f"answer lacks {_listed(case.words)}")
    if said := [word for word in case.not_words if word.casefold() in folded]:
        found.append(f"answer says {_listed(said)}")
    if case.refusal and not any(marker in f"{folded} " for marker in REFUSALS):
        found.append("answer does not say it could not")
    if case.time and not (outcome.asked_at and _tells_time(answer, outcome.asked_at)):
        found.append("answer lacks the time")
    if case.no_tools and outcome.tools:
        found.append(f"called {_listed(outcome.tools)}")
    if case.prose and any(CALL_AS_TEXT.search(text) for text in outcome.answers):
        found.append("answer is a tool call written as text")
    return found


# The reasons of the two failures every case is held to, counted apart.
UNTRUE = "untrue: "
UNASKED = "asked about what was not requested: "


def _state_failures(case: Case, outcome: Outcome) -> list[str]:
    """Compare the end states with what was expected; nothing else may change."""
    found = []
    for entity_id, before in outcome.before.items():
        after = outcome.after.get(entity_id)
        if after is None:
            found.append(f"{entity_id} is gone")
            continue
        expected = case.states.get(entity_id)
        if expected is None:
            if after.state != before.state or _watched(after) != _watched(before):
                found.append(f"{entity_id} changed to {after.state} {_watched(after)}")
            continue
        if expected.state is not None and after.state != expected.state:
            found.append(f"{entity_id} is {after.state}, not {expected.state}")
        for name, wanted in expected.attributes.items():
            value = after.attributes.get(name)
            if value is None or abs(float(value) - wanted) > expected.tolerance:
                found.append(f"{entity_id} {name} is {value}, not {wanted:g}")
    return found


WATCHED = ("brightness", "percentage", "temperature", "hvac_mode")


def _watched(state: EntityState) -> dict[str, Any]:
    """Return the attributes a case may change."""
    return {
        name: state.attributes[name] for name in WATCHED if name in state.attributes
    }


def numbers_in(text: str) -> list[float]:
    """Return the numbers written in a text (1,5 and 1.5 alike; minus signs too)."""
    found = []
    for match in NUMBER.finditer(text):
        raw = match.group().replace(MINUS, "-")
        if re.fullmatch(r"-?\d{1,3}(,\d{3})+", raw):
            raw = raw.replace(",", "")
        found.append(float(raw.replace(",", ".")))
    return found


def _tells_time(answer: str, asked_at: dt.datetime) -> bool:
    """Tell whether the answer holds the time it was asked at, in 24 or 12 hours."""
    for match in CLOCK.finditer(answer):
        hour, minute = int(match.group(1)), int(match.group(2))
        half = (match.group(3) or "").casefold()
        if half == "p" and hour < 12:
            hour += 12
        elif half == "a" and hour == 12:
            hour = 0
        if hour > 23 or minute > 59:
            continue
        said = asked_at.replace(hour=hour, minute=minute, second=0, microsecond=0)
        for candidate in (
            said,
            said + dt.timedelta(days=1),
            said - dt.timedelta(days=1),
        ):
            if abs(candidate - asked_at) <= TIME_SLACK:
                return True
    return False


def _listed(values: Sequence[Any]) -> str:
    """Show a few values in a message."""
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
