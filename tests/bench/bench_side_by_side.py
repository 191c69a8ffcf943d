"""Chatterbox side by side with Home Assistant's llama_cpp agent: one table.

Run it with scripts/bench. It is a pytest module so that it gets the test
harness's real Home Assistant, but its name keeps it out of the test suite.

Both agents run in the same Home Assistant against the same scripted server,
and their turns alternate (ABAB, the order flipping every pair), so that the
noise of a busy machine hits both alike and the ratios stay fair.
"""

import asyncio
from collections.abc import Awaitable, Callable, Generator, Sequence
import datetime as dt
from itertools import cycle, islice
import logging
import os
from pathlib import Path
import platform
import random
import statistics
import sys
import time
from typing import override

import pytest

from homeassistant import const as ha_const
from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.context.in_view import states_note
from custom_components.chatterbox.context.mentions import find_mentions
from custom_components.chatterbox.context.overview import (
    overview_cache_clear,
    overview_for,
)
from tests.conftest import API_KEY
from tests.helpers.llm_server import LLMServer

from .home import (
    AGENTS,
    MODEL,
    N_CTX,
    Agent,
    add_plugs,
    async_build_home,
    async_grow_home,
    chatterbox_entry,
    core_entry,
)
from .measure import Turn, async_conversation, async_turn, match_requests, rss_peak
from .prefix import prefix_breaks, prefix_stability
from .report import Figure, Row, Table, percentile
from .scenarios import (
    CHAIN,
    HOUSEHOLD,
    HOUSEHOLD_QUESTIONS,
    LIGHT,
    PLAIN,
    Responder,
    streaming,
    tokens,
    with_delay,
    with_latency,
)

QUICK = os.environ.get("BENCH_QUICK") == "1"
RUNS = 2 if QUICK else 5  # repeated runs behind each figure
TURNS_PER_RUN = 5 if QUICK else 40  # per agent and scenario: 5 x 40 = 200 turns
WARM_UP = 3
STREAM_TURNS_PER_RUN = 2 if QUICK else 4
TOKEN_DELAY = 0.02
STREAMED_ANSWER = "Sure. The kitchen light is on and the door is locked."
CONVERSATION_TURNS = 20
CONVERSATION_RUNS = 1 if QUICK else 3
# Every request of the 20-turn conversation takes this long at the server, so
# that the time a summary adds to its turn reads as a number of requests.
CONVERSATION_LATENCY = 0.03
CONCURRENT = 20 if QUICK else 100
CONCURRENT_TURNS = 5
CONCURRENT_RUNS = 1 if QUICK else 2
CONCURRENT_LATENCY = 0.2
BIG_HOME = 500
# Large homes: the first request's size at each, and at the largest a
# conversation's prefix stability and what Chatterbox's large-home steps cost.
LARGE_HOMES = (100, 300)
LARGEST_HOME = 1000
LARGE_HOME_TURNS = 10
LARGE_HOME_TALK = (
    "Turn on the kitchen light.",
    "Is the office fan 9 on?",
    "Turn off the garden ceiling fan 100.",
    "What is on in the house right now?",
    "Thanks.",
)
BIG_HOME_TURNS = 2 if QUICK else 10  # per run: a plain turn, to show the prompt's cost
SMALL_HOME = 50
# Floors, as ratios of Chatterbox's figure to core's: no more overhead per turn
# than core in any scenario, and at least core's turns per second under
# concurrency.
OVERHEAD_FLOOR = 1.0
THROUGHPUT_FLOOR = 1.0
OUTPUT = Path(os.environ.get("BENCH_OUTPUT", ".cache/bench/latest.md"))

SCENARIOS = (
    ("plain answer", PLAIN, "What is the weather like today?"),
    ("one tool call", LIGHT, "Turn on the kitchen light."),
    ("3 chained tool calls", CHAIN, "Turn on the kitchen light, off the office lamp."),
)


@pytest.fixture(autouse=True)
async def enable_event_loop_debug() -> None:
    """Run the loop as Home Assistant does: without asyncio's debug mode.

    The test plugin turns debug mode on for every test; it slows every callback.
    """
    asyncio.get_running_loop().set_debug(False)


@pytest.fixture(autouse=True)
def quiet_logging(caplog: pytest.LogCaptureFixture) -> Generator[None]:
    """Log only warnings and errors, whatever level a logger is set to.

    Home Assistant logs at INFO, and the test plugin sets the root logger to
    DEBUG for a test that captures logs, as every test of the suite does (the
    check that the API key is never logged reads each record): both agents'
    requests would fill the terminal and the captured records, and formatting
    them would be time spent by neither agent. Dropped at the source, they cost
    both the same: nothing. After caplog, whose DEBUG level lifts an earlier
    logging.disable.
    """
    logging.disable(logging.INFO)
    yield
    logging.disable(logging.NOTSET)


def _ordered(index: int) -> Sequence[Agent]:
    """Return both agents, the first one changing with every index."""
    return AGENTS if index % 2 == 0 else AGENTS[::-1]


def _ms(seconds: Sequence[float]) -> list[float]:
    """Convert seconds to milliseconds."""
    return [s * 1000 for s in seconds]


class Bench:
    """The benchmark: one Home Assistant, one server, both agents, one table."""

    def __init__(self, hass: HomeAssistant, server: LLMServer) -> None:
        """Measure these agents in this Home Assistant against this server."""
        self.hass = hass
        self.server = server
        self.table = Table()
        self.failures: list[str] = []
        self.notes: list[str] = []

    async def async_turn(
        self, agent: Agent, text: str, conversation_id: str | None = None
    ) -> Turn:
        """Run one turn with an agent."""
        return await async_turn(
            self.hass, self.server, agent.entity_id, text, conversation_id
        )

    def use(self, responder: Responder) -> None:
        """Script the server for the next measure and forget earlier requests."""
        self.server.responder = responder
        self.server.requests.clear()

    async def async_overhead(
        self,
        home: int,
        scenarios: Sequence[tuple[str, Responder, str]],
        turns: int = TURNS_PER_RUN,
    ) -> None:
        """Overhead per turn: wall time minus the server's time, per scenario."""
        for name, responder, text in scenarios:
            self.use(responder)
            for index in range(WARM_UP * 2):
                await self.async_turn(_ordered(index)[0], text)
            runs: dict[Agent, list[list[float]]] = {agent: [] for agent in AGENTS}
            cpu: dict[Agent, list[list[float]]] = {agent: [] for agent in AGENTS}
            for run in range(RUNS):
                for agent in AGENTS:
                    runs[agent].append([])
                    cpu[agent].append([])
                for index in range(turns):
                    for agent in _ordered(run + index):
                        turn = await self.async_turn(agent, text)
                        runs[agent][run].append(turn.overhead)
                        cpu[agent][run].append(turn.cpu)
                self.server.requests.clear()
            self._overhead_rows(f"{name}, {home} entities", runs, cpu)

    def _overhead_rows(
        self,
        name: str,
        runs: dict[Agent, list[list[float]]],
        cpu: dict[Agent, list[list[float]]],
    ) -> None:
        """Add the median, p95 and CPU rows of one overhead scenario."""
        ours, core = (runs[agent] for agent in AGENTS)
        medians = {a: [statistics.median(_ms(r)) for r in runs[a]] for a in AGENTS}
        p95s = {a: [percentile(_ms(r), 0.95) for r in runs[a]] for a in AGENTS}
        cpus = {a: [statistics.median(_ms(r)) for r in cpu[a]] for a in AGENTS}
        ratios = tuple(
            statistics.median(a) / statistics.median(b)
            for a, b in zip(ours, core, strict=True)
        )
        turns = sum(len(r) for r in ours)
        median_row = Row(
            f"Overhead per turn, {name}: median of {turns}",
            *(Figure.of(medians[a]) for a in AGENTS),
            " ms",
            2,
            ratios,
        )
        self.table.add(median_row)
        self.table.add(
            Row(
                f"Overhead per turn, {name}: p95",
                *(Figure.of(p95s[a]) for a in AGENTS),
                " ms",
                2,
            )
        )
        self.table.add(
            Row(
                f"CPU of the loop's thread per turn, {name}: median",
                *(Figure.of(cpus[a]) for a in AGENTS),
                " ms",
                2,
            )
        )
        extra = statistics.median(medians[AGENTS[0]]) - statistics.median(
            medians[AGENTS[1]]
        )
        self.notes.append(
            f"Overhead per turn, {name}: Chatterbox takes {extra:+.1f} ms "
            "compared with core (median of the run medians)."
        )
        ratio = median_row.ratio
        if ratio is not None and ratio > OVERHEAD_FLOOR:
            self.failures.append(
                f"overhead per turn ({name}) is {ratio:.2f}x core's, "
                f"above the {OVERHEAD_FLOOR}x floor"
            )

    async def async_streaming(self) -> None:
        """Streaming pass-through, at the chat log's delta listener."""
        self.use(streaming(TOKEN_DELAY, STREAMED_ANSWER))
        first: dict[Agent, list[list[float]]] = {agent: [] for agent in AGENTS}
        last: dict[Agent, list[list[float]]] = {agent: [] for agent in AGENTS}
        for run in range(RUNS):
            for agent in AGENTS:
                first[agent].append([])
                last[agent].append([])
            for index in range(STREAM_TURNS_PER_RUN):
                for agent in _ordered(run + index):
                    turn = await self.async_turn(agent, "Is the kitchen light on?")
                    (request,) = turn.requests
                    assert turn.first_content is not None
                    first[agent][run].append(
                        turn.first_content - request.timing.tokens[0]
                    )
                    last[agent][run].append(turn.ended - request.timing.tokens[-1])
        for label, values in (
            ("server's first token → first delta", first),
            ("server's last token → end of turn", last),
        ):
            self.table.add(
                Row(
                    f"Streaming, {label}: median",
                    *(
                        Figure.of([statistics.median(_ms(r)) for r in values[a]])
                        for a in AGENTS
                    ),
                    " ms",
                    2,
                )
            )

    async def async_conversation(self) -> None:
        """Request growth and prefix stability over a 20-turn conversation."""
        sizes: dict[Agent, list[list[tuple[int, int]]]] = {a: [] for a in AGENTS}
        stable: dict[Agent, list[float]] = {a: [] for a in AGENTS}
        side_per_turn: list[float] = []
        summary_cost: list[float] = []
        questions = list(islice(cycle(HOUSEHOLD_QUESTIONS), CONVERSATION_TURNS))
        for run in range(CONVERSATION_RUNS):
            for agent in _ordered(run):
                self.use(with_delay(HOUSEHOLD, CONVERSATION_LATENCY))
                turns: list[Turn] = []
                conversation_id = None
                for text in questions:
                    turn = await self.async_turn(agent, text, conversation_id)
                    conversation_id = turn.conversation_id
                    turns.append(turn)
                last_requests = [turn.requests[-1] for turn in turns]
                sizes[agent].append([(r.size, tokens(r.json)) for r in last_requests])
                main = [body for turn in turns for body in turn.main]
                stable[agent].append(prefix_stability(main))
                if run == 0:
                    breaks = prefix_breaks(main)
                    listed = "; ".join(f"{n}x {why}" for why, n in breaks.items())
                    self.notes.append(
                        f"Prefix breaks for {agent.name} over {len(main)} "
                        f"requests: {listed or 'none'}."
                    )
                if agent is AGENTS[0]:
                    side_per_turn.append(max(len(turn.side) for turn in turns))
                    summary_cost.extend(_summary_cost(turns))
        self._growth_rows(sizes)
        self.table.add(
            Row(
                "Prefix stability: requests that start with the previous one",
                *(Figure.of(stable[a]) for a in AGENTS),
                " %",
                0,
            )
        )
        self.table.add(
            Row(
                "Summary side requests in one turn, at most",
                Figure.of(side_per_turn),
                None,
                digits=0,
            )
        )
        if summary_cost:
            self.table.add(
                Row(
                    "Time a summary adds to its turn, in server requests "
                    f"({CONVERSATION_LATENCY * 1000:.0f} ms each)",
                    Figure.of(summary_cost),
                    None,
                    digits=2,
                )
            )
        else:
            self.notes.append("No summary happened in the 20-turn conversation.")

    def _growth_rows(self, sizes: dict[Agent, list[list[tuple[int, int]]]]) -> None:
        """Add the request size rows of turns 1, 5, 10 and 20."""
        for number in (1, 5, 10, 20):
            runs = {a: [run[number - 1] for run in sizes[a]] for a in AGENTS}
            row = Row(
                f"Request at turn {number}, 50 entities: bytes",
                *(Figure.of([size for size, _ in runs[a]]) for a in AGENTS),
                digits=0,
            )
            self.table.add(row)
            self.table.add(
                Row(
                    f"Request at turn {number}: estimated tokens",
                    *(Figure.of([est for _, est in runs[a]]) for a in AGENTS),
                    digits=0,
                )
            )
            if (
                number == CONVERSATION_TURNS
                and row.chatterbox is not None
                and row.core is not None
                and row.chatterbox.median > row.core.median
            ):
                self.failures.append(
                    f"the request at turn {number} is bigger than core's "
                    f"({row.chatterbox.median:,.0f} > {row.core.median:,.0f} bytes)"
                )

    async def async_concurrency(self) -> None:
        """Many conversations at once, with a server of random latency."""
        rates: dict[Agent, list[float]] = {a: [] for a in AGENTS}
        p95s: dict[Agent, list[float]] = {a: [] for a in AGENTS}
        memory: dict[Agent, list[float]] = {a: [] for a in AGENTS}
        for run in range(CONCURRENT_RUNS):
            for agent in _ordered(run):
                self.use(
                    with_latency(PLAIN, random.Random(run), CONCURRENT_LATENCY)  # noqa: S311
                )
                texts = [
                    [
                        f"Weather, please ({agent.entity_id} {run} {c} {t})?"
                        for t in range(CONCURRENT_TURNS)
                    ]
                    for c in range(CONCURRENT)
                ]
                with rss_peak() as rss:
                    started = time.perf_counter()
                    conversations = await asyncio.gather(
                        *(
                            async_conversation(self.hass, agent.entity_id, chat)
                            for chat in texts
                        )
                    )
                    elapsed = time.perf_counter() - started
                turns = [turn for chat in conversations for turn in chat]
                match_requests(turns, self.server)
                rates[agent].append(len(turns) / elapsed)
                p95s[agent].append(percentile(_ms([t.overhead for t in turns]), 0.95))
                memory[agent].append(rss.growth / CONCURRENT * 1000 / 2**20)
        label = f"{CONCURRENT} conversations x {CONCURRENT_TURNS} turns at once"
        ours, core = (rates[agent] for agent in AGENTS)
        rate_row = Row(
            f"Concurrency, {label}: turns per second",
            *(Figure.of(rates[a]) for a in AGENTS),
            digits=0,
            paired_ratios=tuple(a / b for a, b in zip(ours, core, strict=True)),
        )
        self.table.add(rate_row)
        ratio = rate_row.ratio
        if ratio is not None and ratio < THROUGHPUT_FLOOR:
            self.failures.append(
                f"concurrency throughput is {ratio:.2f}x core's, "
                f"below the {THROUGHPUT_FLOOR}x floor"
            )
        self.table.add(
            Row(
                f"Concurrency, {label}: overhead p95",
                *(Figure.of(p95s[a]) for a in AGENTS),
                " ms",
                1,
            )
        )
        self.table.add(
            Row(
                "Concurrency: peak RSS growth per 1,000 conversations",
                *(Figure.of(memory[a]) for a in AGENTS),
                " MiB",
                1,
            )
        )

    async def async_large_conversation(self, home: int) -> None:
        """Prefix stability and the last request over a conversation, large home."""
        stable: dict[Agent, list[float]] = {a: [] for a in AGENTS}
        last: dict[Agent, list[int]] = {a: [] for a in AGENTS}
        talk = list(islice(cycle(LARGE_HOME_TALK), LARGE_HOME_TURNS))
        for run in range(CONVERSATION_RUNS):
            for agent in _ordered(run):
                self.use(HOUSEHOLD)
                conversation_id = None
                bodies = []
                for text in talk:
                    turn = await self.async_turn(agent, text, conversation_id)
                    conversation_id = turn.conversation_id
                    bodies.extend(turn.main)
                stable[agent].append(prefix_stability(bodies))
                last[agent].append(max(tokens(body) for body in bodies))
        self.table.add(
            Row(
                f"Prefix stability, {LARGE_HOME_TURNS} turns, {home} entities",
                *(Figure.of(stable[a]) for a in AGENTS),
                " %",
                0,
            )
        )
        self.table.add(
            Row(
                f"Largest request of those turns, {home} entities: estimated tokens",
                *(Figure.of(last[a]) for a in AGENTS),
                digits=0,
            )
        )

    async def async_large_home_steps(self, home: int) -> None:
        """Time what Chatterbox adds to a turn in a large home, step by step.

        The overview of the Assist API's prompt (the first time for a home,
        then from its cache), the names the request mentions, and its note.
        """
        context = llm.LLMContext(
            platform="chatterbox",
            context=None,
            language="en",
            assistant=conversation.DOMAIN,
            device_id=None,
        )
        api = await llm.async_get_api(self.hass, llm.LLM_API_ASSIST, context)
        system = api.api_prompt
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(RUNS):
            overview_cache_clear()
            started = time.perf_counter()
            overview_for(self.hass, system, window=N_CTX, share=25)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            overview_for(self.hass, system, window=N_CTX, share=25)
            mentions = find_mentions(
                self.hass, "Turn off the garden ceiling fan 100", language="en"
            )
            states_note(self.hass, mentions, with_states=False)
            warm.append(time.perf_counter() - started)
        self.table.add(
            Row(
                f"Large-home steps per turn, {home} entities: overview, mentions "
                "and note",
                Figure.of(_ms(warm)),
                None,
                " ms",
                2,
            )
        )
        self.table.add(
            Row(
                f"Overview of a home changed since the last turn, {home} entities",
                Figure.of(_ms(cold)),
                None,
                " ms",
                2,
            )
        )

    async def async_prompt_cost(self, home: int) -> None:
        """Measure a first request, which the Assist API's prompt dominates."""
        self.use(PLAIN)
        sizes: dict[Agent, list[tuple[int, int]]] = {a: [] for a in AGENTS}
        for run in range(RUNS):
            for agent in _ordered(run):
                turn = await self.async_turn(agent, "What is the weather like?")
                (request,) = turn.requests
                sizes[agent].append((request.size, tokens(request.json)))
        self.table.add(
            Row(
                f"Turn 1 request, {home} entities: bytes",
                *(Figure.of([s for s, _ in sizes[a]]) for a in AGENTS),
                digits=0,
            )
        )
        self.table.add(
            Row(
                f"Turn 1 request, {home} entities: estimated tokens",
                *(Figure.of([t for _, t in sizes[a]]) for a in AGENTS),
                digits=0,
            )
        )


def _summary_cost(turns: list[Turn]) -> list[float]:
    """Return, per turn that summarized, its extra time in server requests.

    A turn is compared with the median of the turns of the same question that
    did not summarize.
    """
    plain: dict[str, list[float]] = {}
    for turn in turns:
        if not turn.side:
            plain.setdefault(turn.text, []).append(turn.wall)
    return [
        (turn.wall - statistics.median(plain[turn.text])) / CONVERSATION_LATENCY
        for turn in turns
        if turn.side and turn.text in plain
    ]


class _HoldBack(logging.Filter):
    """Count, and keep off the terminal, a warning that repeats every turn."""

    def __init__(self, fragment: str) -> None:
        """Hold back the records whose message contains fragment."""
        super().__init__()
        self.fragment = fragment
        self.count = 0

    @override
    def filter(self, record: logging.LogRecord) -> bool:
        """Let a record through unless it is the repeating warning."""
        if self.fragment in record.getMessage():
            self.count += 1
            return False
        return True


async def _timed(
    label: str, step: Callable[[], Awaitable[None]], timings: dict[str, float]
) -> None:
    """Run a step of the benchmark, noting how long it took."""
    started = time.perf_counter()
    await step()
    timings[label] = time.perf_counter() - started


async def test_side_by_side(hass: HomeAssistant, socket_enabled: None) -> None:
    """Measure both agents, print the table, and hold Chatterbox to its floors."""
    started = time.perf_counter()
    load_before = os.getloadavg()
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    async with LLMServer(models=[MODEL], api_key=API_KEY) as server:
        server.props = {"n_ctx": N_CTX}
        server.tokenizer = tokens
        await async_build_home(hass, SMALL_HOME)
        for entry in (chatterbox_entry(server.url), core_entry(server.url)):
            entry.add_to_hass(hass)
            assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        for agent in AGENTS:
            assert hass.states.get(agent.entity_id) is not None, agent
        bench = Bench(hass, server)
        timings: dict[str, float] = {"setup": time.perf_counter() - started}
        await _timed("overhead", lambda: bench.async_overhead(50, SCENARIOS), timings)
        await _timed("streaming", bench.async_streaming, timings)
        await _timed("conversation", bench.async_conversation, timings)
        await _timed("concurrency", bench.async_concurrency, timings)
        await _timed("prompt 50", lambda: bench.async_prompt_cost(50), timings)
        for home in LARGE_HOMES:
            add_plugs(hass, home)
            await _timed(
                f"prompt {home}",
                lambda home=home: bench.async_prompt_cost(home),
                timings,
            )
        await async_grow_home(hass, BIG_HOME)
        over_window = _HoldBack("context window leaves")
        chatterbox_log = logging.getLogger("custom_components.chatterbox")
        chatterbox_log.addFilter(over_window)
        await _timed("prompt 500", lambda: bench.async_prompt_cost(500), timings)
        await _timed(
            "overhead 500",
            lambda: bench.async_overhead(BIG_HOME, SCENARIOS[:1], BIG_HOME_TURNS),
            timings,
        )
        add_plugs(hass, LARGEST_HOME)
        await hass.async_block_till_done()
        await _timed(
            f"prompt {LARGEST_HOME}",
            lambda: bench.async_prompt_cost(LARGEST_HOME),
            timings,
        )
        await _timed(
            f"conversation {LARGEST_HOME}",
            lambda: bench.async_large_conversation(LARGEST_HOME),
            timings,
        )
        await _timed(
            f"steps {LARGEST_HOME}",
            lambda: bench.async_large_home_steps(LARGEST_HOME),
            timings,
        )
        chatterbox_log.removeFilter(over_window)
        if over_window.count:
            bench.notes.append(
                f"With {BIG_HOME} entities, Chatterbox warned {over_window.count} "
                f"times that the prompt alone exceeds the budget of the {N_CTX}-token "
                "window the server reports; core sends it without a word."
            )
        server.responder = None
    total = time.perf_counter() - started
    report = _report(bench, timings, total, load_before)
    sys.stdout.write("\n" + report + "\n")
    await hass.async_add_executor_job(_write, report)
    # A quick run has too few turns for its ratios to hold anyone to a floor.
    assert QUICK or not bench.failures, "; ".join(bench.failures)


def _write(report: str) -> None:
    """Keep the latest table for the README."""
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(report + "\n", encoding="utf-8")


def _report(
    bench: Bench,
    timings: dict[str, float],
    total: float,
    load_before: tuple[float, float, float],
) -> str:
    """Return the table with what it was measured on and how long each part took."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = ", ".join(f"{label} {seconds:.0f} s" for label, seconds in timings.items())
    load = os.getloadavg()
    lines = [
        f"Measured {when} on Home Assistant {ha_const.__version__}, Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs "
        f"(load {load_before[0]:.1f} before, {load[0]:.1f} after)"
        + (", QUICK mode" if QUICK else ""),
        "",
        bench.table.markdown(),
        "",
        (
            "Figures are medians of repeated runs, the range of the runs in "
            "parentheses; ratio is Chatterbox / core (for overhead and turns per "
            "second, the median of the ratios of runs taken side by side)."
        ),
        "",
        *(f"- {note}" for note in bench.notes),
        "",
        f"Took {total:.0f} s in the benchmark ({parts}).",
    ]
    if bench.failures:
        lines.append(
            "FLOOR MISSED: "
            + "; ".join(bench.failures)
            + (" (not enforced in QUICK mode)" if QUICK else "")
        )
    return "\n".join(lines)
