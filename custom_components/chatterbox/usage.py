"""What one turn of an agent cost: tokens, tool calls and time.

The loop adds up each request of a turn and announces the total when the turn
ends; the agent's sensors listen. Servers that send no usage are counted with
the calibrated estimate, and the figures say so.
"""

from dataclasses import dataclass, field
import math
import time
from typing import Any

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .const import DOMAIN
from .wire.stream import StreamStats


def usage_signal(subentry_id: str) -> str:
    """Return the dispatcher signal an agent's turn totals are sent on."""
    return f"{DOMAIN}_turn_{subentry_id}"


@dataclass(slots=True)
class TurnUsage:
    """The totals of one turn, over all of its requests."""

    started: float = field(default_factory=time.monotonic)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0
    time_to_first_token: float | None = None
    """Seconds from the turn's start to the first token of its first answer."""
    duration: float | None = None
    estimated: bool = False
    """Whether a figure is Chatterbox's estimate: the server reported none."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """What each request of the turn cost, for diagnostics: no words in it."""

    def add(
        self, stats: StreamStats, estimated_prompt_tokens: int, chars_per_token: float
    ) -> None:
        """Add one request of the turn."""
        if self.time_to_first_token is None and stats.time_to_first_token is not None:
            self.time_to_first_token = (
                stats.started - self.started + stats.time_to_first_token
            )
        self.tool_calls += stats.tool_calls
        self.requests.append(
            {
                "finish_reason": stats.finish_reason,
                "prompt_tokens": stats.prompt_tokens,
                "completion_tokens": stats.completion_tokens,
                "cached_tokens": stats.cached_tokens,
                "time_to_first_token": stats.time_to_first_token,
                "latency": round(time.monotonic() - stats.started, 3),
                "tool_calls": stats.tool_calls,
            }
        )
        if stats.prompt_tokens is None:
            self.estimated = True
            self.prompt_tokens += estimated_prompt_tokens
        else:
            self.prompt_tokens += stats.prompt_tokens
        if stats.completion_tokens is None:
            self.estimated = True
            written = stats.content_chars + stats.thinking_chars
            self.completion_tokens += math.ceil(written / chars_per_token)
        else:
            self.completion_tokens += stats.completion_tokens

    def end(self) -> None:
        """End the turn: its duration is known."""
        self.duration = time.monotonic() - self.started

    @callback
    def async_announce(self, hass: HomeAssistant, subentry_id: str) -> None:
        """Tell the agent's sensors of the turn."""
        async_dispatcher_send(hass, usage_signal(subentry_id), self)

    def summary(self, subentry_id: str) -> dict[str, Any]:
        """Return the turn's figures for diagnostics."""
        return {
            "agent": subentry_id,
            "duration": None if self.duration is None else round(self.duration, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "estimated": self.estimated,
            "requests": self.requests,
        }
