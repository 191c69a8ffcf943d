"""Summaries of repeated measurements, and the table that shows them side by side."""

from collections.abc import Sequence
from dataclasses import dataclass, field
import math
import statistics


def percentile(values: Sequence[float], share: float) -> float:
    """Return the value below which share of the values lie (nearest rank)."""
    ordered = sorted(values)
    rank = max(math.ceil(share * len(ordered)), 1)
    return ordered[rank - 1]


@dataclass(frozen=True)
class Figure:
    """One figure over repeated runs: the median of the runs and their range."""

    runs: tuple[float, ...]

    @classmethod
    def of(cls, runs: Sequence[float]) -> Figure:
        """Summarize the value each run gave."""
        if not runs:
            msg = "a figure needs at least one run"
            raise ValueError(msg)
        return cls(tuple(runs))

    @property
    def median(self) -> float:
        """Return the median of the runs."""
        return statistics.median(self.runs)

    @property
    def low(self) -> float:
        """Return the lowest run."""
        return min(self.runs)

    @property
    def high(self) -> float:
        """Return the highest run."""
        return max(self.runs)


@dataclass(frozen=True)
class Row:
    """One line of the table: a measure for both agents, and how to print it."""

    label: str
    chatterbox: Figure | None
    core: Figure | None  # None: the measure does not apply to that agent
    unit: str = ""
    digits: int = 1
    # Runs of Chatterbox / core taken side by side; None: divide the medians.
    paired_ratios: tuple[float, ...] | None = None

    @property
    def ratio(self) -> float | None:
        """Return Chatterbox's figure over core's; None when there is none."""
        if self.paired_ratios:
            return statistics.median(self.paired_ratios)
        if self.chatterbox is None or self.core is None or self.core.median == 0:
            return None
        return self.chatterbox.median / self.core.median

    def cells(self) -> list[str]:
        """Return the row's cells as printed."""
        ratio = self.ratio
        return [
            self.label,
            self._cell(self.chatterbox),
            self._cell(self.core),
            "-" if ratio is None else f"{ratio:.2f}x",
        ]

    def _cell(self, figure: Figure | None) -> str:
        """Print a figure as its median and, when the runs differ, their range."""
        if figure is None:
            return "-"
        text = f"{figure.median:,.{self.digits}f}{self.unit}"
        if len(figure.runs) > 1 and figure.low != figure.high:
            text += (
                f" ({figure.low:,.{self.digits}f} to {figure.high:,.{self.digits}f})"
            )
        return text


@dataclass
class Table:
    """The benchmark's one table, with sections and notes under it."""

    rows: list[Row | str] = field(default_factory=list)

    def add(self, row: Row | str) -> None:
        """Add a row, or a section heading as a str."""
        self.rows.append(row)

    def markdown(self) -> str:
        """Return the table in markdown."""
        head = ["Measure", "Chatterbox", "core llama_cpp", "ratio"]
        lines = [_line(head), _line(["---", "---:", "---:", "---:"])]
        for row in self.rows:
            if isinstance(row, str):
                lines.append(_line([f"**{row}**", "", "", ""]))
            else:
                lines.append(_line(row.cells()))
        return "\n".join(lines)


def _line(cells: Sequence[str]) -> str:
    """Join cells into a markdown table line."""
    return "| " + " | ".join(cells) + " |"
