"""The readers of the streaming parser: one per way a call can start.

Each reader is handed the text from a candidate opener on, and tells whether
the candidate is ordinary text, a block of calls, or not decided yet.
"""

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
import re
import string
from typing import Final, override

from ...prompts import (
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    TOOL_RESPONSE_CLOSE,
    TOOL_RESPONSE_OPEN,
)
from ..json import FENCE
from .formats import NAME_CHARS, BracketEnd, Call, calls_in, xml_calls

_PYTHON_TAG: Final = "<|python_tag|>"
_MISTRAL: Final = "[TOOL_CALLS]"
_FUNCTION: Final = "<function="
_INVOKE: Final = "<invoke"
_FUNCTION_CALLS: Final = "<function_calls>"
# Fence languages that may hold a call; any other language is a code block.
_CALL_LANGUAGES: Final = ("json", "tool_call", "")
_FENCE_INFO_CHARS: Final = string.ascii_letters + string.digits + "_+-"
_FUNCTION_HEADER: Final = re.compile(rf"<function=({NAME_CHARS}{{1,64}})>")
_FUNCTION_HEADER_START: Final = re.compile(rf"<function={NAME_CHARS}{{0,64}}\Z")
_INVOKE_HEADER: Final = re.compile(
    r"<invoke\s+name\s*=\s*([\"'])([^\"'<>\n]{1,64})\1\s*>"
)
_INVOKE_HEADER_START: Final = re.compile(r"<invoke(?:\s[^<>]{0,100})?\Z")
_MISTRAL_HEADER: Final = re.compile(
    r"([\w.\-]{1,64})(?:\[CALL_ID\][\w\-]{0,64})?\[ARGS\]\s*"
)
_MISTRAL_HEADER_START: Final = re.compile(r"[\w.\-\[\]]{0,150}\Z")
OPENER_START: Final = re.compile(r"[<\[`]")


@dataclass(slots=True)
class Text:
    """The candidate is text: release its first `length` characters."""

    length: int
    in_fence: bool = False
    """Whether the released text opened a code block that is not a call."""


@dataclass(slots=True)
class Calls:
    """The candidate ends after `length` characters with these calls."""

    length: int
    calls: list[Call] | None
    result: bool = False
    """Whether the block was written in the results' tags: without calls of
    offered tools it is a result the model made up, and is dropped."""


type Verdict = Text | Calls | None


class Reader(ABC):
    """Read one candidate call that starts at the beginning of the buffer."""

    @abstractmethod
    def read(self, buffer: str, *, final: bool) -> Verdict:
        """Return the verdict on the candidate, or None to wait for more text."""


@dataclass(frozen=True, slots=True)
class _Tags:
    """How a call between an opening and a closing tag is written."""

    opener: str
    closer: str
    header: re.Pattern[str] | None = None
    """The whole header that opens the call, when the opener starts one."""
    header_start: re.Pattern[str] | None = None
    """What the header may look like before it is complete."""
    body_starts: str = "{[<`"
    """The characters the body may start with, after whitespace."""
    whole_span: bool = False
    """Whether the calls are read from the tags and body, not the body alone."""
    result: bool = False
    """Whether these are the tags results come back in (see Calls.result)."""


class _Tagged(Reader):
    """A call between an opening and a closing tag."""

    def __init__(self, tags: _Tags) -> None:
        """Read a call written with these tags."""
        self._tags = tags

    @override
    def read(self, buffer: str, *, final: bool) -> Verdict:
        """Wait for the closing tag, then read the calls between the tags."""
        tags = self._tags
        not_a_call = Text(len(tags.opener))
        body_start = len(tags.opener)
        if tags.header is not None and tags.header_start is not None:
            if (header := tags.header.match(buffer)) is None:
                waiting = not final and tags.header_start.match(buffer)
                return None if waiting else not_a_call
            body_start = header.end()
        if (begins := _begins(buffer, body_start, tags.body_starts)) is None:
            return not_a_call if final else None
        if not begins:
            return not_a_call
        end = buffer.find(tags.closer, body_start)
        if end >= 0:
            length = end + len(tags.closer)
            calls = self._parse(buffer[:length], end, salvage=True)
            return Calls(length, calls, result=tags.result)
        if not final:
            return None
        # A whole call without its closing tag: the server stopped at the tag.
        # A result cut off is made up all the same.
        calls = self._parse(buffer + tags.closer, len(buffer), salvage=False)
        whole = calls or tags.result
        return Calls(len(buffer), calls, result=tags.result) if whole else not_a_call

    def _parse(self, span: str, end: int, *, salvage: bool) -> list[Call] | None:
        """Read the calls of a span whose closing tag starts at end."""
        if self._tags.whole_span:
            return xml_calls(span, salvage=salvage)
        return calls_in(span[len(self._tags.opener) : end], salvage=salvage)


class _Fence(Reader):
    """A fenced block that holds a call, or a code block to leave alone."""

    @override
    def read(self, buffer: str, *, final: bool) -> Verdict:
        """Wait for the closing fence of a JSON block, then read its calls."""
        body_start = self._body_start(buffer, final=final)
        if not isinstance(body_start, int):
            return body_start
        code_block = Text(body_start, in_fence=True)
        if (begins := _begins(buffer, body_start, "{[")) is None:
            return code_block if final else None
        if not begins:
            return code_block
        end = buffer.find(FENCE, body_start)
        if end >= 0:
            length = end + len(FENCE)
            return Calls(length, calls_in(buffer[body_start:end], salvage=True))
        if not final:
            return None
        calls = calls_in(buffer[body_start:], salvage=False)
        return Calls(len(buffer), calls) if calls else code_block

    @staticmethod
    def _body_start(buffer: str, *, final: bool) -> int | Verdict:
        """Return where the body starts after the language, or the verdict."""
        info = buffer[len(FENCE) :]
        info = info[: len(info) - len(info.lstrip(_FENCE_INFO_CHARS))]
        language = info.lower()
        body_start = len(FENCE) + len(info)
        code_block = Text(body_start, in_fence=True)
        if body_start == len(buffer):
            waiting = not final and any(
                candidate.startswith(language) for candidate in _CALL_LANGUAGES
            )
            return None if waiting else code_block
        if language in _CALL_LANGUAGES and (
            buffer[body_start].isspace() or buffer[body_start] in "{["
        ):
            return body_start
        return code_block


def _begins(buffer: str, start: int, starts: str) -> bool | None:
    """Return whether the body at start begins with one of starts, after spaces.

    None tells that only whitespace has come so far.
    """
    body = buffer[start:].lstrip()
    return body[0] in starts if body else None


class OpenJson(Reader):
    """A JSON call after an opener, ending where its value closes."""

    def __init__(self, opener: str) -> None:
        """Read the value after the opener ("" for a bare object)."""
        self._opener = opener
        self._end: BracketEnd | None = None

    @override
    def read(self, buffer: str, *, final: bool) -> Verdict:
        """Wait for the value to close, then read its calls."""
        # Not a call: release the opener, or a bare object's brace, and read on.
        not_a_call = Text(len(self._opener) or 1)
        if self._end is None:
            start = len(buffer) - len(buffer[len(self._opener) :].lstrip())
            if start == len(buffer):
                return not_a_call if final else None
            if not self._start(buffer, start):
                return not_a_call
            if self._end is None:
                return not_a_call if final else None
        end = self._end.scan(buffer)
        if end is None:
            return not_a_call if final else None
        return Calls(end, self._parse(buffer, end))

    def _start(self, buffer: str, start: int) -> bool:
        """Begin the value at start; return False when it cannot be a call.

        The value may not have begun yet when the text so far cannot tell.
        """
        if buffer[start] not in "{[":
            return False
        if not self._opener:
            # Prose that starts with a brace is not JSON: {Kitchen} is on.
            rest = buffer[start + 1 :].lstrip()
            if not rest:
                return True
            if rest[0] not in "\"'}":
                return False
        self._end = BracketEnd(start)
        return True

    def _parse(self, buffer: str, end: int) -> list[Call] | None:
        """Read the calls of the complete value."""
        return calls_in(buffer[len(self._opener) : end], salvage=False)


class _Mistral(OpenJson):
    """[TOOL_CALLS] then a JSON list, or name[ARGS]{...} (Mistral v11 and later)."""

    def __init__(self) -> None:
        """Read after [TOOL_CALLS]."""
        super().__init__(_MISTRAL)
        self._name: str | None = None
        self._arguments_start = 0

    @override
    def _start(self, buffer: str, start: int) -> bool:
        """Begin the JSON list, or the JSON arguments after a name header."""
        if buffer[start] in "{[":
            self._end = BracketEnd(start)
            return True
        header = _MISTRAL_HEADER.match(buffer, start)
        if header is None:
            return _MISTRAL_HEADER_START.match(buffer, start) is not None
        if header.end() == len(buffer):
            return True
        if buffer[header.end()] != "{":
            return False
        self._name = header.group(1)
        self._arguments_start = header.end()
        self._end = BracketEnd(header.end())
        return True

    @override
    def _parse(self, buffer: str, end: int) -> list[Call] | None:
        """Read the name header's call, or the calls of the JSON list."""
        if self._name is None:
            return super()._parse(buffer, end)
        return [(self._name, buffer[self._arguments_start : end])]


# Openers in the order they are tried; none is a prefix of another.
OPENERS: Final[tuple[tuple[str, Callable[[], Reader]], ...]] = (
    (TOOL_CALL_OPEN, lambda: _Tagged(_Tags(TOOL_CALL_OPEN, TOOL_CALL_CLOSE))),
    # Told that results come back in these tags, small models (Qwen2.5-Coder
    # 1.5B) write their call in them too. Or a result of their own, in place
    # of calling ({"temperature": 22}): made up, never shown or spoken.
    (
        TOOL_RESPONSE_OPEN,
        lambda: _Tagged(_Tags(TOOL_RESPONSE_OPEN, TOOL_RESPONSE_CLOSE, result=True)),
    ),
    (
        _FUNCTION_CALLS,
        lambda: _Tagged(_Tags(_FUNCTION_CALLS, "</function_calls>", body_starts="<")),
    ),
    (
        _FUNCTION,
        lambda: _Tagged(
            _Tags(
                _FUNCTION,
                "</function>",
                header=_FUNCTION_HEADER,
                header_start=_FUNCTION_HEADER_START,
                body_starts="{<",
                whole_span=True,
            )
        ),
    ),
    (
        _INVOKE,
        lambda: _Tagged(
            _Tags(
                _INVOKE,
                "</invoke>",
                header=_INVOKE_HEADER,
                header_start=_INVOKE_HEADER_START,
                body_starts="{<",
                whole_span=True,
            )
        ),
    ),
    (_PYTHON_TAG, lambda: OpenJson(_PYTHON_TAG)),
    (_MISTRAL, _Mistral),
    (FENCE, _Fence),
)
MAX_HOLD: Final = max(len(opener) for opener, _ in OPENERS) - 1
"""The most ordinary text that is held back: a partial opener."""
