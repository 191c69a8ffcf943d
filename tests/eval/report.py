"""What the eval keeps of each case, and the four-column table it prints."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
import json
from pathlib import Path
import statistics
import sys

from tests.bench.report import Figure, percentile

from .cases import UNASKED, UNTRUE, Case, load_cases


@dataclass(frozen=True)
class TurnRecord:
    """One turn: how long it took and what the server read for it."""

    seconds: float
    requests: int
    prompt_tokens: int
    cached_tokens: int


@dataclass
class CaseRecord:
    """One case as one column played it."""

    column: str
    case: Case
    repeat: int
    reasons: list[str]
    answers: list[str]
    tools: list[str]
    turns: list[TurnRecord] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Return whether every check held."""
        return not self.reasons


def save_record(path: Path, record: CaseRecord) -> None:
    """Append a case's record to a JSON-lines file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = {
        "column": record.column,
        "case": record.case.id,
        "run": record.repeat,
        "reasons": record.reasons,
        "answers": record.answers,
        "tools": record.tools,
        "turns": [vars(turn) for turn in record.turns],
    }
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(line, ensure_ascii=False) + "\n")


def load_records(paths: Sequence[Path]) -> list[CaseRecord]:
    """Read saved records back, keeping only cases every column played."""
    cases = {case.id: case for case in load_cases()}
    records = [
        CaseRecord(
            raw["column"],
            cases[raw["case"]],
            raw["run"],
            raw["reasons"],
            raw["answers"],
            raw["tools"],
            [TurnRecord(**turn) for turn in raw["turns"]],
        )
        for path in paths
        for raw in map(json.loads, path.read_text("utf-8").splitlines())
    ]
    columns = {r.column for r in records}
    played = {
        key
        for key in {(r.case.id, r.repeat) for r in records}
        if {r.column for r in records if (r.case.id, r.repeat) == key} == columns
    }
    return [r for r in records if (r.case.id, r.repeat) in played]


def main() -> None:
    """Print the table of saved runs: python -m tests.eval.report FILE..."""
    records = load_records([Path(name) for name in sys.argv[1:]])
    columns = list(dict.fromkeys(r.column for r in records))
    print(table(columns, records))  # noqa: T201
    print()  # noqa: T201
    print(failures(columns, records))  # noqa: T201


def _cell_count(records: Sequence[CaseRecord], *, share: bool = False) -> str:
    """Return passes of tries, e.g. 7/10; with their share, 7/10 (70 %)."""
    count = f"{sum(r.passed for r in records)}/{len(records)}"
    return f"{count} ({_share_passed(records)})" if share and records else count


def _share_passed(records: Sequence[CaseRecord]) -> str:
    """Return the share of tries that passed, in percent."""
    if not records:
        return "-"
    return f"{100 * sum(r.passed for r in records) / len(records):.0f} %"


def _figure(values: Sequence[float], digits: int, unit: str = "") -> str:
    """Print the median of runs and, when they differ, their range."""
    if not values:
        return "-"
    figure = Figure.of(values)
    text = f"{figure.median:,.{digits}f}{unit}"
    if len(values) > 1 and figure.low != figure.high:
        text += f" ({figure.low:,.{digits}f} to {figure.high:,.{digits}f})"
    return text


def table(
    columns: Sequence[str], records: Sequence[CaseRecord], *, dataset: bool = False
) -> str:
    """Return the markdown table: one column per agent and template.

    For a dataset, as the leaderboard gives it: the share passed, and per
    category; and how many cases had a "yes" said to a question for one.
    """
    by_column = {c: [r for r in records if r.column == c] for c in columns}
    repeats = sorted({r.repeat for r in records})
    categories = list(dict.fromkeys(r.case.category for r in records))
    rows: list[list[str]] = []

    def passed(column: str) -> str:
        mine = by_column[column]
        cases = len({r.case.id for r in mine})
        runs = [sum(r.passed for r in mine if r.repeat == n) for n in repeats]
        return f"{_figure(runs, 0)} of {cases}" if mine else "-"

    rows.append(["Cases passed", *(passed(c) for c in columns)])
    if dataset:
        rows.append(["Share passed", *(_share_passed(by_column[c]) for c in columns)])
    rows.extend(
        [
            f"… {category}",
            *(
                _cell_count(
                    [r for r in by_column[c] if r.case.category == category],
                    share=dataset,
                )
                for c in columns
            ),
        ]
        for category in categories
    )
    if dataset:
        rows.append(
            [
                'Cases with a "yes" said to a question for one',
                *(str(sum(len(r.turns) > 1 for r in by_column[c])) for c in columns),
            ]
        )
    rows.extend(
        [
            label,
            *(
                str(
                    sum(
                        reason.startswith(prefix)
                        for r in by_column[c]
                        for reason in r.reasons
                    )
                )
                for c in columns
            ),
        ]
        for label, prefix in (
            ("Answers untrue when the turn ended", UNTRUE),
            ("Questions for a yes about what was not asked", UNASKED),
        )
    )
    turns = {c: [t for r in by_column[c] for t in r.turns] for c in columns}
    rows.append(
        [
            "Turn time, mean",
            *(_figure(_per_repeat(by_column[c], _mean_time), 1, " s") for c in columns),
        ]
    )
    rows.append(
        [
            "Turn time, p95",
            *(
                f"{percentile([t.seconds for t in turns[c]], 0.95):.1f} s"
                if turns[c]
                else "-"
                for c in columns
            ),
        ]
    )
    rows.append(
        [
            "Requests per turn, mean",
            *(_mean([t.requests for t in turns[c]], 2) for c in columns),
        ]
    )
    rows.append(
        [
            "Prompt tokens per turn, mean",
            *(_mean([t.prompt_tokens for t in turns[c]], 0) for c in columns),
        ]
    )
    rows.append(
        [
            "Cached prompt tokens per turn, mean",
            *(_mean([t.cached_tokens for t in turns[c]], 0) for c in columns),
        ]
    )
    rows.append(["Cached share of prompt tokens", *(_share(turns[c]) for c in columns)])
    head = ["Measure", *columns]
    lines = [_line(head), _line(["---"] + ["---:"] * len(columns))]
    lines += [_line(row) for row in rows]
    return "\n".join(lines)


def failures(columns: Sequence[str], records: Sequence[CaseRecord]) -> str:
    """Return the failed cases of each column with the reasons, for reading."""
    lines = []
    for column in columns:
        failed = [r for r in records if r.column == column and not r.passed]
        lines.append(f"{column}: {len(failed)} failed")
        lines.extend(
            f"  - {r.case.id} (run {r.repeat + 1}): {'; '.join(r.reasons)}"
            f" | tools: {', '.join(r.tools) or 'none'}"
            f" | answer: {_short(r.answers[-1] if r.answers else '')}"
            for r in failed
        )
    return "\n".join(lines)


def _per_repeat(
    records: Sequence[CaseRecord], measure: Callable[[Sequence[CaseRecord]], float]
) -> list[float]:
    """Return a measure of each repeated run."""
    repeats = sorted({r.repeat for r in records})
    return [measure([r for r in records if r.repeat == n]) for n in repeats]


def _mean_time(records: Sequence[CaseRecord]) -> float:
    """Return the mean turn time of a run."""
    return statistics.fmean(t.seconds for r in records for t in r.turns)


def _mean(values: Sequence[float], digits: int) -> str:
    """Print a mean."""
    return f"{statistics.fmean(values):,.{digits}f}" if values else "-"


def _share(turns: Sequence[TurnRecord]) -> str:
    """Print the share of prompt tokens the server's cache held."""
    prompt = sum(t.prompt_tokens for t in turns)
    return (
        f"{100 * sum(t.cached_tokens for t in turns) / prompt:.0f} %" if prompt else "-"
    )


def _short(text: str, limit: int = 160) -> str:
    """Shorten an answer to one line."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line(cells: Sequence[str]) -> str:
    """Join cells into a markdown table line."""
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
