"""The fault matrix: every fault the test server can play, one conversation each.

Each story: the user has had one good exchange; then asks to turn on the
kitchen light, and the server (or the network to it) fails in one way. The user
hears one sentence from en.json, or the right answer; the chat log stays valid,
every tool call answered; the next turn of the same conversation works; nothing
is logged at ERROR with a traceback unless the case says it deserves one; and
no task or timer is left running: the test plugin's autouse verify_cleanup
fails the test otherwise, and the `cleanup_is_checked` fixture asserts that it
is active and strict (no lingering tasks or timers expected).

Run with `pytest -s tests/scenarios/test_fault_matrix.py` to see the matrix as a table;
it is also written to fault_matrix.md under pytest's base temporary directory.
"""

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import astuple, dataclass, field
import logging
import socket
from typing import Any
from urllib.parse import urlsplit

import pytest

from homeassistant.components import conversation
from homeassistant.components.conversation.chat_log import DATA_CHAT_LOGS
from homeassistant.const import CONF_URL, STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.agent import entity
from custom_components.chatterbox.const import DEFAULT_CONTEXT_WINDOW
from tests.helpers.common import (
    AGENT_ENTITY_ID,
    MODELS,
    is_summary_request,
    tool_result,
)
from tests.helpers.faults import (
    CONVERSATION_ID,
    DONE,
    FIRST_ANSWER,
    FIRST_QUESTION,
    NEXT_ANSWER,
    NEXT_QUESTION,
    QUESTION,
    ROLE_CHUNK,
    SHORT_TIMEOUT,
    ask,
    assert_hears,
    assert_next_turn_works,
    assert_tool_calls_answered,
    chunk,
    sentence,
    speech,
    sse,
)
from tests.helpers.llm_server import (
    Call,
    ChatReply,
    Disconnect,
    Error,
    LLMServer,
    Raw,
    Text,
    ToolCalls,
    openai_error,
)

TURN_ON = "intent__HassTurnOn"
CONFIRMED = "The kitchen light is on."
# An answer that acts on nothing and stands: a question back.
ASKED = "Do you mean the kitchen light?"
# The answer after a call that failed.
COULD_NOT = "I could not turn on the kitchen light."
# A name on the home network that stops resolving, as when the server's machine
# leaves it. The stand-in resolver answers for it alone; every other name still
# meets the test plugin's block on DNS, so nothing goes out to a real resolver.
SERVER_NAME = "llm-server.home.arpa"
# Fifty characters, streamed one a chunk.
FIFTY_CHARACTERS = '{"name": "Kitchen light",  "domain": [ "light" ] }'
BIG_ANSWER = "The light is on. " * (2 * 1024 * 1024 // len("The light is on. "))
SUMMARY = "The user asked for the kitchen light and got a very long answer."


@dataclass
class Scene:
    """What an outage acts on: Home Assistant, the server entry, the server."""

    hass: HomeAssistant
    entry: MockConfigEntry
    server: LLMServer
    monkeypatch: pytest.MonkeyPatch
    port: int = field(init=False)
    """The server's port, kept for when it comes back."""

    def __post_init__(self) -> None:
        """Note the port while the server listens."""
        port = urlsplit(self.server.url).port
        assert port is not None
        self.port = port

    async def server_back(self) -> None:
        """Start the server again, and run the check the agent does every minute."""
        await self.server.start(self.port)
        coordinator = self.entry.runtime_data.coordinator
        await coordinator.async_refresh()
        assert coordinator.last_update_success


type Outage = Callable[[Scene], AbstractAsyncContextManager[None]]


@dataclass(frozen=True, kw_only=True)
class Fault:
    """One fault, how it is played, and what the user should get."""

    replies: tuple[ChatReply, ...] = ()
    """What the server answers to the turn's requests, in order."""
    outage: Outage | None = None
    """What happens to the server or the network around the turn."""
    hears: str | None = None
    """The en.json key of the sentence the user hears; None for an answer."""
    placeholders: dict[str, str] = field(default_factory=dict)
    answer: str = ASKED
    """What the user hears when the turn succeeds."""
    light: str = "off"
    """The kitchen light after the turn: on only when a tool turned it on."""
    results: tuple[str, ...] = ()
    """The error of each tool result the model got back, sorted; "" for none."""
    logged: str | None = None
    """What the log says about the fault, if it says anything."""
    short_timeout: bool = False
    """The agent waits only SHORT_TIMEOUT to connect, and for a silent server."""
    traceback: bool = False
    """The fault deserves an ERROR with a traceback in the log."""


@asynccontextmanager
async def no_outage(scene: Scene) -> AsyncIterator[None]:
    """Leave the server and the network alone: the server plays the fault."""
    del scene
    yield


@asynccontextmanager
async def server_down(scene: Scene) -> AsyncIterator[None]:
    """Nothing listens on the server's port: the connection is refused."""
    await scene.server.stop()
    yield
    await scene.server_back()


@asynccontextmanager
async def never_accepts(scene: Scene) -> AsyncIterator[None]:
    """Listen on the port but never accept: its one-slot queue is already taken.

    The kernel then drops the next connection's SYN, as a firewall or a
    machine too busy to answer would, and the connect times out.
    """
    await scene.server.stop()
    listener = socket.create_server(("127.0.0.1", scene.port), backlog=0)
    _, holder = await asyncio.open_connection("127.0.0.1", scene.port)
    try:
        yield
    finally:
        holder.close()
        await holder.wait_closed()
        listener.close()
    await scene.server_back()


@asynccontextmanager
async def name_stops_resolving(scene: Scene) -> AsyncIterator[None]:
    """Reach the server by its name; then the machine leaves, and so does the name."""
    known = {SERVER_NAME}
    resolve = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        # anyio hands the name over IDNA-encoded, as bytes.
        name = host.decode() if isinstance(host, bytes) else host
        if name != SERVER_NAME:
            return resolve(host, *args, **kwargs)
        if name not in known:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve("127.0.0.1", *args, **kwargs)

    scene.monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    url = f"http://{SERVER_NAME}:{scene.port}/v1"
    scene.hass.config_entries.async_update_entry(
        scene.entry, data={**scene.entry.data, CONF_URL: url}
    )
    await scene.hass.async_block_till_done()
    await scene.server.stop()
    known.clear()
    yield
    known.add(SERVER_NAME)
    await scene.server_back()


def http_error(
    status: int,
    body: Any = None,
    headers: dict[str, str] | None = None,
    *,
    hears: str = "server_error",
    placeholders: dict[str, str] | None = None,
) -> Fault:
    """Refuse the turn's request with this status; the log names it."""
    return Fault(
        replies=(Error(status, body, headers),),
        hears=hears,
        placeholders=placeholders or {},
        logged=f"HTTP {status}",
    )


def answer_then(*replies: ChatReply) -> tuple[ChatReply, ...]:
    """Script a turn that ends, after these replies, with the confirmation."""
    return (*replies, Text(CONFIRMED))


def raw(*events: str, **kwargs: Any) -> Raw:
    """Stream these events verbatim."""
    return Raw(list(events), **kwargs)


ANSWER_EVENTS = (
    ROLE_CHUNK,
    chunk({"content": "Do you mean"}),
    chunk({"content": " the kitchen light?"}),
    chunk({}, "stop"),
)
NGINX_413 = (
    "<html><head><title>413 Request Entity Too Large</title></head><body>"
    "<center><h1>413 Request Entity Too Large</h1></center>"
    "<hr><center>nginx</center></body></html>"
)
FASTAPI_422 = {
    "detail": [
        {
            "type": "missing",
            "loc": ["body", "messages", 3, "tool_call_id"],
            "msg": "Field required",
        }
    ]
}
NOT_FOUND = openai_error(
    f"The model `{MODELS[0]}` does not exist or you do not have access to it.",
    code="model_not_found",
)

FAULTS: dict[str, Fault] = {
    # Cannot connect, and timeouts
    "connection-refused": Fault(
        outage=server_down, hears="cannot_connect", logged="Connection error"
    ),
    "dns-failure": Fault(
        outage=name_stops_resolving,
        hears="cannot_connect",
        logged="Name or service not known",
    ),
    "connect-timeout": Fault(
        outage=never_accepts,
        hears="cannot_connect",
        logged="ConnectTimeout",
        short_timeout=True,
    ),
    "read-timeout-mid-stream": Fault(
        # Chunks: role, "The ", "kitc", then silence.
        replies=(Text(CONFIRMED, hang_after=3),),
        hears="timeout",
        logged="ReadTimeout",
        short_timeout=True,
    ),
    "server-hangs-up": Fault(
        replies=(Disconnect(),), hears="cannot_connect", logged="Server disconnected"
    ),
    # HTTP errors
    "400": http_error(400),
    "401": http_error(
        401, openai_error("Bad key", code="invalid_api_key"), hears="auth_failed"
    ),
    "403": http_error(403, openai_error("Forbidden"), hears="auth_failed"),
    "404-model": http_error(
        404, NOT_FOUND, hears="model_not_found", placeholders={"model": MODELS[0]}
    ),
    "408": http_error(408),
    "413-context": http_error(
        413, NGINX_413, {"content-type": "text/html"}, hears="context_too_long"
    ),
    "422": http_error(422, FASTAPI_422),
    "429-with-retry-after": Fault(
        replies=(
            Error(429, openai_error("Slow down"), {"retry-after": "1"}),
            Text(ASKED),
        ),
        logged="Rate limited; retrying in 1.0 s",
    ),
    # Waits the default second, asks again, and is still refused.
    "429-without-retry-after": Fault(
        replies=(Error(429, openai_error("Slow down"), {}),) * 2,
        hears="rate_limited",
        logged="HTTP 429",
    ),
    "500": http_error(500),
    "502": http_error(502, openai_error("Bad gateway", type="server_error")),
    "503": http_error(503, openai_error("Loading model", type="server_error")),
    "non-json-error-body": Fault(
        replies=(Error(500, "CUDA error: out of memory"),),
        hears="server_error",
        logged="CUDA error: out of memory",
    ),
    "html-error-page": http_error(
        500,
        "<!DOCTYPE html><html><head><title>500 Internal Server Error</title>"
        "</head><body><h1>Internal Server Error</h1></body></html>",
        {"content-type": "text/html"},
    ),
    "html-page-with-200": Fault(
        replies=(
            raw(
                "<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>",
                content_type="text/html",
            ),
        ),
        hears="server_error",
        logged="answered with a web page",
    ),
    # Streams that break
    "sse-cut-mid-chunk": Fault(
        replies=(raw(*ANSWER_EVENTS[:2], ANSWER_EVENTS[2][:25], drop_after=3),),
        hears="stream_broken",
        logged="broke off",
    ),
    "sse-garbage-data": Fault(
        replies=(
            raw(*ANSWER_EVENTS[:2], "data: {not json\n\n", *ANSWER_EVENTS[2:], DONE),
        ),
        hears="stream_broken",
        logged="broke off",
    ),
    "sse-garbage-line": Fault(
        replies=(
            raw(*ANSWER_EVENTS[:2], "upstream hiccup\n\n", *ANSWER_EVENTS[2:], DONE),
        ),
    ),
    "no-done": Fault(replies=(raw(*ANSWER_EVENTS),)),
    "empty-choices": Fault(
        replies=(
            raw(
                sse(
                    {
                        "id": "chatcmpl-raw",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": MODELS[0],
                        "choices": [],
                    }
                ),
                DONE,
            ),
        ),
        hears="empty_response",
        logged="answered nothing to say",
    ),
    "empty-choices-first": Fault(
        replies=(
            raw(
                sse(
                    {
                        "id": "",
                        "object": "",
                        "created": 0,
                        "model": "",
                        "choices": [],
                        "prompt_filter_results": [],
                    }
                ),
                *ANSWER_EVENTS,
                DONE,
            ),
        ),
    ),
    "chunk-without-delta": Fault(
        # Azure sends its content filter's annotations as choices with no delta.
        replies=(
            raw(
                ROLE_CHUNK,
                sse(
                    {
                        "id": "chatcmpl-raw",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": MODELS[0],
                        "choices": [
                            {
                                "index": 0,
                                "delta": None,
                                "finish_reason": None,
                                "content_filter_results": {},
                            }
                        ],
                    }
                ),
                *ANSWER_EVENTS[1:],
                DONE,
            ),
        ),
    ),
    "usage-not-a-number": Fault(
        # A NaN learnt by the token estimator would fail every later turn.
        replies=(
            raw(
                *ANSWER_EVENTS,
                "data: " + '{"id": "chatcmpl-raw", "object": "chat.completion.chunk", '
                '"created": 0, "model": "m", "choices": [], "usage": '
                '{"prompt_tokens": NaN, "completion_tokens": "7", '
                '"total_tokens": -1}}\n\n',
                DONE,
            ),
        ),
    ),
    "fields-of-the-wrong-type": Fault(
        # Chunks are read as the JSON the server wrote: a number for the
        # content, a string for the calls or the choices, a list for the delta
        # or the chunk are read as absent, and the answer that follows is heard.
        replies=(
            raw(
                ROLE_CHUNK,
                sse(
                    {
                        "model": 7,
                        "choices": [
                            {
                                "delta": {
                                    "content": 5,
                                    "tool_calls": TURN_ON,
                                    "reasoning": ["thought"],
                                },
                                "finish_reason": 0,
                            }
                        ],
                        "usage": "many",
                    }
                ),
                sse({"choices": [{"delta": ["The"], "finish_reason": None}]}),
                sse({"choices": "none"}),
                sse([1, 2]),
                sse(3),
                *ANSWER_EVENTS[1:],
                DONE,
            ),
        ),
    ),
    "finish-length": Fault(
        replies=(Text("The kitchen light is", finish_reason="length"),),
        answer="The kitchen light is",
        logged="cut short at the token limit",
    ),
    "finish-content-filter": Fault(
        replies=(Text("I will not", finish_reason="content_filter"),),
        hears="content_filtered",
        logged="content filter",
    ),
    # Tool calls gone wrong
    "tool-args-in-50-chunks": Fault(
        replies=answer_then(ToolCalls([Call(TURN_ON, FIFTY_CHARACTERS)], piece_size=1)),
        light="on",
        answer=CONFIRMED,
        results=("",),
    ),
    "tool-json-never-closed": Fault(
        replies=(
            ToolCalls([Call(TURN_ON, '{"name": "Kitchen light", "domain": ["li')]),
            Text(COULD_NOT),
        ),
        answer=COULD_NOT,
        results=("InvalidArguments",),
    ),
    "tool-not-offered": Fault(
        replies=(ToolCalls([Call("UnlockAllDoors", {})]), Text(COULD_NOT)),
        answer=COULD_NOT,
        results=("UnknownTool",),
    ),
    "30-tool-calls": Fault(
        replies=answer_then(ToolCalls([Call(TURN_ON, {"name": "Kitchen light"})] * 30)),
        light="on",
        answer=CONFIRMED,
        # The same call runs once in a turn; the rest are refused, and the
        # model reads only the one result.
        results=("",),
    ),
    "2-mb-answer": Fault(
        replies=(Text(BIG_ANSWER, piece_size=64 * 1024),),
        # The agent stops reading past the room kept for an answer (1,024
        # tokens): the user hears the first piece, and the server is let go.
        answer=BIG_ANSWER[: 64 * 1024].strip(),
        logged="so the rest was not read",
    ),
}


@dataclass
class Row:
    """One line of the matrix, filled in as the checks pass."""

    case: str
    hears: str = "?"
    offline: str = "?"
    chat_log: str = "✗"
    next_turn: str = "✗"
    errors: str = "?"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Row]]:
    """Collect a row per case; print the table, and write it, at the end."""
    rows: list[Row] = []
    yield rows
    columns = ("case", "the user hears", "agent offline", "chat log valid")
    columns += ("next turn", "ERROR logged")
    lines = [
        f"| {' | '.join(columns)} |",
        f"|{' --- |' * len(columns)}",
        *(f"| {' | '.join(astuple(row))} |" for row in rows),
    ]
    table = "\n".join(lines)
    (tmp_path_factory.getbasetemp() / "fault_matrix.md").write_text(table + "\n")
    print(f"\n\nFault matrix\n\n{table}\n")  # noqa: T201  # the table is the output


@pytest.fixture
def cleanup_is_checked(request: pytest.FixtureRequest, verify_cleanup: None) -> None:
    """Make sure the plugin's verify_cleanup fails on any task or timer left.

    It is autouse; naming it here keeps it in even if that changed, and the
    test plugin fails a test on leftovers only while neither is expected.
    """
    assert request.getfixturevalue("expected_lingering_tasks") is False
    assert request.getfixturevalue("expected_lingering_timers") is False


def assert_chat_log_valid(hass: HomeAssistant) -> None:
    """Assert every tool call in the stored chat log has its result after it."""
    content = hass.data[DATA_CHAT_LOGS][CONVERSATION_ID].content
    answered = {
        item.tool_call_id
        for item in content
        if isinstance(item, conversation.ToolResultContent)
    }
    for index, item in enumerate(content):
        if isinstance(item, conversation.AssistantContent):
            for call in item.tool_calls or ():
                assert call.id in answered
                assert any(
                    isinstance(later, conversation.ToolResultContent)
                    and later.tool_call_id == call.id
                    for later in content[index + 1 :]
                )
    assert content[-1].role != "tool_result"


async def assert_next_answer(hass: HomeAssistant, server: LLMServer) -> None:
    """Assert the next turn, after a turn that answered, gets its answer too."""
    server.reply(Text(NEXT_ANSWER))
    result = await ask(hass, NEXT_QUESTION)
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert speech(result) == NEXT_ANSWER
    assert result.conversation_id == CONVERSATION_ID
    assert not server.unscripted
    messages = server.last_chat_request["messages"]
    assert_tool_calls_answered(messages)
    assert messages[-1] == {"role": "user", "content": NEXT_QUESTION}


def heard(fault: Fault, said: str) -> str:
    """Say in the table what the user heard, marked when it was wrong."""
    if fault.hears is not None and said == sentence(fault.hears, **fault.placeholders):
        return f"`{fault.hears}`: {said}"
    if fault.hears is None and said == fault.answer:
        short = said if len(said) <= len(CONFIRMED) else f"{said[:16]}…"
        return f"the answer: {short} ({len(said):,} characters)"
    return f"✗ {said[:60]}"


def tool_results(body: dict[str, Any]) -> tuple[str, ...]:
    """Return the error of each tool result the turn sent back, sorted."""
    messages = body["messages"]
    asked = messages.index({"role": "user", "content": QUESTION})
    results = [
        tool_result(message["content"])
        for message in messages[asked:]
        if message["role"] == "tool"
    ]
    return tuple(sorted(r["data"]["error"] if r["error"] else "" for r in results))


def error_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """Return what the turn logged at ERROR or above."""
    return [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]


def summarize(records: list[logging.LogRecord]) -> str:
    """Say in the table what was logged at ERROR."""
    if not records:
        return "none"
    with_traceback = sum(bool(r.exc_info) for r in records)
    return f"{len(records)} ERROR ({with_traceback} with traceback)"


@pytest.mark.parametrize("case", list(FAULTS))
async def test_fault(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    matrix: list[Row],
    cleanup_is_checked: None,
    case: str,
) -> None:
    """The user asks; the server fails in one way; the conversation goes on."""
    fault = FAULTS[case]
    row = Row(case)
    matrix.append(row)
    caplog.set_level(logging.INFO)
    llm_server.reply(Text(FIRST_ANSWER))
    assert speech(await ask(hass, FIRST_QUESTION)) == FIRST_ANSWER
    if fault.short_timeout:
        monkeypatch.setattr(entity, "REQUEST_TIMEOUT", SHORT_TIMEOUT)
        monkeypatch.setattr(entity, "CONNECT_TIMEOUT", SHORT_TIMEOUT)
    # What outgrows the context (the 64 KB heard of the 2 MB answer) is folded
    # into a summary the server is asked for on the side, outside the script.
    llm_server.responder = lambda body: (
        Text(SUMMARY) if is_summary_request(body) else None
    )
    caplog.clear()
    sent = len(llm_server.chat_requests)

    llm_server.reply(*fault.replies)
    async with (fault.outage or no_outage)(
        Scene(hass, loaded_entry, llm_server, monkeypatch)
    ):
        result = await ask(hass, QUESTION)
        await hass.async_block_till_done()
        offline = hass.states.get(AGENT_ENTITY_ID).state == STATE_UNAVAILABLE

    # What the user hears, and what was done.
    row.hears = heard(fault, speech(result))
    if fault.hears is None:
        assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
        assert speech(result) == fault.answer
    else:
        assert_hears(result, fault.hears, **fault.placeholders)
    assert hass.states.get(kitchen_light).state == fault.light
    # Only a server that cannot be reached takes the agent offline.
    row.offline = "until the check" if offline else "no"
    assert offline is (fault.outage is not None)
    if len(llm_server.chat_requests) > sent:
        assert tool_results(llm_server.last_chat_request) == fault.results
    if fault.logged is not None:
        assert fault.logged in caplog.text
    assert llm_server.pending == 0
    # The chat log is valid, and so was every request of the turn.
    assert_chat_log_valid(hass)
    for body in llm_server.chat_requests[sent:]:
        assert_tool_calls_answered(body["messages"])
    row.chat_log = "✓"
    # The next turn works.
    if fault.hears is None:
        await assert_next_answer(hass, llm_server)
    else:
        await assert_next_turn_works(
            hass, llm_server, fault.hears, **fault.placeholders
        )
    assert_chat_log_valid(hass)
    # It fits the model's 8k context (at four bytes a token, generously): the
    # 64 KB answer went into the summary instead of back to the server.
    assert llm_server.requests[-1].size < DEFAULT_CONTEXT_WINDOW * 4
    row.next_turn = "✓"
    # Nothing, from the fault to the next answer, logged at ERROR with a
    # traceback, unless the fault deserves one.
    errors = error_records(caplog)
    row.errors = summarize(errors)
    assert any(r.exc_info for r in errors) is fault.traceback
