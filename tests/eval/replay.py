"""What capable models called and answered on a dataset, read to be replayed.

The Home LLM Leaderboard keeps, for each model and each case it played, a
file in its reports (`reports/<dataset>/<version>/<model>/<case>.yaml`): the
case's `task_id` (the dataset's home and case file, then the sentence, then
the run: `home1_us_lock_smart_lock-unlock_the_door-0`), the sentence
(`task.input_text`), the final answer (`response`) and the conversation as
Home Assistant traced it (`context.conversation_trace`): every assistant
message with its tool calls, every tool result, the last answer. Beside the
models' folders, `report.csv` holds upstream's verdict on each run (`label`:
Good or Bad).

Played back, message by message, to an agent that offers the same tools, a
recorded run shows what the agent makes of a model's answer that was right:
whether the user hears it as the model said it, in as many rounds. The
project holds no report: the user names a folder (`scripts/eval --replay DIR`).
"""

from collections.abc import Mapping, Sequence
import csv
from dataclasses import dataclass, field
from pathlib import Path
import re
from typing import Any

import yaml

from homeassistant.util import slugify

from .dataset import FIXTURES, DatasetCase, Home

LABELS = "report.csv"
# The collector's own notes (who ran it, on which dataset): no case.
SCRAPE_CONTEXT = "_scrape_context.yaml"
# Each case may be played several times; upstream numbers the runs.
RUN = re.compile(r"-\d+$")
GOOD = "Good"
# libyaml reads a hundred traces in a fraction of the time the pure reader takes.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class RecordedCall:
    """One tool call as the model made it: the tool's bare name, its arguments."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedMessage:
    """One assistant message: the calls it made, the words it said."""

    calls: tuple[RecordedCall, ...] = ()
    content: str | None = None


@dataclass(frozen=True)
class RecordedRun:
    """One model's run of one case: each round's message, the last the answer."""

    model: str
    task: str  # the task_id less its run: the dataset's home, file and sentence
    sentence: str
    messages: tuple[RecordedMessage, ...]
    label: str | None = None  # upstream's verdict; None when report.csv lacks it

    @property
    def answer(self) -> str:
        """Return the final answer, as the user heard it in the recorded run."""
        return self.messages[-1].content or ""

    @property
    def rounds(self) -> int:
        """Return how many requests the recorded run took: one per message."""
        return len(self.messages)

    @property
    def good(self) -> bool:
        """Tell whether upstream judged the run right."""
        return self.label == GOOD


def load_report(path: Path) -> dict[str, list[RecordedRun]]:
    """Read a report folder: one subfolder per model, or one model's case files.

    Returns each model's runs, by model, in name order; the runs in the order
    of their files. The verdicts come from the report.csv in the folder or
    beside it.
    """
    folders = [path] if _case_files(path) else sorted(p for p in path.iterdir())
    folders = [folder for folder in folders if _case_files(folder)]
    if not folders:
        msg = f"{path}: no recorded case (a YAML file with a task_id)"
        raise ValueError(msg)
    labels = {
        key: label
        for where in dict.fromkeys([path, *(folder.parent for folder in folders)])
        for key, label in read_labels(where / LABELS).items()
    }
    report: dict[str, list[RecordedRun]] = {}
    for folder in folders:
        for file in _case_files(folder):
            run = read_run(file, labels)
            report.setdefault(run.model, []).append(run)
    return dict(sorted(report.items()))


def _case_files(folder: Path) -> list[Path]:
    """Return a folder's case files, in name order."""
    if not folder.is_dir():
        return []
    return [
        file
        for file in sorted(folder.glob("*.yaml"))
        if file.name != SCRAPE_CONTEXT and "task_id:" in file.read_text("utf-8")
    ]


def read_run(path: Path, labels: Mapping[tuple[str, str], str]) -> RecordedRun:
    """Read one recorded case; labels are verdicts by model and task_id."""
    raw = yaml.load(path.read_text("utf-8"), Loader=_LOADER)  # noqa: S506  # a safe loader
    if not isinstance(raw, dict) or not raw.get("task_id"):
        msg = f"{path}: no task_id"
        raise ValueError(msg)
    task_id = str(raw["task_id"])
    model = str(raw.get("model_id") or path.parent.name)
    messages = list(_messages(raw))
    # A run cut short after a call has no last word of the model's: its
    # recorded response is what was heard.
    if not messages or messages[-1].calls:
        messages.append(RecordedMessage(content=str(raw.get("response") or "")))
    return RecordedRun(
        model,
        RUN.sub("", task_id),
        str((raw.get("task") or {}).get("input_text") or ""),
        tuple(messages),
        labels.get((model, task_id)),
    )


def _messages(raw: Mapping[str, Any]) -> list[RecordedMessage]:
    """Return the assistant messages of a recorded conversation, in order.

    The agent traced its whole chat log once per turn: the last trace of it
    holds every message.
    """
    trace = (raw.get("context") or {}).get("conversation_trace") or ()
    details = [e for e in trace if e.get("event_type") == "agent_detail"]
    said = (details[-1].get("data") or {}).get("messages") or () if details else ()
    return [
        RecordedMessage(
            tuple(
                RecordedCall(str(call["tool_name"]), call.get("tool_args") or {})
                for call in message.get("tool_calls") or ()
            ),
            message.get("content"),
        )
        for message in said
        if message.get("role") == "assistant"
    ]


def read_labels(path: Path) -> dict[tuple[str, str], str]:
    """Read upstream's verdicts, by model and task_id; none when there is no file."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as file:
        return {
            (row["model_id"], row["task_id"]): row["label"]
            for row in csv.DictReader(file)
            if row.get("model_id") and row.get("task_id") and row.get("label")
        }


def task_of(case: DatasetCase) -> str:
    """Return the task a recorded run names a dataset case by.

    The home's folder and the case file's name, then the sentence, each
    made a slug as upstream makes them: "home1-us-lock/smart-lock-2.1",
    "Unlock the door" is "home1_us_lock_smart_lock-unlock_the_door".
    """
    file = case.id.split("/", 1)[1].rsplit("-", 1)[0]
    return f"{slugify(case.home)}_{slugify(file)}-{slugify(case.sentence)}"


@dataclass(frozen=True)
class Replay:
    """A recorded run with the dataset's home and case it was played on."""

    home: Home
    case: DatasetCase
    run: RecordedRun


def match(
    runs: Sequence[RecordedRun], homes: Sequence[Home]
) -> tuple[list[Replay], list[RecordedRun]]:
    """Find each run's home and case; return those found and the runs that are not.

    A run whose sentence is not its case's is not found either: the report
    was made on another version of the dataset.
    """
    cases = {task_of(case): (home, case) for home in homes for case in home.cases}
    found, lost = [], []
    for run in runs:
        home, case = cases.get(run.task, (None, None))
        if home is None or case is None or case.sentence != run.sentence:
            lost.append(run)
        else:
            found.append(Replay(home, case, run))
    return found, lost


def find_dataset(report: Path) -> Path | None:
    """Find the dataset a report was made on, beside the reports or above them.

    Upstream keeps `reports/<dataset>/<version>/` beside `datasets/<dataset>/`;
    a copy may keep the dataset beside `reports/` itself.
    """
    report = report.resolve()
    parts = report.parts
    names = [parts[i + 1] for i, part in enumerate(parts[:-1]) if part == "reports"]
    for folder in [report, *report.parents]:
        for name in names:
            for candidate in (folder / name, folder / "datasets" / name):
                if any(candidate.glob(f"*/{FIXTURES}")):
                    return candidate
    return None
