"""Find the tool calls that a model writes as text, and describe tools as text.

Servers without a tool-call parser for the model (llama.cpp with a template it
cannot derive one from, Ollama models without a tool template, LM Studio) return
the calls in the content. TextToolCallParser reads them from the content stream
in the formats models are trained on:

- Hermes and Qwen: <tool_call>{"name": ..., "arguments": {...}}</tool_call>,
  and Qwen3-Coder's <tool_call><function=name>...</function></tool_call>;
- Llama 3: <|python_tag|>{"name": ..., "parameters": {...}}, and the bare
  object as the whole message;
- Mistral: [TOOL_CALLS][{...}, ...] and [TOOL_CALLS]name[ARGS]{...};
- fenced ```json blocks (or ``` without a language) holding a call or a list;
- <function=name>{...}</function>, <function=name><parameter=key>value
  </parameter></function>, and <invoke name="..."><parameter name="...">
  </parameter></invoke>, optionally inside <function_calls>.

text_tool_prompt is the other half of text tool mode: the system prompt
section that describes the tools and asks for Hermes <tool_call> blocks. The
history goes back in the same form (wire.with_text_tool_calls).
"""

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
import json
import re
import string
from typing import Any, Final, override

from openai.types.chat import ChatCompletionToolParam

from ..tools.arguments import (
    MAX_ARGUMENTS_CHARS,
    ToolArgumentsError,
    fence_body,
    parse_tool_arguments,
)

TOOL_CALL_OPEN: Final = "<tool_call>"
TOOL_CALL_CLOSE: Final = "</tool_call>"
TOOL_RESPONSE_OPEN: Final = "<tool_response>"
TOOL_RESPONSE_CLOSE: Final = "</tool_response>"

_PYTHON_TAG: Final = "<|python_tag|>"
_MISTRAL: Final = "[TOOL_CALLS]"
_FENCE: Final = "```"
_FUNCTION: Final = "<function="
_INVOKE: Final = "<invoke"
_FUNCTION_CALLS: Final = "<function_calls>"
# Fence languages that may hold a call; any other language is a code block.
_CALL_LANGUAGES: Final = ("json", "tool_call", "")
_NAME_CHARS: Final = r"[^\s<>\"'/=]"
_FENCE_INFO_CHARS: Final = string.ascii_letters + string.digits + "_+-"
_FUNCTION_HEADER: Final = re.compile(rf"<function=({_NAME_CHARS}{{1,64}})>")
_FUNCTION_HEADER_START: Final = re.compile(rf"<function={_NAME_CHARS}{{0,64}}\Z")
_INVOKE_HEADER: Final = re.compile(
    r"<invoke\s+name\s*=\s*([\"'])([^\"'<>\n]{1,64})\1\s*>"
)
_INVOKE_HEADER_START: Final = re.compile(r"<invoke(?:\s[^<>]{0,100})?\Z")
_MISTRAL_HEADER: Final = re.compile(
    r"([\w.\-]{1,64})(?:\[CALL_ID\][\w\-]{0,64})?\[ARGS\]\s*"
)
_MISTRAL_HEADER_START: Final = re.compile(r"[\w.\-\[\]]{0,150}\Z")
_XML_CALL: Final = re.compile(
    rf"\s*(?:<function=(?P<fname>{_NAME_CHARS}{{1,64}})>(?P<fbody>.*?)</function>"
    r"|<invoke\s+name\s*=\s*(?P<q>[\"'])(?P<iname>[^\"'<>\n]{1,64})(?P=q)\s*>"
    r"(?P<ibody>.*?)</invoke>)\s*",
    re.DOTALL,
)
_XML_PARAMETER: Final = re.compile(
    rf"\s*(?:<parameter=(?P<key>{_NAME_CHARS}{{1,64}})>"
    r"|<parameter\s+name\s*=\s*(?P<q>[\"'])(?P<qkey>[^\"'<>\n]{1,64})(?P=q)\s*>)"
    r"(?P<value>.*?)</parameter>\s*",
    re.DOTALL,
)
# A call whose JSON is broken after its name: its arguments are handed on as
# they are, so that the model hears what is wrong with them.
_BROKEN_CALL: Final = re.compile(
    r"\A\s*\{\s*\"name\"\s*:\s*\"([^\"\\]{1,64})\"\s*,\s*"
    r"\"(?:arguments|parameters)\"\s*:\s*(.*)\Z",
    re.DOTALL,
)
_OPENER_START: Final = re.compile(r"[<\[`]")
_DECODER: Final = json.JSONDecoder(strict=False)
_ENVELOPE_KEYS: Final = frozenset({"name", "function", "type", "id"})


@dataclass(frozen=True, slots=True)
class TextToolCall:
    """A tool call that the model wrote as text."""

    name: str
    """The offered tool's name, as accepts mapped it."""

    arguments: str
    """The arguments as JSON text, to be read with parse_tool_arguments."""


type TextPiece = str | TextToolCall
type _Call = tuple[str, str]


def tool_name_matcher(names: Iterable[str]) -> Callable[[str], str | None]:
    """Return an accepts function for TextToolCallParser over the offered names.

    A name matches exactly, or else ignoring case and a "functions." or
    "default_api." prefix that models trained on other APIs write.
    """
    exact = set(names)
    folded = {name.casefold(): name for name in exact}

    def accepts(name: str) -> str | None:
        if name in exact:
            return name
        bare = name.strip().removeprefix("functions.").removeprefix("default_api.")
        return folded.get(bare.casefold())

    return accepts


@dataclass(slots=True)
class _Text:
    """The candidate is text: release its first `length` characters."""

    length: int
    in_fence: bool = False
    """Whether the released text opened a code block that is not a call."""


@dataclass(slots=True)
class _Calls:
    """The candidate ends after `length` characters with these calls."""

    length: int
    calls: list[_Call] | None


type _Verdict = _Text | _Calls | None


class _BracketEnd:
    """Find, resumably, where a JSON or Python-literal value ends."""

    def __init__(self, start: int) -> None:
        """Start scanning at the value's opening bracket."""
        self.position = start
        self._depth = 0
        self._quote = ""
        self._escaped = False

    def scan(self, text: str) -> int | None:
        """Return the index after the value's closing bracket, if it came."""
        for index in range(self.position, len(text)):
            char = text[index]
            if self._quote:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == self._quote:
                    self._quote = ""
            elif char in "\"'":
                self._quote = char
            elif char in "{[":
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if not self._depth:
                    self.position = index + 1
                    return index + 1
        self.position = len(text)
        return None


class _Reader(ABC):
    """Read one candidate call that starts at the beginning of the buffer."""

    @abstractmethod
    def read(self, buffer: str, *, final: bool) -> _Verdict:
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


class _Tagged(_Reader):
    """A call between an opening and a closing tag."""

    def __init__(self, tags: _Tags) -> None:
        """Read a call written with these tags."""
        self._tags = tags

    @override
    def read(self, buffer: str, *, final: bool) -> _Verdict:
        """Wait for the closing tag, then read the calls between the tags."""
        tags = self._tags
        not_a_call = _Text(len(tags.opener))
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
            return _Calls(length, self._parse(buffer[:length], end, salvage=True))
        if not final:
            return None
        # A whole call without its closing tag: the server stopped at the tag.
        calls = self._parse(buffer + tags.closer, len(buffer), salvage=False)
        return _Calls(len(buffer), calls) if calls else not_a_call

    def _parse(self, span: str, end: int, *, salvage: bool) -> list[_Call] | None:
        """Read the calls of a span whose closing tag starts at end."""
        if self._tags.whole_span:
            return _xml_calls(span, salvage=salvage)
        return _calls_in(span[len(self._tags.opener) : end], salvage=salvage)


class _Fence(_Reader):
    """A fenced block that holds a call, or a code block to leave alone."""

    @override
    def read(self, buffer: str, *, final: bool) -> _Verdict:
        """Wait for the closing fence of a JSON block, then read its calls."""
        body_start = self._body_start(buffer, final=final)
        if not isinstance(body_start, int):
            return body_start
        code_block = _Text(body_start, in_fence=True)
        if (begins := _begins(buffer, body_start, "{[")) is None:
            return code_block if final else None
        if not begins:
            return code_block
        end = buffer.find(_FENCE, body_start)
        if end >= 0:
            length = end + len(_FENCE)
            return _Calls(length, _calls_in(buffer[body_start:end], salvage=True))
        if not final:
            return None
        calls = _calls_in(buffer[body_start:], salvage=False)
        return _Calls(len(buffer), calls) if calls else code_block

    @staticmethod
    def _body_start(buffer: str, *, final: bool) -> int | _Verdict:
        """Return where the body starts after the language, or the verdict."""
        info = buffer[len(_FENCE) :]
        info = info[: len(info) - len(info.lstrip(_FENCE_INFO_CHARS))]
        language = info.lower()
        body_start = len(_FENCE) + len(info)
        code_block = _Text(body_start, in_fence=True)
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


class _OpenJson(_Reader):
    """A JSON call after an opener, ending where its value closes."""

    def __init__(self, opener: str) -> None:
        """Read the value after the opener ("" for a bare object)."""
        self._opener = opener
        self._end: _BracketEnd | None = None

    @override
    def read(self, buffer: str, *, final: bool) -> _Verdict:
        """Wait for the value to close, then read its calls."""
        # Not a call: release the opener, or a bare object's brace, and read on.
        not_a_call = _Text(len(self._opener) or 1)
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
        return _Calls(end, self._parse(buffer, end))

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
        self._end = _BracketEnd(start)
        return True

    def _parse(self, buffer: str, end: int) -> list[_Call] | None:
        """Read the calls of the complete value."""
        return _calls_in(buffer[len(self._opener) : end], salvage=False)


class _Mistral(_OpenJson):
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
            self._end = _BracketEnd(start)
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
        self._end = _BracketEnd(header.end())
        return True

    @override
    def _parse(self, buffer: str, end: int) -> list[_Call] | None:
        """Read the name header's call, or the calls of the JSON list."""
        if self._name is None:
            return super()._parse(buffer, end)
        return [(self._name, buffer[self._arguments_start : end])]


# Openers in the order they are tried; none is a prefix of another.
_OPENERS: Final[tuple[tuple[str, Callable[[], _Reader]], ...]] = (
    (TOOL_CALL_OPEN, lambda: _Tagged(_Tags(TOOL_CALL_OPEN, TOOL_CALL_CLOSE))),
    # Told that results come back in these tags, small models (Qwen2.5-Coder
    # 1.5B) write their call in them too. A result written back holds no call
    # of an offered tool, so it stays text.
    (
        TOOL_RESPONSE_OPEN,
        lambda: _Tagged(_Tags(TOOL_RESPONSE_OPEN, TOOL_RESPONSE_CLOSE)),
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
    (_PYTHON_TAG, lambda: _OpenJson(_PYTHON_TAG)),
    (_MISTRAL, _Mistral),
    (_FENCE, _Fence),
)
# The longest candidate call held back: the arguments' limit, and its tags.
MAX_CALL_CHARS: Final = MAX_ARGUMENTS_CHARS + 1_024
MAX_HOLD: Final = max(len(opener) for opener, _ in _OPENERS) - 1
"""The most ordinary text that is held back: a partial opener."""


class TextToolCallParser:
    """Find tool calls written as text in a streamed answer.

    feed() returns, in order, the text that is safe to release and the calls
    that completed; finish() flushes at the end of the stream. Text that could
    still be the start of a call is held back, and released as soon as it
    cannot be one: ordinary text waits for at most MAX_HOLD characters. A
    candidate call is held until it is complete.

    Joined, the text pieces are the input without the calls: nothing else is
    dropped, added or reordered. Only the calls whose every name accepts maps
    to an offered tool become calls; a block with an unknown name, an
    unreadable one or one cut off by the end of the stream stays text. A call
    whose closing tag or fence never came but whose JSON is whole is still a
    call, for servers that stop at the closing tag.
    """

    def __init__(self, accepts: Callable[[str], str | None]) -> None:
        """Start a message; accepts maps a written name to an offered tool's."""
        self._accepts = accepts
        self._buffer = ""
        self._reader: _Reader | None = None
        # A bare JSON call can only be the whole message, or follow a call.
        self._at_start = True
        self._in_fence = False
        self._out: list[TextPiece] = []

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
                    self._reader = _OpenJson("")
                    return True
            else:
                self._release(buffer)
                return False
        for match in _OPENER_START.finditer(buffer):
            rest = buffer[match.start() :]
            for opener, reader in _OPENERS:
                if rest.startswith(opener):
                    self._release(buffer[: match.start()])
                    self._reader = reader()
                    return True
            if not final and any(opener.startswith(rest) for opener, _ in _OPENERS):
                self._release(buffer[: match.start()])
                return False
        self._release(buffer)
        return False

    def _read(self, reader: _Reader, *, final: bool) -> bool:
        """Let the candidate's reader decide, and act on its verdict.

        A candidate longer than any call is decided at once, as at the end of
        the stream: held, it would be read again with every chunk.
        """
        final = final or len(self._buffer) > MAX_CALL_CHARS
        match reader.read(self._buffer, final=final):
            case None:
                return False
            case _Text(length=length, in_fence=in_fence):
                self._reader = None
                self._release(self._buffer[:length])
                self._in_fence = in_fence
            case _Calls(length=length, calls=calls):
                self._reader = None
                mapped = [
                    (self._accepts(name), arguments) for name, arguments in calls or ()
                ]
                if not mapped or any(name is None for name, _ in mapped):
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
        if (end := buffer.find(_FENCE)) >= 0:
            self._release(buffer[: end + len(_FENCE)])
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


def _calls_in(text: str, *, salvage: bool) -> list[_Call] | None:
    """Read the calls of a block's body: JSON or the XML forms."""
    text = text.strip()
    if (body := fence_body(text)) is not None:
        text = body
    if text.startswith("<"):
        return _xml_calls(text, salvage=salvage)
    if (calls := _json_calls(text)) is not None:
        return calls
    if salvage and (broken := _BROKEN_CALL.match(text)):
        return [(broken.group(1), broken.group(2))]
    return None


def _json_calls(text: str) -> list[_Call] | None:
    """Read call objects, or lists of them, written one after another."""
    values: list[Any] = []
    position = 0
    while position < len(text):
        try:
            value, position = _DECODER.raw_decode(text, position)
        except ValueError, RecursionError:
            # Bad JSON, or an integer longer than Python converts (4,300 digits).
            # Python-style objects, with single quotes or True.
            try:
                values = [parse_tool_arguments(text)]
            except ToolArgumentsError:
                return None
            break
        values.extend(value if isinstance(value, list) else [value])
        position = len(text) - len(text[position:].lstrip().lstrip(",;").lstrip())
    calls = [_envelope(value) for value in values]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _envelope(value: Any) -> _Call | None:
    """Return the name and JSON arguments of one call object."""
    if not isinstance(value, dict) or "description" in value:
        # A tool's definition echoed back is not a call.
        return None
    function = value.get("function")
    if isinstance(function, dict):
        # The OpenAI shape: {"type": "function", "function": {...}}.
        return _envelope(function)
    name = function if isinstance(function, str) else value.get("name")
    if not isinstance(name, str) or not name:
        return None
    for key in ("arguments", "parameters"):
        if key in value:
            arguments = value[key]
            break
    else:
        # Small models write the arguments beside the name.
        taken = (
            _ENVELOPE_KEYS - {"name"} if isinstance(function, str) else _ENVELOPE_KEYS
        )
        arguments = {key: item for key, item in value.items() if key not in taken}
    if isinstance(arguments, str):
        return name, arguments
    return name, json.dumps(arguments, ensure_ascii=False)


def _xml_calls(text: str, *, salvage: bool) -> list[_Call] | None:
    """Read <function=name> and <invoke name="..."> calls.

    Without salvage, JSON arguments must be whole.
    """
    calls: list[_Call] = []
    position = 0
    while position < len(text):
        if (match := _XML_CALL.match(text, position)) is None:
            return None
        position = match.end()
        if match.group("fname") is not None:
            name, body = match.group("fname"), match.group("fbody")
        else:
            name, body = match.group("iname"), match.group("ibody")
        if (arguments := _xml_arguments(body, salvage=salvage)) is None:
            return None
        calls.append((name, arguments))
    return calls or None


def _xml_arguments(body: str, *, salvage: bool) -> str | None:
    """Return the JSON arguments of an XML call's body."""
    body = body.strip()
    if not body:
        return "{}"
    if body.startswith("{"):
        whole = salvage or _BracketEnd(0).scan(body) == len(body)
        return body if whole else None
    arguments: dict[str, Any] = {}
    position = 0
    while position < len(body):
        if (match := _XML_PARAMETER.match(body, position)) is None:
            return None
        position = match.end()
        key = match.group("key") or match.group("qkey")
        arguments[key] = _xml_value(match.group("value"))
    return json.dumps(arguments, ensure_ascii=False)


def _xml_value(text: str) -> Any:
    """Return a parameter's value: JSON when it is JSON, else the text."""
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def text_tool_prompt(tools: list[ChatCompletionToolParam]) -> str:
    """Return the system prompt section that offers the tools as text.

    It lists the tools as Hermes and Qwen templates do, one JSON object per
    line, and asks for the <tool_call> format those models are trained on.
    """
    lines = [
        json.dumps(
            {
                "name": tool["function"]["name"],
                "description": tool["function"].get("description", ""),
                "parameters": tool["function"].get("parameters", {}),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for tool in tools
    ]
    listing = "\n".join(lines)
    return (
        "# Tools\n\n"
        "You may call one or more tools to assist with the user query. The tools "
        "are described within <tools></tools> XML tags, each with its name, what "
        "it does and its parameters as JSON schema:\n"
        f"<tools>\n{listing}\n</tools>\n\n"
        "To do what the user asks, write the call itself: never tell the user "
        "which tool to call or how.\n"
        "For each tool call, write a JSON object with the tool's name and "
        "arguments within <tool_call></tool_call> XML tags, exactly like this:\n"
        f"{TOOL_CALL_OPEN}\n"
        '{"name": <tool-name>, "arguments": <args-json-object>}\n'
        f"{TOOL_CALL_CLOSE}\n"
        "Call only the tools listed above. After your tool calls, write nothing "
        "else and stop: the results come back in the next message, each within "
        f"{TOOL_RESPONSE_OPEN}{TOOL_RESPONSE_CLOSE} XML tags. Then answer the "
        "user in plain words, without any tags."
    )
