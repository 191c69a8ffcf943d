"""Recorded runs played back through an agent in the harness's Home Assistant.

The scripted test server stands in for the recorded model: each chat request
of a case gets the next recorded assistant message, its calls named as the
request offers the tools (Home Assistant's `HassTurnOn` may be offered under
a prefix, `intent__HassTurnOn`), its last the recorded answer. An agent that
asks for a round more than the model took (a check's note) gets the recorded
answer again, as from a model that stands by what it said, and the round is
counted. Each home is built alone, each case starts from the home's starting
states with the case's setup over them, and is played as the dataset's play
plays it: a "yes" is said to Chatterbox's question before a sensitive action.
"""

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er, llm

from custom_components.chatterbox.const import TOOL_MODE_NATIVE
from tests.conftest import server_entry
from tests.helpers.llm_server import Call, ChatReply, LLMServer, Text, ToolCalls

from .dataset import DatasetCase, Home, Snapshot, describe, unexpected_changes
from .dataset_home import (
    BuiltHome,
    async_build_home,
    async_remove_home,
    async_reset,
    async_set_states,
    snapshot,
)
from .dataset_play import async_play_case
from .home import agent_options, async_set_tool_mode
from .proxy import RecordingProxy
from .replay import RecordedMessage, RecordedRun, Replay

ASSIST = [llm.LLM_API_ASSIST]
CHATTERBOX = "Chatterbox"
CORE = "core llama_cpp"
# What Chatterbox traces of every round, of the devices a request names and of
# a large home's overview: what a turn was, not a check that acted on it.
ROUTINE_KEYS = frozenset(
    {"chatterbox_iteration", "chatterbox_states_in_view", "chatterbox_home_overview"}
)


class ReplayedModel:
    """The recorded model of one case, answering the agent's chat requests.

    The server consults it for every chat request: the first gets the
    recorded first message, and so on; a request beyond the recording gets
    the recorded answer again.
    """

    def __init__(self, run: RecordedRun) -> None:
        """Stand in for the model of a recorded run; nothing asked yet."""
        self.run = run
        self.requests = 0

    def __call__(self, body: Any) -> ChatReply:
        """Answer the next request with the next recorded message."""
        index = min(self.requests, self.run.rounds - 1)
        self.requests += 1
        return as_reply(self.run.messages[index], offered(body))


def offered(body: Any) -> list[str]:
    """Return the names of the tools a chat request offers."""
    tools = body.get("tools") if isinstance(body, dict) else None
    return [
        str(tool["function"]["name"])
        for tool in tools or ()
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
    ]


def offered_name(name: str, names: Sequence[str]) -> str:
    """Return the name under which a request offers the tool a model named.

    The tool itself, or the one offered tool that carries a prefix before it
    (`intent__HassTurnOn`); a tool not offered keeps its recorded name, and
    the agent answers it as it answers a model that names an unknown tool.
    """
    if name in names:
        return name
    prefixed = [offer for offer in names if offer.endswith(f"__{name}")]
    return prefixed[0] if len(prefixed) == 1 else name


def as_reply(message: RecordedMessage, names: Sequence[str]) -> ChatReply:
    """Return a recorded message as the server sends it, its tools as offered."""
    if not message.calls:
        return Text(message.content or "")
    return ToolCalls(
        [Call(offered_name(c.name, names), dict(c.arguments)) for c in message.calls],
        content=message.content or None,
    )


@dataclass
class Replayed:
    """One recorded run as an agent played it back."""

    agent: str
    replay: Replay
    reasons: list[str]  # what differs from the case's expected states; none: passed
    answers: list[str]  # what the user heard, a turn each (two after a "yes")
    tools: list[str]  # the calls the agent made, as it named them
    requests: int  # the chat requests the agent sent for the case
    keys: list[str]  # the checks' trace keys that fired, in the order they did
    after: Snapshot  # the home's states when the case ended

    @property
    def run(self) -> RecordedRun:
        """Return the recorded run."""
        return self.replay.run

    @property
    def passed(self) -> bool:
        """Tell whether the home ended as the case expects."""
        return not self.reasons

    @property
    def heard(self) -> str:
        """Return what the user heard last."""
        return self.answers[-1] if self.answers else ""

    @property
    def asked_yes(self) -> bool:
        """Tell whether the agent asked for a yes, and the user said it."""
        return len(self.answers) > 1

    @property
    def untouched(self) -> bool:
        """Tell whether the user heard the recorded answer, word for word.

        After a "yes" the answer to it counts: the question before is the
        agent's own, and expected of a sensitive action.
        """
        return self.heard.split() == self.run.answer.split()

    @property
    def extra(self) -> int:
        """Return the rounds the agent asked for beyond the recorded ones."""
        return max(0, self.requests - self.run.rounds)


@asynccontextmanager
async def replay_server(
    models: Sequence[str],
) -> AsyncIterator[tuple[LLMServer, RecordingProxy]]:
    """Run the scripted server, and the proxy the agents reach it through.

    The server lists the recorded models by their names. The proxy is the
    eval's: it counts each turn's requests as the dataset's play reads them.
    """
    async with (
        LLMServer(models=list(models)) as server,
        RecordingProxy(server.url.removesuffix("/v1")) as proxy,
    ):
        yield server, proxy


async def async_add_chatterbox(
    hass: HomeAssistant, url: str, model: str
) -> tuple[ConfigEntry, str]:
    """Add Chatterbox for the server, in native tool mode with Assist alone.

    Its model is the recorded one, by name: what Chatterbox makes of a model's
    name (its size) is part of what it does with that model. Returns its
    entry and its conversation entity, its capability probe done.
    """
    entry = server_entry(url, agent_options(model, TOOL_MODE_NATIVE, ASSIST))
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)
    agent = next(
        item.entity_id
        for item in er.async_entries_for_config_entry(
            er.async_get(hass), entry.entry_id
        )
        if item.domain == conversation.DOMAIN
    )
    return entry, agent


async def async_serve(hass: HomeAssistant, entry: ConfigEntry, model: str) -> None:
    """Have Chatterbox's agent speak to another recorded model (the entry reloads)."""
    await async_set_tool_mode(hass, entry, model, TOOL_MODE_NATIVE, ASSIST)
    await hass.async_block_till_done(wait_background_tasks=True)


async def async_replay(
    hass: HomeAssistant,
    server: LLMServer,
    proxy: RecordingProxy,
    agents: Mapping[str, str],
    replays: Sequence[Replay],
) -> list[Replayed]:
    """Play every recorded run with every agent (by name: its conversation entity).

    The homes are built one at a time, in the order their runs first come.
    """
    homes: dict[str, tuple[Home, list[Replay]]] = {}
    for replay in replays:
        homes.setdefault(replay.home.name, (replay.home, []))[1].append(replay)
    played = []
    for home, mine in homes.values():
        built = await async_build_home(hass, home)
        try:
            for replay in mine:
                for name, agent_id in agents.items():
                    await async_reset(hass, built, home)
                    await async_set_states(hass, built, replay.case.setup)
                    played.append(
                        await _async_play(
                            hass, server, proxy, (name, agent_id), replay, built
                        )
                    )
        finally:
            await async_remove_home(hass, built)
    return played


async def _async_play(
    hass: HomeAssistant,
    server: LLMServer,
    proxy: RecordingProxy,
    agent: tuple[str, str],
    replay: Replay,
    built: BuiltHome,
) -> Replayed:
    """Play one recorded run with an agent (its name, its conversation entity)."""
    model = ReplayedModel(replay.run)
    server.responder = model
    try:
        reasons, answers, tools, turns = await async_play_case(
            hass, proxy, agent[1], replay.case, built
        )
    finally:
        server.responder = None
    return Replayed(
        agent[0],
        replay,
        reasons,
        answers,
        tools,
        model.requests,
        fired(len(turns)),
        snapshot(hass, built),
    )


def fired(turns: int) -> list[str]:
    """Return the checks' trace keys of the last turns, in the order they fired."""
    traces = async_get_traces()[-turns:] if turns else []
    keys = [
        key
        for trace in traces
        for event in trace.as_dict()["events"]
        for key in event.get("data") or {}
        if key.startswith("chatterbox_") and key not in ROUTINE_KEYS
    ]
    return list(dict.fromkeys(keys))


def differences(ours: Replayed, theirs: Replayed) -> list[str]:
    """Say where one agent left the home otherwise than another did.

    Read by the dataset's scorer, with the other's end as the expected one:
    "valve.x state is 'closed', not 'open'" says the first left it closed.
    """
    case = ours.replay.case
    blank = DatasetCase(case.id, case.home, case.category, case.sentence)
    return describe(unexpected_changes(theirs.after, ours.after, blank))
