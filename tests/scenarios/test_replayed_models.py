"""What a capable model got right, Chatterbox lets through as it was.

The Home LLM Leaderboard recorded what capable models called and answered on
its small dataset (assist-mini). Each recorded run is played back through
Chatterbox in a real Home Assistant, the home built from the dataset, the
scripted server answering each request with the model's recorded message:
a run upstream judged right must leave the home as the case expects, and
the user must hear the model's answer, in the rounds the model took. The
one difference expected is Chatterbox's question before a sensitive action,
and the yes said to it.

The project holds neither the runs nor the dataset: they are read from
`../shared/datasets` beside the checkout, where CI keeps them.
"""

from pathlib import Path

import pytest

from homeassistant.core import HomeAssistant

from tests.eval.dataset import load_dataset
from tests.eval.home import async_set_up_assist
from tests.eval.replay import load_report, match
from tests.eval.replay_play import (
    CHATTERBOX,
    async_add_chatterbox,
    async_replay,
    replay_server,
)
from tests.eval.replay_report import false_positives, said

ROOT = Path(__file__).parents[2]
SHARED = ROOT / ".." / "shared" / "datasets"
REPORT = SHARED / "reports" / "assist-mini" / "2026.2.3"
DATASET = SHARED / "assist-mini"
# One test per recorded model, each in a Home Assistant of its own.
MODELS = (
    sorted(p.name for p in REPORT.iterdir() if p.is_dir()) if REPORT.is_dir() else []
)


@pytest.mark.skipif(
    not MODELS or not DATASET.is_dir(),
    reason=f"no recorded runs in {REPORT} or no dataset in {DATASET}",
)
@pytest.mark.parametrize("model", MODELS or ["none"])
async def test_a_capable_models_right_runs_come_through(
    hass: HomeAssistant, socket_enabled: None, model: str
) -> None:
    """Every run upstream judged right: the home as expected, the answer as said.

    A false positive is a right run whose answer Chatterbox replaced, or whose
    turn it extended by a round of its own.
    """
    report = await hass.async_add_executor_job(load_report, REPORT / model)
    homes = await hass.async_add_executor_job(load_dataset, DATASET)
    ((name, runs),) = report.items()
    replays, lost = match(runs, homes)
    assert replays
    assert not lost, [run.task for run in lost]
    await async_set_up_assist(hass)

    async with replay_server([name]) as (server, proxy):
        _, agent = await async_add_chatterbox(hass, proxy.url, name)
        records = await async_replay(hass, server, proxy, {CHATTERBOX: agent}, replays)

    assert len(records) == len(replays)
    problems = [f"false positive: {said(fault)}" for fault in false_positives(records)]
    problems += [
        f"states not as expected: {r.run.task}: {'; '.join(r.reasons)}"
        for r in records
        if r.run.good and not r.passed
    ]
    assert not problems, "\n".join(problems)
