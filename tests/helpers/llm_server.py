"""Serve a scriptable OpenAI-compatible chat API on 127.0.0.1 for tests.

A test queues replies and each ``POST /v1/chat/completions`` gets the next one,
as plain JSON or as server-sent events as the request asks. The server runs on
aiohttp in the test's own event loop and records every request.

Example::

    async with LLMServer(models=["qwen3"]) as server:
        server.reply(Text("Hello!"), ToolCalls([Call("turn_on", {"id": 1})]))
        client = openai.AsyncOpenAI(base_url=server.url, api_key="x")
"""

import asyncio
import base64
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
import itertools
import json
import time
from types import TracebackType
from typing import Any, Literal, Self

from aiohttp import web

from custom_components.chatterbox.server.capabilities import (
    PROBE_PROMPT,
    PROBE_SCHEMA_PROMPT,
    PROBE_TOOL,
    PROBE_TOOL_PROMPT,
)

MODELS_PATH = "/v1/models"
PROPS_PATH = "/props"
OLLAMA_SHOW_PATH = "/api/show"
OLLAMA_PS_PATH = "/api/ps"
OLLAMA_PATHS = (OLLAMA_SHOW_PATH, OLLAMA_PS_PATH, "/api/generate")
CHAT_PATH = "/v1/chat/completions"
IMAGES_PATH = "/v1/images/generations"
LM_STUDIO_MODELS_PATH = "/api/v0/models"
LITELLM_INFO_PATH = "/v1/model/info"

# The SDK ignores a zero Retry-After and falls back to its own backoff of half a
# second and more, so a millisecond is the shortest wait it honours.
FAST_RETRY = {"retry-after-ms": "1"}


def openai_error(
    message: str,
    *,
    type: str = "invalid_request_error",  # noqa: A002  # the wire name
    code: str | None = None,
    param: str | None = None,
) -> dict[str, Any]:
    """Build an error body in OpenAI's shape."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


@dataclass(kw_only=True)
class Reply:
    """Base of every scripted reply: when the server starts answering."""

    delay: float = 0.0  # seconds before the response headers
    # Never answer; ends when the client gives up or the server stops.
    hang: bool = False


@dataclass(kw_only=True)
class StreamedReply(Reply):
    """A reply whose body may go out as a stream of chunks."""

    chunk_delay: float = 0.0  # seconds before each chunk
    # Seconds before each chunk that carries text or a tool call fragment only,
    # as a model generates tokens; the role, finish and usage chunks go at once.
    token_delay: float = 0.0
    drop_after: int | None = None  # close the connection after this many chunks
    # Stall after this many chunks, the connection open, as a server that stops
    # mid-answer; ends when the client gives up or the server stops.
    hang_after: int | None = None


@dataclass
class Usage:
    """Token counts reported with a completion."""

    prompt_tokens: int = 10
    completion_tokens: int = 5

    def to_json(self) -> dict[str, int]:
        """Return the usage object as OpenAI sends it."""
        total = self.prompt_tokens + self.completion_tokens
        return {**vars(self), "total_tokens": total}


@dataclass(kw_only=True)
class _Message(StreamedReply):
    """Knobs shared by the replies that carry an assistant message."""

    reasoning: str | None = None
    # vLLM and DeepSeek stream "reasoning_content"; Ollama and OpenRouter "reasoning".
    reasoning_key: str = "reasoning_content"
    usage: Usage | None = field(default_factory=Usage)  # None: the server sends none
    piece_size: int = 4  # characters per streamed content or argument fragment


@dataclass
class Text(_Message):
    """Answer with an assistant message."""

    content: str
    _: KW_ONLY
    finish_reason: str = "stop"


@dataclass
class Call:
    """One tool call the model asks for; ``arguments`` as str is sent verbatim."""

    name: str
    arguments: str | dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        """Return the arguments as the string the wire carries."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class ToolCalls(_Message):
    """Answer with tool calls, optionally after some content."""

    calls: Sequence[Call]
    _: KW_ONLY
    content: str | None = None
    same_chunk: bool = False  # the first fragment of every call in one chunk
    finish_reason: str = "tool_calls"


@dataclass
class Error(Reply):
    """Answer with an HTTP error; a str body goes out as text, anything else as JSON."""

    status: int
    body: Any = None
    headers: dict[str, str] | None = None  # None: FAST_RETRY, so SDK retries are quick


@dataclass
class Raw(StreamedReply):
    """Write these body pieces verbatim, one chunk each."""

    chunks: Sequence[str | bytes]
    content_type: str = "text/event-stream"
    status: int = 200


@dataclass
class Disconnect(Reply):
    """Close the connection without answering."""


@dataclass
class ModelList(Reply):
    """Answer the models endpoint; ``ids`` None lists ``server.models``."""

    ids: Sequence[str] | None = None


type ChatReply = Text | ToolCalls | Error | Raw | Disconnect
type ModelsReply = ModelList | Error | Raw | Disconnect


@dataclass(kw_only=True)
class Abilities:
    """What the model behind the server can do, as the capability probe sees it.

    tools: "native" returns parsed tool_calls; "text" writes the call in the
    content, as a model without a tool parser does; "refused" answers 400 to
    any request with tools, as llama.cpp does without --jinja.
    """

    tools: Literal["native", "text", "refused"] = "native"
    streaming: bool = True
    reasoning: bool = False
    json_schema: bool = True
    probe_error: int | None = None  # when set, every probe gets this status
    # Tokens a native call takes. With a smaller max_tokens the call is cut
    # off, and the server sends what it has as content with finish "length",
    # as llama.cpp does with a template that writes calls as fenced JSON.
    call_tokens: int = 0
    strict_models: bool = False  # 404 for a model the server does not list
    # OpenAI's reasoning models: 400 for max_tokens (max_completion_tokens
    # only), and for a temperature or top_p other than their default, 1.
    reasoning_model: bool = False
    # Models the server lists but serves on other endpoints (speech, images,
    # embeddings): a chat request to one gets OpenAI's 404.
    non_chat_models: frozenset[str] = frozenset()
    # Ollama's embedding models: a chat request gets its 400.
    embedding_models: frozenset[str] = frozenset()
    # The reasoning_effort values the model takes, as OpenAI's o-series takes
    # low, medium and high but not "none"; empty refuses the field, as OpenAI
    # does for a model that does not reason. None takes any.
    thinking_levels: tuple[str, ...] | None = None
    # A proxy that refuses chat_template_kwargs without naming it.
    refuses_template_kwargs: bool = False


TOOLS_REFUSED = "tools param requires --jinja flag"
SCHEMA_REFUSED = "response_format json_schema is not supported"


def _probe(body: Any) -> str | None:
    """Return which capability probe a request is, or None."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or len(messages) != 1:
        return None
    prompt = messages[0].get("content") if isinstance(messages[0], dict) else None
    return {
        PROBE_PROMPT: "stream",
        PROBE_TOOL_PROMPT: "tools",
        PROBE_SCHEMA_PROMPT: "schema",
    }.get(prompt)


@dataclass
class Timing:
    """When the server handled one request, in time.perf_counter() seconds."""

    received: float = field(default_factory=time.perf_counter)
    """When the handler started, before the body was read."""
    tokens: list[float] = field(default_factory=list)
    """When each chunk carrying text or a tool call fragment was written."""
    finished: float | None = None
    """When the last byte was written; None while answering or when dropped."""

    @property
    def seconds(self) -> float:
        """Return how long the server spent on the request, so far."""
        end = time.perf_counter() if self.finished is None else self.finished
        return end - self.received


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it; header names are lower case."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any  # the parsed body, or None when empty or not JSON
    size: int = 0  # bytes of the body as it arrived
    timing: Timing = field(default_factory=Timing, compare=False)


def _check_kinds(
    replies: Iterable[object], kinds: tuple[type, ...], where: str
) -> None:
    """Refuse a reply that cannot answer this endpoint."""
    for one in replies:
        if not isinstance(one, kinds):
            msg = f"{one!r} cannot answer {where}"
            raise TypeError(msg)


def _pieces(text: str, size: int) -> list[str]:
    """Split text into pieces of at most size characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse(data: Any) -> bytes:
    """Encode one server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}\n\n".encode()


class LLMServer:
    """Answer OpenAI chat-completion requests from a script of replies."""

    def __init__(
        self, models: Sequence[str] = ("test-model",), *, api_key: str | None = None
    ) -> None:
        """Prepare a server listing these models, not yet listening."""
        self.models = list(models)
        self.api_key = api_key  # when set, requests must carry it as a Bearer token
        self.requests: list[RecordedRequest] = []
        # Capability probes are answered from abilities, never from the script,
        # and recorded here rather than in requests.
        self.abilities = Abilities()
        self.probes: list[RecordedRequest] = []
        self.unscripted: list[RecordedRequest] = []  # requests nothing was queued for
        self._chat_replies: deque[ChatReply] = deque()
        # Consulted before the queue: a reply for the requests it recognises
        # (side requests such as summaries), None for the rest.
        self.responder: Callable[[Any], ChatReply | None] | None = None
        # When set, stands in for the model's tokenizer: the usage a reply
        # reports counts the request's prompt tokens with it.
        self.tokenizer: Callable[[Any], int] | None = None
        # Extra fields per model id in the models list, as vLLM adds
        # max_model_len; and llama.cpp's GET /props, when set.
        self.model_fields: dict[str, dict[str, Any]] = {}
        self.props: Any = None
        # llama.cpp's meta per model id in the models list (n_params,
        # n_ctx_train…); a model without one is listed without meta.
        self.model_meta: dict[str, dict[str, Any]] = {}
        # Ollama's POST /api/show body per model (see ollama_show), and the
        # models GET /api/ps lists as loaded; when ollama is None, both paths
        # answer 404, and /api/ps does when ollama_running is None.
        self.ollama: dict[str, Any] | None = None
        self.ollama_running: list[dict[str, Any]] | None = []
        self.ollama_generate_status = 200  # the status of POST /api/generate
        # LM Studio's GET /api/v0/models entries, and LiteLLM's GET
        # /v1/model/info entries; None answers 404, as other servers do.
        self.lm_studio: list[dict[str, Any]] | None = None
        self.litellm: list[dict[str, Any]] | None = None
        # The context LM Studio loads a model with on its first chat request.
        self.lm_studio_load_context = 4096
        # POST /v1/images/generations: the image each model makes (None
        # answers 404, as a server without the endpoint does), whether the
        # models refuse response_format as OpenAI's gpt-image models do, and
        # the bodies received.
        # A str is sent as the b64_json itself; an int is a status to answer.
        self.images: dict[str, bytes | str | int] | None = None
        self.images_refuse_format = False
        self.image_requests: list[Any] = []
        self._models_replies: deque[ModelsReply] = deque()
        self._arrived = asyncio.Condition()
        self._in_flight: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._call_ids = itertools.count(1)
        self._completion_ids = itertools.count(1)

    @property
    def url(self) -> str:
        """Return the base URL an OpenAI client takes, ending in /v1."""
        if self._runner is None:
            msg = "LLMServer is not started"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def chat_requests(self) -> list[Any]:
        """Return the JSON bodies sent to the chat completions endpoint."""
        return [r.json for r in self.requests if r.path == CHAT_PATH]

    @property
    def last_chat_request(self) -> Any:
        """Return the JSON body of the latest chat completion request."""
        if not (bodies := self.chat_requests):
            msg = "no chat completion request was received"
            raise AssertionError(msg)
        return bodies[-1]

    @property
    def pending(self) -> int:
        """Return how many queued chat replies are still unused."""
        return len(self._chat_replies)

    def reply(self, *replies: ChatReply) -> None:
        """Queue replies for the next chat completion requests, in order."""
        _check_kinds(
            replies, (Text, ToolCalls, Error, Raw, Disconnect), "a chat completion"
        )
        self._chat_replies.extend(replies)

    def models_reply(self, *replies: ModelsReply) -> None:
        """Queue one-off replies for the models endpoint, then ``models`` again."""
        _check_kinds(
            replies, (ModelList, Error, Raw, Disconnect), "the models endpoint"
        )
        self._models_replies.extend(replies)

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1, on a free port unless one is given."""
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # handler_cancellation cancels a handler whose client went away, so a
        # hanging reply ends with the client's timeout.
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        """Cancel in-flight replies, close every connection and stop listening."""
        for task in self._in_flight:
            task.cancel()
        if self._in_flight:
            await asyncio.wait(self._in_flight)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        """Start the server."""
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the server."""
        await self.stop()

    async def wait_for_request(self, count: int = 1) -> RecordedRequest:
        """Wait until count requests have arrived and return the count-th."""
        async with self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)
        return self.requests[count - 1]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        """Record a request and answer it from the script."""
        task = asyncio.current_task()
        assert task is not None  # aiohttp runs every handler in a task
        self._in_flight.add(task)
        timing = Timing()
        try:
            recorded = await self._record(request, timing)
            reply = self._pick(recorded)
            if isinstance(reply, web.Response):
                timing.finished = time.perf_counter()
                return reply
            if reply.hang:
                await asyncio.get_running_loop().create_future()
            if reply.delay > 0:
                await asyncio.sleep(reply.delay)
            response = await self._send(request, reply, recorded.json or {}, timing)
            if isinstance(response, web.Response):
                # aiohttp writes a plain response right after the handler returns.
                timing.finished = time.perf_counter()
            return response
        finally:
            self._in_flight.discard(task)

    async def _record(self, request: web.Request, timing: Timing) -> RecordedRequest:
        """Store the request with its parsed body."""
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in request.headers.items()}
        recorded = RecordedRequest(
            request.method, request.path, headers, body, len(raw), timing
        )
        if _probe(body) is not None:
            self.probes.append(recorded)
            return recorded
        self.requests.append(recorded)
        async with self._arrived:
            self._arrived.notify_all()
        return recorded

    def _pick(
        self, recorded: RecordedRequest
    ) -> ChatReply | ModelsReply | web.Response:
        """Return the scripted reply for a request, or the refusal it gets."""
        if self.api_key is not None and (
            recorded.headers.get("authorization") != f"Bearer {self.api_key}"
        ):
            body = openai_error("Incorrect API key provided.", code="invalid_api_key")
            return web.json_response(body, status=401)
        route = (recorded.method, recorded.path)
        if route[1] in (
            PROPS_PATH,
            *OLLAMA_PATHS,
            LM_STUDIO_MODELS_PATH,
            LITELLM_INFO_PATH,
        ):
            return self._native(route, recorded.json)
        if route == ("POST", IMAGES_PATH):
            return self._image(recorded.json)
        if route == ("GET", MODELS_PATH):
            return (
                self._models_replies.popleft() if self._models_replies else ModelList()
            )
        if route == ("POST", CHAT_PATH) and (reply := self._chat_reply(recorded.json)):
            return reply
        return self._unscripted(recorded)

    def _chat_reply(self, body: Any) -> ChatReply | None:
        """Return the reply to a chat request: by abilities, responder or queue."""
        self._load_on_demand(body)
        if reply := self._by_abilities(body):
            return reply
        if self.responder is not None and (reply := self.responder(body)):
            return reply
        return self._chat_replies.popleft() if self._chat_replies else None

    def _image(self, body: Any) -> web.Response:
        """Make an image as OpenAI's endpoint does, or refuse as it would."""
        if self.images is None:
            return web.json_response(openai_error("Not found"), status=404)
        self.image_requests.append(body)
        model = body.get("model")
        refusal = None
        count = body.get("n", 1)
        if not body.get("prompt") or not isinstance(count, int) or count < 1:
            refusal = "Missing required parameter: 'prompt'."
        elif self.images_refuse_format and "response_format" in body:
            refusal = "Unknown parameter: 'response_format'."
        made = self.images.get(model)
        if isinstance(made, int):
            return web.json_response(openai_error("boom"), status=made)
        if refusal is not None:
            return web.json_response(openai_error(refusal), status=400)
        if made is None:
            return web.json_response(
                openai_error(f"The model '{model}' does not exist"), status=404
            )
        image = made if isinstance(made, str) else base64.b64encode(made).decode()
        return web.json_response(
            {
                "created": 0,
                "data": [{"b64_json": image, "revised_prompt": "A calm lake."}],
            }
        )

    def _load_on_demand(self, body: Any) -> None:
        """Load the model a chat request names, as LM Studio does on demand."""
        model = body.get("model") if isinstance(body, dict) else None
        for entry in self.lm_studio or ():
            if entry.get("id") == model and entry.get("state") != "loaded":
                entry["state"] = "loaded"
                entry["loaded_context_length"] = self.lm_studio_load_context

    def _by_abilities(self, body: Any) -> ChatReply | None:
        """Refuse what the model cannot do, as its server would; answer probes."""
        if not isinstance(body, dict):
            return None
        if refusal := self._refusal(body):
            return Error(refusal[0], refusal[1], headers={})
        probe = _probe(body)
        if probe is not None and self.abilities.probe_error is not None:
            return Error(self.abilities.probe_error, openai_error("busy"), headers={})
        return None if probe is None else self._probe_reply(probe, body)

    def _refusal(self, body: dict[str, Any]) -> tuple[int, Any] | None:
        """Return the status and body a server refuses a request with, if it does."""
        model = body.get("model")
        schema = (body.get("response_format") or {}).get("type") == "json_schema"
        sampled = next(
            (name for name in ("temperature", "top_p") if body.get(name, 1) != 1),
            None,
        )
        refusals = [
            (
                self.abilities.reasoning_model and "max_tokens" in body,
                400,
                openai_error(
                    "Unsupported parameter: 'max_tokens' is not supported with "
                    "this model. Use 'max_completion_tokens' instead.",
                    code="unsupported_parameter",
                    param="max_tokens",
                ),
            ),
            (
                self.abilities.reasoning_model and sampled is not None,
                400,
                openai_error(
                    f"Unsupported value: '{sampled}' does not support "
                    f"{body.get(sampled)} with this model. Only the default (1) "
                    "value is supported.",
                    code="unsupported_value",
                    param=sampled,
                ),
            ),
            (
                "reasoning_effort" in body
                and self.abilities.thinking_levels is not None
                and body["reasoning_effort"] not in self.abilities.thinking_levels,
                400,
                openai_error(
                    f"Unsupported value: 'reasoning_effort' does not support "
                    f"'{body.get('reasoning_effort')}' with this model."
                    if self.abilities.thinking_levels
                    else "Unsupported parameter: 'reasoning_effort' is not "
                    "supported with this model.",
                    code="unsupported_value",
                    param="reasoning_effort",
                ),
            ),
            (
                self.abilities.refuses_template_kwargs
                and "chat_template_kwargs" in body,
                400,
                openai_error("Invalid request body"),
            ),
            (
                model in self.abilities.non_chat_models,
                404,
                openai_error(
                    "This is not a chat model and thus not supported in the "
                    "v1/chat/completions endpoint. Did you mean to use "
                    "v1/completions?",
                    type="invalid_request_error",
                    param="model",
                ),
            ),
            (
                model in self.abilities.embedding_models,
                400,
                openai_error(f'"{model}" does not support chat'),
            ),
            # Ollama's answer for a thinking level asked of a model that
            # does not think.
            (
                body.get("reasoning_effort") not in (None, "none")
                and model in (self.ollama or {})
                and "thinking" not in (self.ollama or {})[model]["capabilities"],
                400,
                openai_error(f'"{model}" does not support thinking'),
            ),
            # Ollama's answer for a model it does not have.
            (
                self.abilities.strict_models and model not in self.models,
                404,
                openai_error(
                    f'model "{model}" not found, try pulling it first',
                    type="not_found_error",
                ),
            ),
            (
                self.abilities.tools == "refused" and bool(body.get("tools")),
                400,
                openai_error(TOOLS_REFUSED),
            ),
            (
                schema and not self.abilities.json_schema,
                400,
                openai_error(SCHEMA_REFUSED),
            ),
            (
                bool(body.get("stream")) and not self.abilities.streaming,
                400,
                openai_error("stream is not supported"),
            ),
        ]
        return next(
            ((status, error) for refused, status, error in refusals if refused), None
        )

    def _probe_reply(self, probe: str, body: dict[str, Any]) -> ChatReply:
        """Answer a capability probe the way the model would."""
        if probe == "tools":
            limit = body.get("max_tokens", body.get("max_completion_tokens", 0))
            if limit < self.abilities.call_tokens:
                return Text(
                    f'```json\n{{"name": "{PROBE_TOOL}"', finish_reason="length"
                )
            if self.abilities.tools == "native":
                return ToolCalls([Call(PROBE_TOOL, id="call_probe")])
            return Text(f'<tool_call>\n{{"name": "{PROBE_TOOL}"')
        if probe == "schema":
            return Text('{"ok": true}')
        return Text("OK", reasoning="Fine." if self.abilities.reasoning else None)

    def _native(self, route: tuple[str, str], body: Any) -> web.Response:
        """Answer a server's own API (llama.cpp, Ollama, LM Studio, LiteLLM).

        404 when the server is not that one.
        """
        model = body.get("model") if isinstance(body, dict) else None
        listings = {
            PROPS_PATH: self.props,
            LM_STUDIO_MODELS_PATH: None
            if self.lm_studio is None
            else {"data": self.lm_studio},
            LITELLM_INFO_PATH: None if self.litellm is None else {"data": self.litellm},
        }
        if route[0] == "GET" and listings.get(route[1]) is not None:
            return web.json_response(listings[route[1]])
        match route:
            case ("POST", "/api/show") if self.ollama and model in self.ollama:
                return web.json_response(self.ollama[model])
            case ("GET", "/api/ps") if (
                self.ollama is not None and self.ollama_running is not None
            ):
                return web.json_response({"models": self.ollama_running})
            case ("POST", "/api/generate") if self.ollama is not None:
                # A generate request without a prompt only loads the model.
                return web.json_response(
                    {"model": model, "response": "", "done": True},
                    status=self.ollama_generate_status,
                )
        return web.json_response(openai_error("Not found"), status=404)

    async def _send(
        self,
        request: web.Request,
        reply: ChatReply | ModelsReply,
        body: Any,
        timing: Timing,
    ) -> web.StreamResponse:
        """Send a scripted reply."""
        match reply:
            case Disconnect():
                return _drop(request, web.Response())
            case Error():
                return _error_response(reply)
            case ModelList(ids=ids):
                listed = self.models if ids is None else ids
                data = [
                    _model(model_id, self.model_meta.get(model_id))
                    | self.model_fields.get(model_id, {})
                    for model_id in listed
                ]
                return web.json_response({"object": "list", "data": data})
            case Raw():
                return await _stream(
                    request,
                    reply,
                    reply.chunks,
                    reply.content_type,
                    reply.status,
                    timing,
                )
            case Text() | ToolCalls():
                if self.tokenizer is not None and reply.usage is not None:
                    counted = Usage(self.tokenizer(body), reply.usage.completion_tokens)
                    reply = replace(reply, usage=counted)
                return await self._complete(request, reply, body, timing)

    def _unscripted(self, recorded: RecordedRequest) -> web.Response:
        """Fail a request the test queued no reply for, loudly and without retries."""
        self.unscripted.append(recorded)
        message = (
            f"LLMServer: the test scripted no reply for {recorded.method} "
            f"{recorded.path} (request #{len(self.requests)})"
        )
        body = openai_error(message, type="test_script_exhausted")
        # x-should-retry makes the SDK give up at once instead of asking twice more.
        return web.json_response(body, status=500, headers={"x-should-retry": "false"})

    async def _complete(
        self, request: web.Request, reply: Text | ToolCalls, body: Any, timing: Timing
    ) -> web.StreamResponse:
        """Send an assistant message as one JSON completion or as a stream."""
        calls = [
            (call.id or f"call_{next(self._call_ids)}", call)
            for call in (reply.calls if isinstance(reply, ToolCalls) else ())
        ]
        head = {
            "id": f"chatcmpl-{next(self._completion_ids)}",
            "created": 0,
            "model": body.get("model", "test-model"),
            "system_fingerprint": None,
        }
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": reply.content}
            if reply.reasoning is not None:
                message[reply.reasoning_key] = reply.reasoning
            if calls:
                message["tool_calls"] = [
                    _call_json(call_id, call, call.arguments_json())
                    for call_id, call in calls
                ]
            choice = {"index": 0, "message": message, "logprobs": None}
            return web.json_response(
                {
                    **head,
                    "object": "chat.completion",
                    "choices": [{**choice, "finish_reason": reply.finish_reason}],
                    "usage": reply.usage and reply.usage.to_json(),
                }
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        head = {**head, "object": "chat.completion.chunk"}
        # OpenAI sends "usage": null on every chunk when usage was asked for.
        if include_usage:
            head["usage"] = None

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None}
            return _sse(
                {**head, "choices": [{**choice, "finish_reason": finish_reason}]}
            )

        # OpenAI opens with the role and an empty content, and closes with an
        # empty delta that carries the finish reason.
        events = [chunk({"role": "assistant", "content": ""})]
        size = reply.piece_size
        reasoning = _pieces(reply.reasoning or "", size)
        events += [chunk({reply.reasoning_key: piece}) for piece in reasoning]
        events += [
            chunk({"content": piece}) for piece in _pieces(reply.content or "", size)
        ]
        same_chunk = isinstance(reply, ToolCalls) and reply.same_chunk
        parts = _tool_call_deltas(calls, size, same_chunk=same_chunk)
        events += [chunk({"tool_calls": part}) for part in parts]
        tokens = range(1, len(events))
        events.append(chunk({}, reply.finish_reason))
        if include_usage and reply.usage is not None:
            # The usage chunk has no choices at all.
            events.append(_sse({**head, "choices": [], "usage": reply.usage.to_json()}))
        events.append(_sse("[DONE]"))
        return await _stream(
            request, reply, events, "text/event-stream", 200, timing, tokens
        )


def _model(model_id: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """Describe one model as the models endpoint lists it, with llama.cpp's meta."""
    model = {"id": model_id, "object": "model", "created": 0, "owned_by": "test"}
    return model if meta is None else model | {"meta": meta}


def ollama_show(
    parameters: object = "",
    *,
    context_length: int = 32768,
    parameter_count: int | None = None,
    parameter_size: str | None = None,
    thinking: bool = False,
) -> dict[str, Any]:
    """Return Ollama's POST /api/show answer for a model, in its real shape.

    The size goes in only where given: model_info's general.parameter_count,
    details' parameter_size ("8.2B").
    """
    details: dict[str, Any] = {"family": "qwen3"}
    if parameter_size is not None:
        details["parameter_size"] = parameter_size
    info: dict[str, Any] = {
        "general.architecture": "qwen3",
        "qwen3.context_length": context_length,
    }
    if parameter_count is not None:
        info["general.parameter_count"] = parameter_count
    return {
        "modelfile": "FROM /models/blobs/sha256-1",
        "parameters": parameters,
        "template": "{{ .Prompt }}",
        "details": details,
        "model_info": info,
        "capabilities": ["completion", "tools", *(["thinking"] if thinking else [])],
    }


def _call_json(call_id: str, call: Call, arguments: str) -> dict[str, Any]:
    """Describe a tool call, with these arguments, as a message carries it."""
    function = {"name": call.name, "arguments": arguments}
    return {"id": call_id, "type": "function", "function": function}


def _tool_call_deltas(
    calls: Sequence[tuple[str, Call]], size: int, *, same_chunk: bool
) -> list[list[dict[str, Any]]]:
    """Return the tool_calls list of each streamed chunk."""
    per_call: list[list[dict[str, Any]]] = []
    for index, (call_id, call) in enumerate(calls):
        fragments = _pieces(call.arguments_json(), size) or [""]
        # Only a call's first fragment names it; later ones carry just its index.
        first = {"index": index, **_call_json(call_id, call, fragments[0])}
        rest = [{"index": index, "function": {"arguments": f}} for f in fragments[1:]]
        per_call.append([first, *rest])
    if same_chunk and per_call:
        firsts = [fragments[0] for fragments in per_call]
        return [firsts, *([f] for fragments in per_call for f in fragments[1:])]
    return [[f] for fragments in per_call for f in fragments]


def _error_response(reply: Error) -> web.Response:
    """Build the response for a scripted error."""
    headers = FAST_RETRY if reply.headers is None else reply.headers
    if isinstance(reply.body, str):
        return web.Response(status=reply.status, text=reply.body, headers=headers)
    body = reply.body
    if body is None:
        kind = "server_error" if reply.status >= 500 else "invalid_request_error"
        body = openai_error(f"scripted error {reply.status}", type=kind)
    return web.json_response(body, status=reply.status, headers=headers)


async def _stream(
    request: web.Request,
    reply: StreamedReply,
    chunks: Iterable[str | bytes],
    content_type: str,
    status: int,
    timing: Timing,
    tokens: range = range(0),
) -> web.StreamResponse:
    """Write chunks one by one, dropping the connection if the reply says so.

    tokens are the indices of the chunks that carry text or tool call fragments.
    """
    response = web.StreamResponse(status=status, headers={"Content-Type": content_type})
    try:
        await response.prepare(request)
        for sent, piece in enumerate(chunks):
            if sent == reply.drop_after:
                return _drop(request, response)
            if sent == reply.hang_after:
                await asyncio.get_running_loop().create_future()
            if reply.chunk_delay > 0:
                await asyncio.sleep(reply.chunk_delay)
            if reply.token_delay > 0 and sent in tokens:
                await asyncio.sleep(reply.token_delay)
            await response.write(piece.encode() if isinstance(piece, str) else piece)
            if sent in tokens:
                timing.tokens.append(time.perf_counter())
        if reply.drop_after is not None:
            return _drop(request, response)
        await response.write_eof()
        timing.finished = time.perf_counter()
    except ConnectionResetError:
        pass  # the client hung up, e.g. closed the stream early
    return response


def _drop(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """Close the connection; aiohttp then sees the unfinished response as a hang-up."""
    if request.transport is not None:
        request.transport.close()
    return response
