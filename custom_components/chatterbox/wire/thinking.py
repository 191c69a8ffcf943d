"""Split a model's reasoning from its answer in a streamed response.

Servers send reasoning in a field of its own, under one of two names, or
leave it in the content between <think> tags.
"""

from typing import Final

from .chunks import Fields, text

THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"
# DeepSeek and older vLLM send reasoning_content; newer vLLM, Ollama and
# OpenRouter send reasoning. A server may send both with the same text, so only
# the first one present is read.
REASONING_FIELDS: Final = ("reasoning_content", "reasoning")


def reasoning(delta: Fields) -> str:
    """Return the reasoning text of a delta from its non-standard fields."""
    for name in REASONING_FIELDS:
        if thought := text(delta, name):
            return thought
    return ""


class ThinkSplitter:
    """Split <think> blocks out of streamed content.

    Qwen and DeepSeek-R1 write their reasoning inline when the server does not
    separate it. A tag can be split across chunks, so text that could be the
    start of a tag is held back until the next chunk tells.
    """

    def __init__(self) -> None:
        """Start outside a think block."""
        self.thinking = False
        self._pending = ""
        self._strip = False

    def feed(self, text: str) -> tuple[str, str]:
        """Return the content and thinking that text completes."""
        text = self._pending + text
        self._pending = ""
        content: list[str] = []
        thinking: list[str] = []
        while text:
            tag = THINK_CLOSE if self.thinking else THINK_OPEN
            before, found, text = text.partition(tag)
            if not found:
                cut = len(before) - _partial_tag(before, tag)
                before, self._pending = before[:cut], before[cut:]
            self._add(before, thinking if self.thinking else content)
            if found:
                self.thinking = not self.thinking
                self._strip = True
        return "".join(content), "".join(thinking)

    def flush(self) -> tuple[str, str]:
        """Return the text held back at the end of the stream."""
        text, self._pending = self._pending, ""
        out: list[str] = []
        self._add(text, out)
        if self.thinking:
            return "", "".join(out)
        return "".join(out), ""

    def _add(self, text: str, out: list[str]) -> None:
        """Add text to out, without the whitespace right after a tag."""
        if self._strip:
            # Models put blank lines after the tags, which would start the
            # spoken answer with empty lines.
            text = text.lstrip()
            if not text:
                return
            self._strip = False
        if text:
            out.append(text)


def _partial_tag(text: str, tag: str) -> int:
    """Return the length of the end of text that could begin tag."""
    for length in range(min(len(text), len(tag) - 1), 0, -1):
        if text.endswith(tag[:length]):
            return length
    return 0
