"""What the replayed runs came to: false positives, and a table per model.

A false positive is a run the model got right (upstream judged it Good, or
its calls, played through core's agent, left the home as the case expects)
that Chatterbox did not let through: the user heard something else than the
recorded answer (after a "yes" to Chatterbox's question before a sensitive
action, the answer to the yes counts), the turn took rounds the model did not
take, or the home ended otherwise than core's agent left it.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from .replay import RecordedRun
from .replay_play import CHATTERBOX, CORE, Replayed, differences


@dataclass(frozen=True)
class FalsePositive:
    """A right run that Chatterbox replaced, extended, or played otherwise."""

    record: Replayed
    why: tuple[str, ...]


def false_positives(records: Sequence[Replayed]) -> list[FalsePositive]:
    """Return Chatterbox's false positives among the records, in their order.

    Core's records, where there are any, tell which runs were right beyond
    upstream's verdict, and how the home should end.
    """
    core = {(r.run.model, r.run.task): r for r in records if r.agent == CORE}
    found = []
    for record in records:
        if record.agent != CHATTERBOX:
            continue
        theirs = core.get((record.run.model, record.run.task))
        if not (record.run.good or (theirs is not None and theirs.passed)):
            continue
        why = []
        if not record.untouched:
            why.append("replaced")
        if record.extra:
            why.append(
                f"extended: {record.requests} requests for {record.run.rounds} recorded"
            )
        if theirs is not None and (unlike := differences(record, theirs)):
            why.append("states unlike core's: " + "; ".join(unlike))
        if why:
            found.append(FalsePositive(record, tuple(why)))
    return found


def said(fault: FalsePositive) -> str:
    """Say a false positive in a line: the case, why, both answers, the keys."""
    record = fault.record
    yes = " (after a yes)" if record.asked_yes else ""
    return (
        f"{record.run.task} ({', '.join(fault.why)}): recorded "
        f"{record.run.answer!r}; heard{yes} {record.heard!r}; trace keys: "
        f"{', '.join(record.keys) or 'none'}"
    )


def report(
    records: Sequence[Replayed],
    lost: Sequence[RecordedRun] = (),
    agents: Sequence[str] = (CHATTERBOX, CORE),
) -> str:
    """Return the markdown report: per model, its table and its cases to read."""
    models = list(dict.fromkeys(r.run.model for r in records))
    parts = [_model(model, records, agents) for model in models]
    if lost:
        parts.append(
            "Runs matching no case of the dataset (not played):\n\n"
            + "\n".join(f"- {run.model}: {run.task}" for run in lost)
        )
    return "\n\n".join(parts)


def _model(model: str, records: Sequence[Replayed], agents: Sequence[str]) -> str:
    """Return one model's table, false positives and cases not as expected."""
    mine = [r for r in records if r.run.model == model]
    by_agent = {agent: [r for r in mine if r.agent == agent] for agent in agents}
    runs = {r.run.task: r.run for r in mine}
    good = sum(run.good for run in runs.values())
    faults = false_positives(mine)
    rows = [
        ("Cases", lambda rs: str(len(rs))),
        ("States as expected", lambda rs: str(sum(r.passed for r in rs))),
        (
            "… of the runs upstream judged Good",
            lambda rs: f"{sum(r.passed for r in rs if r.run.good)}/{good}",
        ),
        ("Answers heard untouched", lambda rs: str(sum(r.untouched for r in rs))),
        (
            "Extra rounds (cases)",
            lambda rs: f"{sum(r.extra for r in rs)} ({sum(bool(r.extra) for r in rs)})",
        ),
        ('Questions for a "yes"', lambda rs: str(sum(r.asked_yes for r in rs))),
    ]
    lines = [
        f"### {model}: {len(runs)} recorded runs, {good} judged Good upstream",
        "",
        _line(["Measure", *agents]),
        _line(["---"] + ["---:"] * len(agents)),
        *(
            _line([label, *(cell(by_agent[a]) if by_agent[a] else "-" for a in agents)])
            for label, cell in rows
        ),
        _line(
            [
                "False positives",
                *(str(len(faults)) if a == CHATTERBOX else "-" for a in agents),
            ]
        ),
        "",
        f"False positives of {CHATTERBOX}: {len(faults)}",
        *(f"- {said(fault)}" for fault in faults),
    ]
    for agent in agents:
        failed = [r for r in by_agent[agent] if not r.passed]
        lines += ["", f"States not as expected, {agent}: {len(failed)}"]
        lines += [
            f"- {r.run.task} (upstream {r.run.label or 'no verdict'}): "
            f"{'; '.join(r.reasons)}; heard {r.heard!r}"
            for r in failed
        ]
    return "\n".join(lines)


def _line(cells: Sequence[str]) -> str:
    """Join cells into a markdown table line."""
    return "| " + " | ".join(cells) + " |"
