"""Load: a hundred conversations at once, and what is left after thousands.

Everything goes through a real Home Assistant, the real openai SDK and real
HTTP to the scripted server. The scripted model answers from the request alone
(a responder), so that any conversation can be at any turn at any time, and it
echoes the conversation tokens it finds in the request: a request or an answer
that mixed two conversations would carry two tokens.

The figures the issue asks for are printed, not asserted (timings are not
reliable on a shared machine): pytest -s tests/scenarios/test_load.py shows them.
"""

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from datetime import timedelta
import gc
import json
import logging
import os
import random
import re
import statistics
import time
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.components.conversation.const import (
    DATA_COMPONENT as CONVERSATION_COMPONENT,
)
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from custom_components.chatterbox.const import (
    CONF_MAX_ITERATIONS,
    CONF_MEMORY,
    MAX_TRACKED_CONVERSATIONS,
)
from custom_components.chatterbox.context.memory import MAX_MEMORIES, MEMORY_DEVICE
from custom_components.chatterbox.conversation import ChatterboxConversationEntity
from custom_components.chatterbox.runtime import RECENT_TURNS
from custom_components.chatterbox.tools.guard import ToolGuard
from tests.helpers.common import AGENT_ENTITY_ID, MODELS, ask, tool_result
from tests.helpers.llm_server import (
    CHAT_PATH,
    Call,
    ChatReply,
    LLMServer,
    Text,
    ToolCalls,
)

CONVERSATIONS = 100
TURNS = 5
MOST_LATENCY = 0.2  # seconds the server waits before answering, at most
SEED = 8
CALCULATE = "chatterbox__calculate"
TOKEN = re.compile(r"\bconv-\d{5}\b")
TURN = re.compile(r"^(conv-\d{5}), turn (\d+):")
# Odd turns switch the light; even turns calculate, on numbers of their own.
LIGHT_TOOLS = {1: "intent__HassTurnOn", 3: "intent__HassTurnOff"}


@pytest.fixture(autouse=True)
async def run_the_loop_as_home_assistant_does() -> AsyncGenerator[None]:
    """Turn off asyncio's debug mode, which the test plugin turns on.

    Home Assistant runs without it; under load, its slow-callback checks would
    time the test harness rather than Chatterbox.
    """
    loop = asyncio.get_running_loop()
    debug = loop.get_debug()
    loop.set_debug(False)
    yield
    loop.set_debug(debug)


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent Home Assistant's Assist API and the calculator skill."""
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, "chatterbox_calc"],
        CONF_MAX_ITERATIONS: 10,
    }


def token(number: int) -> str:
    """Return the token that marks one conversation's every message."""
    return f"conv-{number:05d}"


def question(number: int, turn: int) -> str:
    """Return what the user of conversation number says in a turn."""
    prefix = f"{token(number)}, turn {turn}:"
    match LIGHT_TOOLS.get(turn):
        case "intent__HassTurnOn":
            return f"{prefix} turn on the kitchen light."
        case "intent__HassTurnOff":
            return f"{prefix} turn off the kitchen light."
    return f"{prefix} what is {number} times ten plus {turn}?"


def expected_answer(number: int, turn: int) -> str:
    """Return what the user must hear: their own token, their own result."""
    result = "Kitchen light" if turn in LIGHT_TOOLS else str(number * 10 + turn)
    return f"{token(number)} turn {turn}: {result}"


def tokens_in(body: dict[str, Any]) -> set[str]:
    """Return every conversation token anywhere in a request's messages."""
    return set(TOKEN.findall(json.dumps(body["messages"])))


def whose(body: dict[str, Any]) -> tuple[str, int]:
    """Return the token and turn of the user message a request answers."""
    last_user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    found = TURN.match(last_user["content"])
    assert found is not None, last_user
    return found[1], int(found[2])


def since_user(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the tool results the current turn has gathered, decoded."""
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [
        tool_result(m["content"])
        for m in messages[last_user + 1 :]
        if m["role"] == "tool"
    ]


def result_words(result: dict[str, Any]) -> str:
    """Say what a tool result holds: the calculated number or the lights switched."""
    data = result["data"]
    if "result" in data:
        return str(data["result"])
    return " and ".join(target["name"] for target in data["data"]["success"])


@dataclass
class Model:
    """The scripted model: calls the turn's tool, then reads its result back.

    It answers every request after a random latency (seeded), and answers with
    all the tokens it finds in the request, so a mix-up shows in the answer.
    """

    rng: random.Random
    mixed: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: Any) -> ChatReply:
        """Answer one chat request."""
        mine = tokens_in(body)
        if len(mine) != 1:
            self.mixed.append(body)
        number = int(whose(body)[0].removeprefix("conv-"))
        turn = whose(body)[1]
        results = since_user(body)
        reply: ChatReply
        if not results:
            if turn in LIGHT_TOOLS:
                call = Call(LIGHT_TOOLS[turn], {"name": "Kitchen light"})
            else:
                call = Call(CALCULATE, {"expression": f"{number} * 10 + {turn}"})
            reply = ToolCalls([call])
        else:
            echoed = " ".join(sorted(mine))
            reply = Text(f"{echoed} turn {turn}: {result_words(results[-1])}")
        return replace(reply, delay=self.rng.uniform(0, MOST_LATENCY))


@dataclass
class Turn:
    """One turn as the user lived it."""

    number: int
    turn: int
    started: float
    ended: float = 0.0
    answer: str = ""
    error: str | None = None


def percentile(values: list[float], share: float) -> float:
    """Return the value below which share of the values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def hold_conversation(
    hass: HomeAssistant, number: int, active: list[int], peak: list[int]
) -> list[Turn]:
    """Hold one conversation of TURNS turns, each after the last."""
    active[0] += 1
    peak[0] = max(peak[0], active[0])
    turns: list[Turn] = []
    conversation_id: str | None = None
    for turn in range(TURNS):
        lived = Turn(number, turn, time.perf_counter())
        result = await ask(hass, question(number, turn), conversation_id)
        lived.ended = time.perf_counter()
        lived.answer = result.response.speech["plain"]["speech"]
        if result.response.response_type is not intent.IntentResponseType.ACTION_DONE:
            lived.error = str(result.response.error_code)
        conversation_id = result.conversation_id
        turns.append(lived)
    active[0] -= 1
    return turns


@pytest.mark.usefixtures("loaded_entry", "kitchen_light")
async def test_a_hundred_conversations_at_once(
    hass: HomeAssistant, llm_server: LLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    """100 users talk at once, 5 turns each, every turn calling a tool.

    The server takes 0 to 200 ms per request. Every user hears the answer to
    their own question, computed from their own tool result; no request the
    model sees carries anyone else's words.
    """
    # Home Assistant logs at INFO and above by default; the harness's DEBUG
    # records of every streamed delta would be most of the work.
    caplog.set_level(logging.INFO)
    model = Model(random.Random(SEED))  # noqa: S311  # latency, not secrets
    llm_server.responder = model
    active, peak = [0], [0]

    started = time.perf_counter()
    cpu = time.process_time()
    conversations = await asyncio.gather(
        *(
            hold_conversation(hass, number, active, peak)
            for number in range(CONVERSATIONS)
        )
    )
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu

    turns = [turn for chat in conversations for turn in chat]
    assert peak[0] == CONVERSATIONS
    assert [turn for turn in turns if turn.error] == []
    assert [t.answer for t in turns] == [
        expected_answer(t.number, t.turn) for t in turns
    ]
    chats = [r for r in llm_server.requests if r.path == CHAT_PATH]
    # Each turn: one request that calls the tool, one that reads its result.
    assert len(chats) == CONVERSATIONS * TURNS * 2
    assert model.mixed == []
    for request in chats:
        owner, turn = whose(request.json)
        assert tokens_in(request.json) == {owner}
        # The whole conversation so far, and only it, is in the request.
        users = [m for m in request.json["messages"] if m["role"] == "user"]
        assert len(users) == turn + 1
    assert llm_server.unscripted == []
    assert not [
        record
        for record in caplog.records
        if record.levelno >= logging.ERROR
        or (record.levelno >= logging.WARNING and "chatterbox" in record.name)
    ]

    server_time: dict[tuple[str, int], float] = {}
    for request in chats:
        key = whose(request.json)
        server_time[key] = server_time.get(key, 0.0) + request.timing.seconds
    overheads = [
        (t.ended - t.started) - server_time[token(t.number), t.turn] for t in turns
    ]
    in_flight = max_overlap([(r.timing.received, r.timing.finished) for r in chats])
    print(  # noqa: T201  # the figures the issue asks for, seen with -s
        f"\nload: {CONVERSATIONS} conversations x {TURNS} turns at once, "
        f"{len(chats)} requests, server latency 0-{MOST_LATENCY * 1000:.0f} ms: "
        f"{len(turns) / elapsed:.1f} turns/s in {elapsed:.1f} s; overhead per turn "
        f"over the server's time: median {statistics.median(overheads) * 1000:.1f} ms, "
        f"p95 {percentile(overheads, 0.95) * 1000:.1f} ms; "
        f"peak requests in flight {in_flight}; "
        f"{cpu / len(turns) * 1000:.1f} ms CPU per turn (server included)"
    )


def max_overlap(spans: list[tuple[float, float | None]]) -> int:
    """Return how many spans were open at once, at most."""
    edges = sorted(
        [(start, 1) for start, _ in spans]
        + [(end, -1) for _, end in spans if end is not None]
    )
    open_now = most = 0
    for _, change in edges:
        open_now += change
        most = max(most, open_now)
    return most


# Conversations finished in the memory test: two on each device, one after the
# other, so the second starts with the first's memory; every other device also
# asks to unlock the door and never answers the question. 1,000 pass every cap
# (200 per structure) in about 15 s of CPU; the full 10,000 the issue names
# take some 140 s of CPU on a 2-core machine: scripts/test runs them once, on
# its first Home Assistant, with CHATTERBOX_FINISHED=10000.
FINISHED = int(os.environ.get("CHATTERBOX_FINISHED", "1000"))
LOCK = "lock.front_door"
QUESTION = "Do you want me to unlock Front door?"
SATELLITE = "kitchen0satellite0device"
AT_ONCE = 50
UNLOCK_EVERY = 2


@dataclass
class Remembering:
    """The scripted model of the 10,000: answers at once, with the tokens it sees."""

    crossed: list[dict[str, Any]] = field(default_factory=list)
    allowed: dict[str, set[str]] = field(default_factory=dict)

    def __call__(self, body: Any) -> ChatReply:
        """Answer one chat request."""
        owner, _turn = whose(body)
        mine = tokens_in(body)
        if not mine <= self.allowed.get(owner, {owner}):
            self.crossed.append(body)
        last_user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
        if "unlock" in last_user["content"]:
            # The agent asks the question itself: the model is not asked again.
            return ToolCalls([Call("HassTurnOff", {"name": "Front door"})])
        return Text(" ".join(sorted(mine)))


def agent_entity(hass: HomeAssistant) -> ChatterboxConversationEntity:
    """Return the agent's entity, to look at what it keeps."""
    entity = hass.data[CONVERSATION_COMPONENT].get_entity(AGENT_ENTITY_ID)
    assert isinstance(entity, ChatterboxConversationEntity)
    return entity


def kept_per_conversation(entity: ChatterboxConversationEntity) -> dict[str, int]:
    """Count what the agent keeps per conversation, structure by structure."""
    return {
        "compactions": len(entity.conversations.compactions),
        "recalled": len(entity.conversations.recalled),
        "pending": len(entity.conversations.pending),
    }


def alive(kind: type) -> int:
    """Count the objects of a kind that are still alive."""
    gc.collect()
    return sum(1 for item in gc.get_objects() if isinstance(item, kind))


async def say_from(
    hass: HomeAssistant, text: str, device_id: str, conversation_id: str | None = None
) -> conversation.ConversationResult:
    """Say one sentence from a device; a new conversation unless one is named."""
    return await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            conversation_id,
            Context(),
            agent_id=AGENT_ENTITY_ID,
            language="en",
            device_id=device_id,
        )
    )


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            CONF_MODEL: MODELS[0],
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_MEMORY: MEMORY_DEVICE,
        }
    ],
)
@pytest.mark.usefixtures("guarded_home")
async def test_what_is_left_after_thousands_of_conversations(
    hass: HomeAssistant,
    llm_server: LLMServer,
    loaded_entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Thousands of conversations leave at most the caps behind, none once HA forgets.

    Each device holds two conversations, the second starting with the memory
    of the first; every other device asks to unlock the door and never answers
    the question. Per-conversation state (compaction, recalled memory, a held
    call) stays under its cap, memories under the store's limit, and once
    Home Assistant drops its idle chat logs, the agent holds none of theirs.
    """
    caplog.set_level(logging.INFO)
    model = Remembering()
    llm_server.responder = model
    wrong: list[str] = []
    devices = iter(range(FINISHED // 2))

    async def user() -> None:
        for device in devices:
            first, second = token(2 * device), token(2 * device + 1)
            model.allowed[second] = {first, second}
            unlock = device % UNLOCK_EVERY == 0
            text = "unlock the front door." if unlock else f"my name is {first}."
            said = await say_from(hass, f"{first}, turn 0: {text}", f"dev{device}")
            heard = said.response.speech["plain"]["speech"]
            if heard != (QUESTION if unlock else first):
                wrong.append(heard)
            said = await say_from(
                hass, f"{second}, turn 0: what is my name?", f"dev{device}"
            )
            heard = said.response.speech["plain"]["speech"]
            if heard != f"{first} {second}":
                wrong.append(heard)

    started = time.perf_counter()
    cpu = time.process_time()
    await asyncio.gather(*(user() for _ in range(AT_ONCE)))
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu

    assert wrong == []
    assert model.crossed == []
    assert hass.states.get(LOCK).state == "locked"
    entity = agent_entity(hass)
    kept = kept_per_conversation(entity)
    assert kept == {
        "compactions": MAX_TRACKED_CONVERSATIONS,
        "recalled": MAX_TRACKED_CONVERSATIONS,
        "pending": MAX_TRACKED_CONVERSATIONS,
    }
    memories = len(loaded_entry.runtime_data.memory.keys())
    assert memories == MAX_MEMORIES
    assert len(loaded_entry.runtime_data.recent_turns) == RECENT_TURNS
    # Nothing of a turn outlives it.
    assert alive(ToolGuard) == 0
    print(  # noqa: T201  # the figures the issue asks for, seen with -s
        f"\nmemory: {FINISHED} conversations ({len(llm_server.chat_requests)} "
        f"requests) in {elapsed:.1f} s, {FINISHED / elapsed:.0f}/s, "
        f"{cpu / FINISHED * 1000:.1f} ms CPU each; kept per conversation {kept}, "
        f"memories {memories}, Home Assistant's chat logs "
        f"{len(hass.data[DATA_CHAT_LOGS])}"
    )

    # Home Assistant drops chat logs idle for 5 minutes; ours go with them.
    await forget_idle_conversations(hass)
    assert hass.data[DATA_CHAT_LOGS] == {}
    assert kept_per_conversation(entity) == {
        "compactions": 0,
        "recalled": 0,
        "pending": 0,
    }
    assert len(loaded_entry.runtime_data.memory.keys()) == MAX_MEMORIES


async def forget_idle_conversations(hass: HomeAssistant) -> None:
    """Let Home Assistant drop the chat logs idle for more than 5 minutes."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=6))
    await hass.async_block_till_done()


@pytest.mark.usefixtures("loaded_entry", "guarded_home")
async def test_a_held_unlock_goes_when_home_assistant_forgets_the_conversation(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """A question nobody answered is not answered by a later conversation's yes.

    The kitchen satellite keeps its own conversation id. The user asks to
    unlock the door, hears the question, and walks away; Home Assistant
    forgets the idle conversation. Later a new conversation under the same id
    starts with "Yes": the model hears a plain yes, and the door stays locked.
    """
    llm_server.reply(ToolCalls([Call("HassTurnOff", {"name": "Front door"})]))
    said = await say_from(hass, "Unlock the front door", SATELLITE, "kitchen")
    assert said.response.speech["plain"]["speech"] == QUESTION

    await forget_idle_conversations(hass)
    llm_server.reply(Text("Yes to what?"))
    said = await say_from(hass, "Yes", SATELLITE, "kitchen")

    assert said.response.speech["plain"]["speech"] == "Yes to what?"
    assert hass.states.get(LOCK).state == "locked"
    roles = [m["role"] for m in llm_server.last_chat_request["messages"]]
    assert roles == ["system", "user"]
