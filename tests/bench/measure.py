"""Run turns through Home Assistant and time them against the server's own time."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
import ctypes
import ctypes.util
from dataclasses import dataclass, field
import gc
import inspect
import os
from pathlib import Path
import threading
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import chat_session

from tests.helpers.llm_server import CHAT_PATH, LLMServer, RecordedRequest

from .scenarios import is_summary_request

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Turn:
    """One turn as the user lived it, and the requests it took."""

    text: str
    started: float
    ended: float = 0.0
    requests: list[RecordedRequest] = field(default_factory=list)
    first_content: float | None = None
    """When the first piece of the answer reached the chat log's delta listener."""
    conversation_id: str | None = None
    cpu: float = 0.0
    """CPU seconds of the event loop's thread: Home Assistant, the agent, the server."""

    @property
    def wall(self) -> float:
        """Return the seconds from asking to the result."""
        return self.ended - self.started

    @property
    def server(self) -> float:
        """Return the seconds the server spent on the turn's requests."""
        return sum(request.timing.seconds for request in self.requests)

    @property
    def overhead(self) -> float:
        """Return the seconds the turn took beyond the server's own time."""
        return self.wall - self.server

    @property
    def main(self) -> list[Any]:
        """Return the bodies of the requests that answer the user, in order."""
        return [r.json for r in self.requests if not is_summary_request(r.json)]

    @property
    def side(self) -> list[RecordedRequest]:
        """Return the side requests that summarized dropped history."""
        return [r for r in self.requests if is_summary_request(r.json)]


async def async_turn(
    hass: HomeAssistant,
    server: LLMServer,
    agent_id: str,
    text: str,
    conversation_id: str | None = None,
) -> Turn:
    """Say text to an agent as an Assist pipeline does, one turn at a time.

    The turn runs in a task of its own with a delta listener on its chat log,
    as assist_pipeline runs the conversation step.
    """
    before = len(server.requests)
    cpu = time.thread_time()
    turn = Turn(text, time.perf_counter())

    def listener(_chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
        if turn.first_content is None and delta.get("content"):
            turn.first_content = time.perf_counter()

    result = await hass.async_create_task(
        async_converse_as_pipeline(hass, agent_id, text, conversation_id, listener)
    )
    turn.ended = time.perf_counter()
    turn.cpu = time.thread_time() - cpu
    turn.conversation_id = result.conversation_id
    turn.requests = [r for r in server.requests[before:] if r.path == CHAT_PATH]
    _check_answered(result, text)
    return turn


async def async_conversation(
    hass: HomeAssistant, agent_id: str, texts: list[str]
) -> list[Turn]:
    """Hold a conversation without listening to deltas; requests are matched later."""
    turns: list[Turn] = []
    conversation_id: str | None = None
    for text in texts:
        turn = Turn(text, time.perf_counter())
        result = await hass.async_create_task(
            conversation.async_converse(
                hass, text, conversation_id, Context(), "en", agent_id
            )
        )
        turn.ended = time.perf_counter()
        conversation_id = turn.conversation_id = result.conversation_id
        _check_answered(result, text)
        turns.append(turn)
    return turns


def match_requests(turns: list[Turn], server: LLMServer) -> None:
    """Give each turn the requests whose last user message is the turn's text."""
    by_text = {turn.text: turn for turn in turns}
    for request in server.requests:
        if request.path != CHAT_PATH or is_summary_request(request.json):
            continue
        messages = request.json["messages"]
        last_user = next(m for m in reversed(messages) if m["role"] == "user")
        if (turn := by_text.get(last_user["content"])) is not None:
            turn.requests.append(request)


async def async_converse_as_pipeline(
    hass: HomeAssistant,
    agent_id: str,
    text: str,
    conversation_id: str | None,
    listener: Callable[[conversation.ChatLog, dict[str, Any]], None],
    device_id: str | None = None,
) -> conversation.ConversationResult:
    """Converse inside a chat log that has a delta listener, as a pipeline does."""
    user_input = conversation.ConversationInput(
        text=text,
        context=Context(),
        conversation_id=conversation_id,
        device_id=device_id,
        satellite_id=None,
        language="en",
        agent_id=agent_id,
    )
    # Home Assistant 2026.11 wants to know whose session it is.
    owner = (
        {"context": user_input.context}
        if "context"
        in inspect.signature(chat_session.async_get_chat_session).parameters
        else {}
    )
    with (
        chat_session.async_get_chat_session(hass, conversation_id, **owner) as session,
        conversation.async_get_chat_log(
            hass, session, user_input, chat_log_delta_listener=listener
        ),
    ):
        return await conversation.async_converse(
            hass,
            text,
            session.conversation_id,
            user_input.context,
            "en",
            agent_id,
            device_id,
        )


def _check_answered(result: conversation.ConversationResult, text: str) -> None:
    """Stop the benchmark when a turn failed: its timing would mean nothing."""
    speech = result.response.speech.get("plain", {}).get("speech", "")
    if result.response.error_code is not None or not speech:
        msg = f"the turn {text!r} failed: {speech or result.response.error_code}"
        raise AssertionError(msg)


def _rss() -> int:
    """Return the resident set size of this process in bytes."""
    pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1])
    return pages * PAGE_SIZE


def _trim_heap() -> None:
    """Collect garbage and hand free heap pages back, so RSS starts low."""
    gc.collect()
    if name := ctypes.util.find_library("c"):
        libc = ctypes.CDLL(name)
        if hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)


@dataclass
class RssPeak:
    """The resident memory before a run and the highest seen during it."""

    before: int = 0
    peak: int = 0

    @property
    def growth(self) -> int:
        """Return how far the peak rose above the start, in bytes."""
        return max(self.peak - self.before, 0)


@contextmanager
def rss_peak(interval: float = 0.005) -> Iterator[RssPeak]:
    """Sample this process's RSS from a thread while the block runs."""
    _trim_heap()
    peak = RssPeak(_rss(), _rss())
    done = threading.Event()

    def sample() -> None:
        while not done.wait(interval):
            peak.peak = max(peak.peak, _rss())

    thread = threading.Thread(target=sample, name="bench-rss", daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()
        peak.peak = max(peak.peak, _rss())
