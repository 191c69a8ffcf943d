"""Estimate a request's prompt tokens, calibrated on the server's counts.

Characters are counted as they go on the wire, and turned into tokens at a
ratio that moves toward the one each usage report implies.
"""

from collections.abc import Iterable, Mapping, Sequence
import math
from typing import Final

from openai.types.chat import ChatCompletionMessageParam

from ..wire.json import dumps

type Tools = Sequence[Mapping[str, object]]

_MIN_RATIO: Final = 1.5
_MAX_RATIO: Final = 8.0


class TokenEstimator:
    """Estimate prompt tokens from characters, calibrated by server reports."""

    def __init__(
        self,
        chars_per_token: float = 4.0,
        *,
        message_overhead: int = 4,
        smoothing: float = 0.5,
    ) -> None:
        """Start from a ratio; smoothing is the weight of each new report."""
        self.chars_per_token = chars_per_token
        self.message_overhead = message_overhead
        self.smoothing = smoothing

    @staticmethod
    def measure(
        messages: Iterable[ChatCompletionMessageParam], tools: Tools = ()
    ) -> int:
        """Count the characters of messages and tools as they go on the wire."""
        chars = sum(len(dumps(message)) for message in messages)
        return chars + (len(dumps(list(tools))) if tools else 0)

    def tokens_for(self, chars: int, message_count: int) -> int:
        """Convert a character count and a message count to tokens."""
        return math.ceil(chars / self.chars_per_token) + (
            self.message_overhead * message_count
        )

    def estimate(
        self, messages: Sequence[ChatCompletionMessageParam], tools: Tools = ()
    ) -> int:
        """Estimate the prompt tokens of a request."""
        return self.tokens_for(self.measure(messages, tools), len(messages))

    def calibrate(
        self,
        messages: Sequence[ChatCompletionMessageParam],
        tools: Tools,
        prompt_tokens: int | None,
    ) -> int:
        """Move the ratio toward the one the server's prompt_tokens imply.

        Returns the estimate of the request from before it learned: what a
        server that reports no usage is taken to have counted.
        """
        chars = self.measure(messages, tools)
        estimated = self.tokens_for(chars, len(messages))
        content_tokens = (prompt_tokens or 0) - self.message_overhead * len(messages)
        if content_tokens <= 0 or chars == 0:
            # A report this small says nothing about the ratio (or is cached
            # tokens only); learning from it would wreck the estimate.
            return estimated
        observed = min(max(chars / content_tokens, _MIN_RATIO), _MAX_RATIO)
        # Smoothed, because one odd report (a prompt of mostly digits or of
        # another language) should not swing the budget of the next request.
        self.chars_per_token += self.smoothing * (observed - self.chars_per_token)
        return estimated
