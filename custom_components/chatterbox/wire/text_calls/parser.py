"""Find the tool calls that a model writes as text in a streamed answer.

Servers without a tool-call parser for the model (llama.cpp with a template it
cannot derive one from, Ollama models without a tool template, LM Studio) return
the calls in the content. TextToolCallParser reads them as the content
streams, in the formats models are trained on (see the package).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..arguments import MAX_ARGUMENTS_CHARS
from ..json import FENCE
from .readers import OPENER_START, OPENERS, Calls, OpenJson, Reader, Text


@dataclass(frozen=True, slots=True)
class TextToolCall:
    """A tool call that the model wrote as text."""

    name: str
    """The offered tool's name, as accepts mapped it."""

    arguments: str
    """The arguments as JSON text, to be read with parse_tool_arguments."""


type TextPiece = str | TextToolCall


# The longest candidate call held back: the arguments' limit, and its tags.
MAX_CALL_CHARS: Final = MAX_ARGUMENTS_CHARS + 1_024


class TextToolCallParser:
    """Find tool calls written as text in a streamed answer.

    feed() returns, in order, the text that is safe to release and the calls
    that completed; finish() flushes at the end of the stream. Text that could
    still be the start of a call is held back, and released as soon as it
    cannot be one: ordinary text waits for at most MAX_HOLD characters. A
    candidate call is held until it is complete.

    Joined, the text pieces are the input without the calls: nothing else is
    dropped, added or reordered, but for a result the model wrote itself in
    the results' tags. Only the calls whose every name accepts maps to an
    offered tool become calls; a block with an unknown name, an unreadable
    one or one cut off by the end of the stream stays text. A call
    whose closing tag or fence never came but whose JSON is whole is still a
    call, for servers that stop at the closing tag.
    """

    def __init__(self, accepts: Callable[[str], str | None]) -> None:
        """Start a message; accepts maps a written name to an offered tool's."""
        self._accepts = accepts
        self._buffer = ""
        self._reader: Reader | None = None
        # A bare JSON call can only be the whole message, or follow a call.
        self._at_start = True
        self._in_fence = False
        self._out: list[TextPiece] = []
        self.made_up = 0
        """How many results the model wrote itself, left out of the text."""

    def feed(self, text: str) -> list[TextPiece]:
        """Read more of the answer; return the text and calls it completes."""
        self._buffer += text
        self._run(final=False)
        return self._take()

    def finish(self) -> list[TextPiece]:
        """Return what is left at the end of the answer."""
        self._run(final=True)
        return self._take()

    def _take(self) -> list[TextPiece]:
        """Return the pieces found so far, and forget them."""
        out, self._out = self._out, []
        return out

    def _run(self, *, final: bool) -> None:
        """Release and read as much of the buffer as can be decided."""
        while self._buffer:
            if self._reader is not None:
                progressed = self._read(self._reader, final=final)
            elif self._in_fence:
                progressed = self._through_fence(final=final)
            else:
                progressed = self._scan(final=final)
            if not progressed:
                return

    def _scan(self, *, final: bool) -> bool:
        """Release ordinary text up to the next candidate call."""
        buffer = self._buffer
        if self._at_start:
            if stripped := buffer.lstrip():
                self._release(buffer[: len(buffer) - len(stripped)])
                buffer = stripped
                if buffer.startswith("{"):
                    self._reader = OpenJson("")
                    return True
            else:
                self._release(buffer)
                return False
        for match in OPENER_START.finditer(buffer):
            rest = buffer[match.start() :]
            for opener, reader in OPENERS:
                if rest.startswith(opener):
                    self._release(buffer[: match.start()])
                    self._reader = reader()
                    return True
            if not final and any(opener.startswith(rest) for opener, _ in OPENERS):
                self._release(buffer[: match.start()])
                return False
        self._release(buffer)
        return False

    def _read(self, reader: Reader, *, final: bool) -> bool:
        """Let the candidate's reader decide, and act on its verdict.

        A candidate longer than any call is decided at once, as at the end of
        the stream: held, it would be read again with every chunk.
        """
        final = final or len(self._buffer) > MAX_CALL_CHARS
        match reader.read(self._buffer, final=final):
            case None:
                return False
            case Text(length=length, in_fence=in_fence):
                self._reader = None
                self._release(self._buffer[:length])
                self._in_fence = in_fence
            case Calls(length=length, calls=calls, result=result):
                self._reader = None
                mapped = [
                    (self._accepts(name), arguments) for name, arguments in calls or ()
                ]
                if not mapped or any(name is None for name, _ in mapped):
                    if result:
                        self._buffer = self._buffer[length:]
                        self.made_up += 1
                    else:
                        self._release(self._buffer[:length])
                else:
                    self._buffer = self._buffer[length:]
                    self._out.extend(
                        TextToolCall(name, arguments)
                        for name, arguments in mapped
                        if name is not None
                    )
                    self._at_start = True
        return True

    def _through_fence(self, *, final: bool) -> bool:
        """Release a code block's text, up to and with its closing fence."""
        buffer = self._buffer
        if (end := buffer.find(FENCE)) >= 0:
            self._release(buffer[: end + len(FENCE)])
            self._in_fence = False
            return True
        held = 0 if final else len(buffer) - len(buffer.rstrip("`"))
        self._release(buffer[: len(buffer) - held])
        return False

    def _release(self, text: str) -> None:
        """Release text, joined to the text released just before."""
        self._buffer = self._buffer[len(text) :]
        if not text:
            return
        if text.strip():
            self._at_start = False
        if self._out and isinstance(last := self._out[-1], str):
            self._out[-1] = last + text
        else:
            self._out.append(text)
