"""A pass-through between the agents and the model server that notes usage.

Both agents talk to the same llama.cpp server through this proxy, which
forwards every byte unchanged and keeps, for each chat completion, what the
server said it read: the prompt tokens and how many of them came from its
prompt cache. Chatterbox asks for the usage chunk of a stream
(`stream_options.include_usage`); core does not, so for core's streams the
figures come from llama.cpp's `timings` (prompt_n new + cache_n cached), which
are the same counters.
"""

from collections.abc import Iterable
from dataclasses import dataclass
import json
import time
from typing import Any, Self

import aiohttp
from aiohttp import web

CHAT_PATH = "/v1/chat/completions"
# Hop-by-hop and length headers are the proxy's own business on each side.
DROPPED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-encoding",
        "transfer-encoding",
        "connection",
        "keep-alive",
    }
)


@dataclass(frozen=True)
class Usage:
    """What the server read for one request."""

    prompt_tokens: int
    cached_tokens: int
    finish_reason: str | None


@dataclass(frozen=True)
class Exchange:
    """One chat completion that went through the proxy."""

    started: float
    ended: float
    usage: Usage | None
    request: bytes


def usage_of(raw: bytes) -> Usage | None:
    """Read the usage of a chat completion, streamed (SSE) or not."""
    text = raw.decode("utf-8", "replace").strip()
    if text.startswith("{"):
        try:
            pieces: Iterable[Any] = [json.loads(text)]
        except json.JSONDecodeError:
            return None
    else:
        pieces = _events(text)
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None
    finish: str | None = None
    for piece in pieces:
        if not isinstance(piece, dict):
            continue
        usage = piece.get("usage") or usage
        timings = piece.get("timings") or timings
        for choice in piece.get("choices") or []:
            finish = choice.get("finish_reason") or finish
    if usage and "prompt_tokens" in usage:
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens")
        if cached is None and timings:
            cached = timings.get("cache_n", 0)
        return Usage(int(usage["prompt_tokens"]), int(cached or 0), finish)
    if timings and "prompt_n" in timings:
        cached = int(timings.get("cache_n", 0))
        return Usage(int(timings["prompt_n"]) + cached, cached, finish)
    return None


def _events(text: str) -> Iterable[Any]:
    """Yield the JSON of each server-sent event's data line."""
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line.removeprefix("data:").strip()
        if data and data != "[DONE]":
            try:
                yield json.loads(data)
            except json.JSONDecodeError:
                continue


class RecordingProxy:
    """Forward /v1/... to the model server; keep each chat completion's usage."""

    def __init__(self, upstream: str) -> None:
        """Forward to upstream, a server's base URL without /v1."""
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[Exchange] = []
        self.requests: list[bytes] = []
        """Every chat completion request's body, as it arrived."""
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """Return the OpenAI base URL the agents use."""
        return f"http://127.0.0.1:{self.port}/v1"

    async def __aenter__(self) -> Self:
        """Listen on a free port of 127.0.0.1."""
        # A new connection for every request: llama.cpp closes a kept-alive
        # connection as it likes, and a request sent down one it just closed
        # failed as "Server disconnected" (a 502 to the agent, three times in
        # one column), a fault of the harness, not of the agent measured.
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_read=None),
            connector=aiohttp.TCPConnector(force_close=True),
        )
        app = web.Application(client_max_size=64 << 20)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server  # aiohttp keeps the bound port here
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def __aexit__(self, *_: object) -> None:
        """Stop listening and close the upstream connections."""
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        """Pass a request on and its answer back, byte for byte, as it comes."""
        assert self._session is not None
        started = time.perf_counter()
        body = await request.read()
        if request.path == CHAT_PATH:
            self.requests.append(body)
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in DROPPED_HEADERS
        }
        try:
            return await self._relay(request, body, headers, started)
        except aiohttp.ClientError as err:
            return web.Response(status=502, text=f"model server: {err}")

    async def _relay(
        self,
        request: web.Request,
        body: bytes,
        headers: dict[str, str],
        started: float,
    ) -> web.StreamResponse:
        """Send the request upstream and stream the answer back."""
        assert self._session is not None
        async with self._session.request(
            request.method,
            f"{self.upstream}{request.path_qs}",
            data=body,
            headers=headers,
        ) as upstream:
            response = web.StreamResponse(
                status=upstream.status,
                headers={
                    k: v
                    for k, v in upstream.headers.items()
                    if k.lower() not in DROPPED_HEADERS
                },
            )
            await response.prepare(request)
            received = bytearray()
            try:
                async for piece in upstream.content.iter_any():
                    received += piece
                    await response.write(piece)
                await response.write_eof()
            except ConnectionResetError:
                # The agent hung up (the eval's turn timeout): so does the proxy,
                # and llama.cpp stops the request.
                return response
        if request.path == CHAT_PATH:
            self.exchanges.append(
                Exchange(started, time.perf_counter(), usage_of(bytes(received)), body)
            )
        return response
