"""Conversations as a capable model holds them, played through the agent untouched.

A story is a table row: the language, the user's turns, what the model does
in each (its calls, then its words) and how the home ends. Playing it runs a
real Home Assistant (tests/helpers/capable_home.py), the agent and the
scripted server, and returns what came of it as an Outcome; the story's
expected Outcome is what a check that costs a capable model nothing leaves:
each turn heard as the model said it, one request per scripted response, no
call refused, no check's note or fallback, and only the model's changes.

When the agent asks for more than the script holds, the model stands by its
answer: it says its last words of the turn again. Set CAPABLE_OUTCOMES to a
file's path to collect every played conversation's outcome there, one JSON
line each, with the checks' trace entries in full.
"""

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
import json
import os
from pathlib import Path
import re
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import Context, HomeAssistant

from custom_components.chatterbox.const import CONF_MAX_ITERATIONS, CONF_TOOL_MODE
from tests.helpers.capable_home import look, settle
from tests.helpers.common import AGENT_ENTITY_ID, MODELS, is_summary_request
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls

# The agent a capable model runs behind: Assist and the calculator, both
# tool modes.
AGENT = {
    CONF_MODEL: MODELS[0],
    CONF_LLM_HASS_API: ["assist", "chatterbox_calc"],
    CONF_MAX_ITERATIONS: 10,
}
MODES = {"native": AGENT, "text": AGENT | {CONF_TOOL_MODE: "text"}}

# Trace keys that record what a turn was, not a check that acted on it.
RECORDS = frozenset(
    {"chatterbox_iteration", "chatterbox_states_in_view", "chatterbox_home_overview"}
)
SATELLITE = "capable0satellite0device"


@dataclass(frozen=True)
class Saying:
    """One response of words and calls together: "One moment." and a read."""

    words: str
    calls: tuple[Call, ...]


type Step = str | Call | tuple[Call, ...] | Saying


def saying(words: str, *calls: Call) -> Saying:
    """Return a response that says a few words before its calls."""
    return Saying(words, calls)


def call(tool: str, **arguments: Any) -> Call:
    """Return one call the model makes."""
    return Call(tool, arguments)


def on(device: str, **arguments: Any) -> Call:
    """Return the model's call that turns a device on (locks it, opens it)."""
    return Call("HassTurnOn", {"name": device, **arguments})


def off(device: str, **arguments: Any) -> Call:
    """Return the model's call that turns a device off (unlocks it, closes it)."""
    return Call("HassTurnOff", {"name": device, **arguments})


def live() -> Call:
    """Return the model's read of the home's states."""
    return Call("GetLiveContext", {})


def calc(expression: str, **units: str) -> Call:
    """Return the model's call to the calculator."""
    return Call("chatterbox__calculate", {"expression": expression, **units})


@dataclass(frozen=True)
class Turn:
    """What the user says, and what the model does: its calls, then its words.

    Each step is one response of the model: its words (the last step), one
    call, a tuple of calls made at once, or calls with a few words before
    them (a Saying). asks is the agent's own question before a sensitive
    action, heard instead of the model's words: the turn then ends on the
    model's call, held for the user's yes.
    """

    user: str
    steps: tuple[Step, ...]
    asks: str | None = None

    def __init__(self, user: str, *steps: Step, asks: str | None = None) -> None:
        """Write a turn as it is said: the user's words, then the model's steps."""
        object.__setattr__(self, "user", user)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "asks", asks)

    @property
    def answer(self) -> str:
        """Return what the user should hear: the model's last words."""
        if self.asks is not None:
            return self.asks
        last = self.steps[-1]
        assert isinstance(last, str), f"{self.user!r} does not end in words"
        return last


@dataclass(frozen=True)
class Story:
    """One conversation: its id (which opens with its language), turns, end states."""

    id: str
    turns: tuple[Turn, ...]
    states: Mapping[str, str] = field(default_factory=dict)

    @property
    def language(self) -> str:
        """Return the conversation's language: the id's first word."""
        return self.id.split("-", 1)[0]


def one(id_: str, user: str, *steps: Step, states: Mapping[str, str]) -> Story:
    """Return a conversation of one turn."""
    return Story(id_, (Turn(user, *steps),), states)


@dataclass
class Outcome:
    """What came of a conversation, compared whole to what should have."""

    heard: list[str]
    requests: int
    refused: list[str]
    fired: list[str]
    changed: dict[str, str]


def expected(story: Story) -> Outcome:
    """Return the outcome of a story the agent leaves untouched.

    A call the agent holds for the user's yes, when it asks, is the one
    result it may give that is not the call's own.
    """
    return Outcome(
        heard=[turn.answer for turn in story.turns],
        requests=sum(len(turn.steps) for turn in story.turns),
        refused=[
            f"{held.name}: ConfirmationNeeded"
            for turn in story.turns
            if turn.asks is not None
            for step in turn.steps
            for held in _calls(step)
        ],
        fired=[],
        changed=dict(story.states),
    )


def _calls(step: Step) -> list[Call]:
    """Return the calls one response makes."""
    match step:
        case str():
            return []
        case Call():
            return [step]
        case Saying(calls=calls):
            return list(calls)
        case _:
            return list(step)


def written(step: Step, mode: str) -> Text | ToolCalls:
    """Return one response of the model as the tool mode has it written."""
    if isinstance(step, str):
        return Text(step)
    words = step.words if isinstance(step, Saying) else None
    if mode == "native":
        return ToolCalls(_calls(step), content=words)
    blocks = [
        "<tool_call>\n"
        + json.dumps({"name": one.name, "arguments": one.arguments})
        + "\n</tool_call>"
        for one in _calls(step)
    ]
    return Text("\n".join([*([words] if words else []), *blocks]))


def _results(request: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Yield each call's tool name and decoded result, in either tool mode."""
    names: list[str] = []
    results: list[str] = []
    for message in request["messages"]:
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if message["role"] == "assistant":
            names += [c["function"]["name"] for c in message.get("tool_calls") or ()]
            names += [
                json.loads(block)["name"]
                for block in re.findall(
                    r"<tool_call>\n(.*?)\n</tool_call>", text, re.DOTALL
                )
            ]
        elif message["role"] == "tool":
            results.append(text)
        elif message["role"] == "user":
            results += re.findall(
                r"<tool_response>\n(.*?)\n</tool_response>", text, re.DOTALL
            )
    for tool, result in zip(names, results, strict=False):
        yield tool.rsplit("__", 1)[-1], json.JSONDecoder().raw_decode(result)[0]


def refusals(requests: list[Mapping[str, Any]]) -> list[str]:
    """Return each call whose result was an error, as "tool: error"."""
    if not requests:
        return []
    return [
        f"{tool}: {result['data'].get('error', '?')}"
        for tool, result in _results(requests[-1])
        if result.get("error")
    ]


def fired() -> list[dict[str, Any]]:
    """Return the checks' entries in the last turn's trace, in order."""
    trace = async_get_traces()[-1].as_dict()
    return [
        {key: value}
        for event in trace["events"]
        for key, value in (event.get("data") or {}).items()
        if key.startswith("chatterbox_") and key not in RECORDS
    ]


async def play(
    hass: HomeAssistant, llm_server: LLMServer, mode: str, story: Story, home: list[str]
) -> Outcome:
    """Play a story through the agent; return what the user heard and the home."""
    before = _looks(hass, home)
    heard: list[str] = []
    entries: list[dict[str, Any]] = []
    scripted = 0
    for turn in story.turns:
        words = turn.steps[-1] if isinstance(turn.steps[-1], str) else ""
        # Asked for more than the script holds, the model stands by its words.
        llm_server.responder = lambda body, w=words: (
            Text("Nothing to add.")
            if is_summary_request(body)
            else Text(w)
            if llm_server.pending == 0
            else None
        )
        llm_server.reply(*(written(step, mode) for step in turn.steps))
        scripted += len(turn.steps)
        result = await hass.async_create_task(
            conversation.async_converse(
                hass,
                turn.user,
                story.id,
                Context(),
                agent_id=AGENT_ENTITY_ID,
                language=story.language,
                device_id=SATELLITE,
            )
        )
        heard.append(str(result.response.speech["plain"]["speech"]))
        entries += fired()
        llm_server._chat_replies.clear()  # what the agent never asked for
    llm_server.responder = None
    await settle(hass)
    after = _looks(hass, home)
    requests = [
        body for body in llm_server.chat_requests if not is_summary_request(body)
    ]
    outcome = Outcome(
        heard=heard,
        requests=len(requests),
        refused=refusals(requests),
        fired=[next(iter(entry)) for entry in entries],
        changed={k: v for k, v in after.items() if before[k] != v},
    )
    _record(story, mode, outcome, entries, scripted)
    return outcome


def _looks(hass: HomeAssistant, home: list[str]) -> dict[str, str]:
    """Return how each device of the home looks now."""
    states = {entity_id: hass.states.get(entity_id) for entity_id in home}
    return {
        entity_id: look(state) if state else "missing"
        for entity_id, state in states.items()
    }


def _record(
    story: Story,
    mode: str,
    outcome: Outcome,
    entries: list[dict[str, Any]],
    scripted: int,
) -> None:
    """Add the outcome to CAPABLE_OUTCOMES' file, when it is set."""
    path = os.environ.get("CAPABLE_OUTCOMES")
    if not path:
        return
    line = {
        "id": story.id,
        "language": story.language,
        "mode": mode,
        "scripted": scripted,
        "model": [turn.answer for turn in story.turns],
        "expected_changed": dict(story.states),
        "expected_refused": expected(story).refused,
        **asdict(outcome),
        "entries": entries,
    }
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False, default=repr) + "\n")
