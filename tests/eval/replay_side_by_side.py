"""Recorded runs of capable models replayed through Chatterbox and core's agent.

Run it with `scripts/eval --replay DIR`. It is a pytest module so that it
gets the test harness's real Home Assistant; its name keeps it out of the
test suite. No model runs: the scripted test server answers each agent's
requests with the recorded messages (replay_play.py), and both agents read
the same home. The table and every false positive are printed and written
to .cache/eval/replay.md (or $EVAL_REPLAY_OUTPUT), each replay's calls and
answers to replay.json beside it.
"""

import asyncio
from collections.abc import Sequence
from functools import partial
import json
import logging
import os
from pathlib import Path
import sys
import time

import pytest

from homeassistant import const as ha_const
from homeassistant.core import HomeAssistant

from custom_components.chatterbox.const import TOOL_MODE_NATIVE

from .dataset import load_dataset
from .home import async_add_agents, async_set_up_assist
from .replay import find_dataset, load_report, match
from .replay_play import (
    ASSIST,
    CHATTERBOX,
    CORE,
    Replayed,
    async_replay,
    async_serve,
    replay_server,
)
from .replay_report import report

ROOT = Path(__file__).parents[2]
REPORT = Path(path) if (path := os.environ.get("EVAL_REPLAY")) else None
DATASET = Path(path) if (path := os.environ.get("EVAL_DATASET")) else None
OUTPUT = Path(
    os.environ.get("EVAL_REPLAY_OUTPUT", ROOT / ".cache" / "eval" / "replay.md")
)


async def test_replay(hass: HomeAssistant, socket_enabled: None) -> None:
    """Replay every recorded run through both agents and print the report."""
    if REPORT is None:
        pytest.skip("no report to replay: run scripts/eval --replay DIR")
    asyncio.get_running_loop().set_debug(False)
    logging.getLogger().setLevel(logging.WARNING)
    started = time.perf_counter()
    dataset = DATASET or find_dataset(REPORT)
    if dataset is None:
        pytest.fail(f"no dataset found for {REPORT}: name it with --dataset PATH")
    runs = await hass.async_add_executor_job(load_report, REPORT)
    homes = await hass.async_add_executor_job(load_dataset, dataset)
    replays, lost = match([run for mine in runs.values() for run in mine], homes)
    await async_set_up_assist(hass)
    async with replay_server(list(runs)) as (server, proxy):
        entry, chatterbox, core = await async_add_agents(
            hass, proxy.url, next(iter(runs)), TOOL_MODE_NATIVE, apis=ASSIST
        )
        records = []
        for model in runs:
            # Chatterbox's agent takes each recorded model by its name, as a
            # user sets it: it reads a model's size in its name. Core's keeps
            # the first name, which it only passes on.
            await async_serve(hass, entry, model)
            records += await async_replay(
                hass,
                server,
                proxy,
                {CHATTERBOX: chatterbox, CORE: core},
                [replay for replay in replays if replay.run.model == model],
            )
    text = (
        f"Replayed {len(replays)} recorded runs of {len(runs)} model(s) from "
        f"{REPORT} on {dataset.name}, through {CHATTERBOX} (native tool calls) "
        f"and {CORE}, on Home Assistant {ha_const.__version__}; took "
        f"{time.perf_counter() - started:.0f} s.\n\n{report(records, lost)}"
    )
    sys.stdout.write("\n" + text + "\n")
    await hass.async_add_executor_job(partial(_write, text, records))


def _write(text: str, records: Sequence[Replayed]) -> None:
    """Keep the report, and every replay's calls and answers beside it."""
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text + "\n", encoding="utf-8")
    details = [
        {
            "agent": r.agent,
            "model": r.run.model,
            "task": r.run.task,
            "case": r.replay.case.id,
            "label": r.run.label,
            "passed": r.passed,
            "reasons": r.reasons,
            "recorded": r.run.answer,
            "answers": r.answers,
            "tools": r.tools,
            "requests": r.requests,
            "rounds": r.run.rounds,
            "keys": r.keys,
        }
        for r in records
    ]
    OUTPUT.with_suffix(".json").write_text(
        json.dumps(details, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
