"""Chatterbox and core's llama_cpp on a real model, over the same cases.

Run it with scripts/eval. It is a pytest module so that it gets the test
harness's real Home Assistant (and its aiohttp mock, which plays Open-Meteo);
its name keeps it out of the test suite. The model is the demo's, served by
llama.cpp as the demo serves it, first with the demo's fenced-JSON template
(tool calls come back as real tool_calls), then with the model's stock
template (they come back as text). With each template each agent plays every
case in turn, the other agent's column after it (they take turns to go first
over repeats); a recording proxy notes what the server read.

The server has one slot, as the demo's does: were the agents to take turns
case by case, each would read the other's prompt out of the cache every time.
So each column starts from the cache the last run saved for it, if there is
one (EVAL_COLD=1: from an empty cache, reading its prompt cold), and has its
prompt read in an untimed first turn: the first question after a server starts.

Served by llama.cpp's server built for this CPU when scripts/build-llama-server
made one (EVAL_RUNTIME=wheel keeps to the wheel's), else by the demo's wheel.
"""

import asyncio
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
import datetime as dt
from functools import partial
import json
import logging
import os
from pathlib import Path
import platform
import sys
import time
from typing import Any

import pytest

from homeassistant import const as ha_const
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.test_util.aiohttp import (
    AiohttpClientMocker,
)

from custom_components.chatterbox.const import (
    TOOL_MODE_AUTO,
    TOOL_MODE_NATIVE,
    TOOL_MODE_TEXT,
)
from custom_components.chatterbox.context.mentions import find_mentions
from custom_components.chatterbox.tools.statements import (
    async_state_words,
    contradictions,
)
from demo.llm_server import MODELS, save_prompt_cache, slot_action

from .cases import Case, Outcome, failures, load_cases, numbers_in
from .dataset import Home, load_dataset
from .dataset_play import async_play_homes
from .home import (
    APIS,
    DISTRACTOR_ROOMS,
    add_distractors,
    async_add_agents,
    async_build_demo_home,
    async_reset,
    async_set_tool_mode,
    async_set_up_assist,
    probed,
    snapshot,
)
from .model_server import BUILT_SERVER, FENCED_TEMPLATE, SLOTS, STOCK, model_server
from .open_meteo import serve_open_meteo
from .proxy import RecordingProxy
from .report import (
    CaseRecord,
    TurnRecord,
    failures as failure_list,
    save_record,
    table,
)
from .turns import (
    TURN_TIMEOUT,
    WARM_UP,
    YES_QUESTION,
    async_say,
    async_warm_up,
    speech_of,
    too_long,
)

ROOT = Path(__file__).parents[2]
QUICK = os.environ.get("EVAL_QUICK") == "1"
COLD = os.environ.get("EVAL_COLD") == "1"
MODEL = os.environ.get("EVAL_MODEL", "1.5b")
REPEATS = int(os.environ.get("EVAL_REPEATS", "1"))
ONLY = [c for c in os.environ.get("EVAL_CASES", "").split(",") if c]
# The demo home with hundreds of devices more (scripts/eval --large-home).
LARGE_HOME = os.environ.get("EVAL_LARGE_HOME") == "1"
# A dataset in the Home LLM Leaderboard's format in place of the demo home and
# its cases (scripts/eval --dataset PATH).
DATASET = Path(path) if (path := os.environ.get("EVAL_DATASET")) else None
# A user's own OpenAI-compatible server and model in place of the embedded one
# (scripts/eval --url URL --model NAME --api-key KEY).
URL = os.environ.get("EVAL_URL") or None
SERVED_MODEL = os.environ.get("EVAL_SERVED_MODEL", "")
API_KEY = os.environ.get("EVAL_API_KEY") or None
PYTHON = Path(os.environ.get("EVAL_PYTHON", ROOT / ".venv-demo" / "bin" / "python"))
PORT = int(os.environ.get("EVAL_PORT", "8096"))
CACHE = Path(os.environ.get("EVAL_CACHE", ROOT / ".demo" / "models"))
OUTPUT = Path(os.environ.get("EVAL_OUTPUT", ROOT / ".cache" / "eval" / "latest.md"))
# Each case as it ends, so that a run cut short still tells what it saw.
SAVED = OUTPUT.with_suffix(".cases.jsonl")
THREADS = int(os.environ.get("EVAL_THREADS", "2"))
SERVER = (
    BUILT_SERVER
    if os.environ.get("EVAL_RUNTIME") != "wheel" and BUILT_SERVER.exists()
    else None
)
RUNTIME = "built for this CPU" if SERVER else "the xllamacpp wheel"
# A prompt cache saved by one server is not for the other.
SLOT_SUFFIX = "-built.slot" if SERVER else ".slot"
PROBE_TIMEOUT = 300.0


@dataclass(frozen=True)
class Column:
    """One column of the table: an agent on the server with a template."""

    title: str
    template: str
    chatterbox: bool


FENCED, STOCK_TEMPLATE = str(FENCED_TEMPLATE), STOCK
COLUMNS = (
    Column("Chatterbox, fenced JSON (native calls)", FENCED, chatterbox=True),
    Column("core llama_cpp, fenced JSON", FENCED, chatterbox=False),
    Column("Chatterbox, stock template (text calls)", STOCK_TEMPLATE, chatterbox=True),
    Column("core llama_cpp, stock template", STOCK_TEMPLATE, chatterbox=False),
)
# On a user's server, its own chat template: one column for each agent.
SERVED_COLUMNS = (
    Column("Chatterbox, your server", "served", chatterbox=True),
    Column("core llama_cpp, your server", "served", chatterbox=False),
)
SELECTED = [
    (SERVED_COLUMNS if URL else COLUMNS)[int(n) - 1]
    for n in (os.environ.get("EVAL_COLUMNS") or ("1,2" if URL else "1,2,3,4")).split(
        ","
    )
    if n.strip()
]


async def async_play(
    hass: HomeAssistant,
    proxy: RecordingProxy,
    agent_id: str,
    case: Case,
) -> tuple[Outcome, list[TurnRecord]]:
    """Play a case with an agent, from a fresh home, in a new conversation."""
    await async_reset(hass, dict(case.start))
    outcome = Outcome(before=snapshot(hass))
    turns: list[TurnRecord] = []
    conversation_id: str | None = None

    def listener(_chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
        outcome.tools.extend(call.tool_name for call in delta.get("tool_calls") or [])

    for text in case.turns:
        outcome.asked_at = dt_util.now()
        result, turn = await async_say(
            hass, proxy, agent_id, text, conversation_id, listener
        )
        turns.append(turn)
        if result is None:
            outcome.errors.append(too_long(text))
            break
        conversation_id = result.conversation_id
        speech = speech_of(result)
        outcome.answers.append(speech)
        await _async_hold_to_home(hass, case, outcome, speech)
        if result.response.error_code is not None:
            outcome.errors.append(f"error {result.response.error_code}: {speech}")
    await asyncio.sleep(0.2)  # optimistic template entities write their state next
    await hass.async_block_till_done()
    outcome.after = snapshot(hass)
    return outcome, turns


async def _async_hold_to_home(
    hass: HomeAssistant, case: Case, outcome: Outcome, speech: str
) -> None:
    """Note what an answer says that the home does not show when the turn ends.

    And a question for a yes (Chatterbox's "Do you want me to ...?") that
    names a device the case does not change. The states are read in Home
    Assistant's words, by Chatterbox's own reader: the same for both agents.
    """
    await asyncio.sleep(0.2)  # optimistic template entities write their state next
    await hass.async_block_till_done()
    words = await async_state_words(hass, "en")
    outcome.untrue.extend(
        f"{hass.states.get(found.entity_id).name} {found.said}"  # type: ignore[union-attr]
        # States only: the cases' numbers and words judge the figures.
        for found in contradictions(hass, speech, words, known=numbers_in(speech))
    )
    if (asked := YES_QUESTION.match(speech)) is not None:
        outcome.unasked.extend(
            entity_id
            for entity_id in find_mentions(hass, asked.group(1), language="en").named
            if entity_id not in case.states
        )


async def async_wait_for_probe(
    hass: HomeAssistant, entry: ConfigEntry, model: str
) -> None:
    """Let Chatterbox's capability probe finish, so no case queues behind it."""
    deadline = time.monotonic() + PROBE_TIMEOUT
    while not probed(entry, model) and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.5)
    await hass.async_block_till_done()


@pytest.fixture
def expected_lingering_timers() -> bool:
    """Let the demo's template weather keep its time listener past the test."""
    return True


async def test_eval(
    hass: HomeAssistant, socket_enabled: None, aioclient_mock: AiohttpClientMocker
) -> None:
    """Play every case with every column and print the table."""
    asyncio.get_running_loop().set_debug(False)
    logging.getLogger().setLevel(logging.WARNING)
    started = time.perf_counter()
    load_before = os.getloadavg()
    homes = await hass.async_add_executor_job(load_dataset, DATASET) if DATASET else []
    cases = [] if DATASET else _demo_cases()
    model = SERVED_MODEL if URL else MODELS[MODEL].alias
    await hass.async_add_executor_job(partial(SAVED.unlink, missing_ok=True))
    distractors = await _async_build(hass)
    serve_open_meteo(aioclient_mock)
    records: list[CaseRecord] = []
    timings: dict[str, float] = {}
    templates = list(dict.fromkeys(column.template for column in SELECTED))
    entry: ConfigEntry | None = None
    agents: dict[bool, str] = {}
    apis = [llm.LLM_API_ASSIST] if DATASET else APIS
    restored = 0
    warm_ups: list[float] = []
    async with RecordingProxy(_upstream()) as proxy:
        for template in templates:
            phase_started = time.perf_counter()
            columns = [c for c in SELECTED if c.template == template]
            name = _template_name(template)
            async with _server(template, name):
                if entry is None:
                    entry, agents[True], agents[False] = await async_add_agents(
                        hass,
                        proxy.url,
                        model,
                        _tool_mode(template),
                        apis=apis,
                        api_key=API_KEY,
                    )
                else:
                    await async_set_tool_mode(
                        hass, entry, model, _tool_mode(template), apis
                    )
                await async_wait_for_probe(hass, entry, model)
                _progress(f"{name} template: server ready, probe done")
                for repeat in range(REPEATS):
                    for column in columns if repeat % 2 == 0 else columns[::-1]:
                        slot = f"{model}-{name}-{_agent(column)}{_home()}{SLOT_SUFFIX}"
                        restored += await _async_start_cache(hass, slot)
                        agent = agents[column.chatterbox]
                        if not DATASET:  # each of a dataset's homes has its own
                            warm_ups.append(await async_warm_up(hass, agent))
                        played = await _async_play_column(
                            hass,
                            proxy,
                            agent,
                            column.title,
                            repeat,
                            homes,
                            cases,
                            warm_ups,
                        )
                        records.extend(played)
                        await _async_save_cache(hass, slot)
            timings[name] = time.perf_counter() - phase_started
    count = len({record.case.id for record in records})
    report = _report(
        [c.title for c in SELECTED],
        records,
        timings,
        time.perf_counter() - started,
        load_before,
        count,
        restored,
        warm_ups,
    )
    if distractors:
        report = (
            f"Large home: the demo's devices and {distractors} more, in "
            f"{len(DISTRACTOR_ROOMS)} rooms of their own.\n\n{report}"
        )
    sys.stdout.write("\n" + report + "\n")
    await hass.async_add_executor_job(_write, report, records, proxy.requests)


def _demo_cases() -> list[Case]:
    """Return the demo's cases this run plays."""
    return [
        case
        for case in load_cases()
        if (case.id in ONLY if ONLY else (case.quick or not QUICK))
    ]


async def _async_build(hass: HomeAssistant) -> int:
    """Build the demo home, or only Assist for a dataset's homes.

    Returns how many devices the large home added.
    """
    if DATASET:
        await async_set_up_assist(hass)
        return 0
    await async_build_demo_home(hass)
    return add_distractors(hass) if LARGE_HOME else 0


async def _async_play_column(
    hass: HomeAssistant,
    proxy: RecordingProxy,
    agent: str,
    column: str,
    repeat: int,
    homes: Sequence[Home],
    cases: Sequence[Case],
    warm_ups: list[float],
) -> list[CaseRecord]:
    """Play every case with a column's agent; save each record as it ends.

    A dataset's homes each have their prompt read first, untimed: how long
    that took goes to warm_ups.
    """

    async def ended(record: CaseRecord) -> None:
        _progress_case(record)
        await hass.async_add_executor_job(save_record, SAVED, record)

    if DATASET:
        return await async_play_homes(
            hass,
            proxy,
            agent,
            homes,
            column,
            repeat,
            only=ONLY,
            warm_ups=warm_ups,
            ended=ended,
        )
    played = []
    for case in cases:
        outcome, turns = await async_play(hass, proxy, agent, case)
        record = CaseRecord(
            column,
            case,
            repeat,
            failures(case, outcome),
            outcome.answers,
            outcome.tools,
            turns,
        )
        played.append(record)
        await ended(record)
    return played


def _server(template: str, name: str) -> contextlib.AbstractAsyncContextManager[Any]:
    """Serve the model with a template, unless the user's server serves it."""
    if URL:
        return contextlib.nullcontext()
    log = ROOT / ".cache" / "eval" / f"llm-{name}.log"
    return model_server(PYTHON, MODEL, template, PORT, CACHE, log, THREADS, SERVER)


async def _async_save_cache(hass: HomeAssistant, slot: str) -> None:
    """Keep the column's prompt cache for the next run (the embedded server's)."""
    if not URL:
        await hass.async_add_executor_job(save_prompt_cache, PORT, SLOTS, slot)


def _upstream() -> str:
    """Return the server's address without the API's path, as the proxy forwards."""
    if URL:
        return URL.rstrip("/").removesuffix("/v1")
    return f"http://127.0.0.1:{PORT}"


def _tool_mode(template: str) -> str:
    """Return Chatterbox's tool mode for a column's template."""
    if URL:
        return TOOL_MODE_AUTO  # the probe tells what the user's server does
    return TOOL_MODE_NATIVE if template == FENCED else TOOL_MODE_TEXT


def _template_name(template: str) -> str:
    """Return a template's short name, for the log and the prompt cache."""
    if URL:
        return "served"
    return "fenced" if template == FENCED else "stock"


def _home() -> str:
    """Return what tells the home's prompt cache apart."""
    if DATASET:
        return f"-{DATASET.name}"
    return "-large" if LARGE_HOME else ""


def _agent(column: Column) -> str:
    """Return the agent's short name."""
    return "chatterbox" if column.chatterbox else "core"


async def _async_start_cache(hass: HomeAssistant, slot: str) -> bool:
    """Restore the column's saved prompt cache, or empty the server's.

    Returns whether a saved cache was restored. A user's server keeps its own.
    """
    if URL:
        return False
    if not COLD and await hass.async_add_executor_job((SLOTS / slot).exists):
        tokens = await hass.async_add_executor_job(slot_action, PORT, "restore", slot)
        if isinstance(tokens, int) and tokens:
            _progress(f"restored {tokens} tokens of prompt cache ({slot})")
            return True
    await hass.async_add_executor_job(slot_action, PORT, "erase", slot)
    return False


def _progress(message: str) -> None:
    """Say how far the run is, on stderr."""
    sys.stderr.write(f"eval: {time.strftime('%H:%M:%S')} {message}\n")
    sys.stderr.flush()


def _progress_case(record: CaseRecord) -> None:
    """Say how a case went."""
    seconds = sum(t.seconds for t in record.turns)
    verdict = "pass" if record.passed else "FAIL " + "; ".join(record.reasons)
    _progress(f"{record.column[:34]:34} {record.case.id:32} {seconds:6.1f} s {verdict}")


def _served() -> str:
    """Say which server and model answered."""
    if URL:
        return f"model {SERVED_MODEL} on the server at {_upstream()}"
    return (
        f"model {MODELS[MODEL].alias} (Q4_K_M) on llama.cpp {RUNTIME}, "
        f"{THREADS} thread(s), 8k context"
    )


def _report(
    columns: Sequence[str],
    records: Sequence[CaseRecord],
    timings: dict[str, float],
    total: float,
    load_before: tuple[float, float, float],
    cases: int,
    restored: int,
    warm_ups: Sequence[float],
) -> str:
    """Return the table with what it was measured on and how long it took."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()
    parts = ", ".join(
        f"{name} template {s / 60:.1f} min" for name, s in timings.items()
    )
    return "\n".join(
        [
            f"Measured {when} on Home Assistant {ha_const.__version__}, Python "
            f"{platform.python_version()}, {os.cpu_count()} CPUs (load "
            f"{load_before[0]:.1f} before, {load[0]:.1f} after); "
            + _served()
            + (f"; dataset {DATASET.name}" if DATASET else "")
            + f"; {cases} cases x {REPEATS} run(s), temperature 0"
            + (", QUICK subset" if QUICK else "")
            + (
                f"; {restored} column(s) started from the prompt cache the last "
                "run saved"
                if restored
                else "; each column started from an empty prompt cache"
            )
            + (
                f"; each {'home' if DATASET else 'column'}'s untimed first turn "
                f"({WARM_UP!r}) took "
                f"{min(warm_ups):.0f}-{max(warm_ups):.0f} s; a turn over "
                f"{TURN_TIMEOUT:.0f} s fails"
                if warm_ups
                else ""
            ),
            "",
            table(columns, records, dataset=DATASET is not None),
            "",
            (
                "Cases passed: the median of the runs (their range in "
                "parentheses); per category, passes of tries over all runs. Prompt "
                "tokens are what the server read per turn, over all its requests; "
                "cached ones came from its prompt cache."
            ),
            "",
            f"Took {total / 60:.1f} min ({parts}).",
            "",
            "Failed cases:",
            "",
            failure_list(columns, records),
        ]
    )


def _write(
    report: str, records: Sequence[CaseRecord], requests: Sequence[bytes]
) -> None:
    """Keep the table, every case's answers and calls, and the requests sent."""
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(report + "\n", encoding="utf-8")
    details = [
        {
            "column": r.column,
            "case": r.case.id,
            "run": r.repeat + 1,
            "passed": r.passed,
            "reasons": r.reasons,
            "answers": r.answers,
            "tools": r.tools,
            "turns": [vars(t) for t in r.turns],
        }
        for r in records
    ]
    OUTPUT.with_suffix(".json").write_text(
        json.dumps(details, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    OUTPUT.with_suffix(".requests.jsonl").write_bytes(
        b"".join(body.strip() + b"\n" for body in requests)
    )
