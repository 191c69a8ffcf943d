"""Prove the scripted LLM server speaks OpenAI's wire format to the real SDK."""

import asyncio
from collections.abc import AsyncIterator
import itertools
import json
import math
import time
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletionChunk
import pytest

from tests.helpers.llm_server import (
    Call,
    Disconnect,
    Error,
    LLMServer,
    ModelList,
    Raw,
    Text,
    ToolCalls,
    Usage,
    openai_error,
)

MESSAGES: list[Any] = [{"role": "user", "content": "Turn on the kitchen light"}]

# openai 3.10 lets httpx2's error escape when the stream breaks mid-body; later
# releases wrap it in APIConnectionError. The integration has to expect both.
BROKEN_STREAM = (openai.APIConnectionError, httpx2.RemoteProtocolError)


@pytest.fixture
async def server(socket_enabled: None) -> AsyncIterator[LLMServer]:
    """Run a server that lists two models."""
    async with LLMServer(models=["qwen3", "llama3"]) as server:
        yield server


@pytest.fixture
async def client(server: LLMServer) -> AsyncIterator[openai.AsyncOpenAI]:
    """Connect the real SDK to the server, without retries."""
    async with openai.AsyncOpenAI(
        base_url=server.url, api_key="x", max_retries=0
    ) as client:
        yield client


async def ask(client: openai.AsyncOpenAI, **kwargs: Any) -> Any:
    """Send the standard conversation to the server."""
    return await client.chat.completions.create(
        model="qwen3", messages=MESSAGES, **kwargs
    )


async def ask_streaming(
    client: openai.AsyncOpenAI, **kwargs: Any
) -> list[ChatCompletionChunk]:
    """Send the standard conversation streamed and read every chunk."""
    stream = await ask(client, stream=True, **kwargs)
    async with stream:
        return [chunk async for chunk in stream]


async def read_into(stream: Any, received: list[ChatCompletionChunk]) -> None:
    """Read a stream into a list that keeps what came before an error."""
    async with stream:
        async for chunk in stream:
            received.append(chunk)  # noqa: PERF401  # keep what came before the error


def contents(chunks: list[ChatCompletionChunk]) -> list[str]:
    """Return the non-empty content deltas, in order."""
    return [
        c.choices[0].delta.content
        for c in chunks
        if c.choices and c.choices[0].delta.content
    ]


async def test_models_are_listed(server: LLMServer, client: openai.AsyncOpenAI) -> None:
    """The models endpoint lists the configured ids, and follows changes."""
    page = await client.models.list()
    assert [model.id for model in page.data] == ["qwen3", "llama3"]
    assert page.data[0].owned_by == "test"

    server.models = ["mistral"]
    page = await client.models.list()
    assert [model.id for model in page.data] == ["mistral"]


async def test_models_carry_llama_cpp_meta_when_set(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """By default no model has a meta; one set is listed as llama.cpp lists it."""
    page = await client.models.list()
    assert [model.model_extra for model in page.data] == [{}, {}]

    server.model_meta = {"llama3": {"n_params": 3_212_749_824}}
    page = await client.models.list()
    assert [model.model_extra for model in page.data] == [
        {},
        {"meta": {"n_params": 3_212_749_824}},
    ]


async def test_models_endpoint_can_fail_once(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Scripted models replies are used once each, then the list comes back."""
    server.models_reply(
        Error(503),
        Disconnect(),
        ModelList(["only-this"]),
        ModelList(delay=5),
    )

    with pytest.raises(openai.InternalServerError):
        await client.models.list()
    with pytest.raises(openai.APIConnectionError):
        await client.models.list()
    assert [m.id for m in (await client.models.list()).data] == ["only-this"]
    with pytest.raises(openai.APITimeoutError):
        await client.models.list(timeout=0.2)
    assert [m.id for m in (await client.models.list()).data] == ["qwen3", "llama3"]


async def test_plain_completion(server: LLMServer, client: openai.AsyncOpenAI) -> None:
    """A request without stream gets one JSON completion."""
    server.reply(Text("The kitchen light is on.", usage=Usage(20, 7)))

    completion = await ask(client)

    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].message.content == "The kitchen light is on."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "qwen3"
    assert completion.usage is not None
    assert completion.usage.total_tokens == 27
    assert server.last_chat_request["messages"] == MESSAGES
    assert "stream" not in server.last_chat_request


async def test_streamed_text_arrives_in_pieces(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """A streamed answer comes as several chunks that add up to the text."""
    server.reply(Text("The kitchen light is on now."))

    chunks = await ask_streaming(client)

    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = contents(chunks)
    assert len(pieces) >= 5
    assert "".join(pieces) == "The kitchen light is on now."
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(chunk.usage is None for chunk in chunks)


async def test_stream_reports_usage_when_asked(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """include_usage adds a last chunk with no choices and the token counts."""
    server.reply(Text("Done.", usage=Usage(prompt_tokens=42, completion_tokens=3)))

    chunks = await ask_streaming(client, stream_options={"include_usage": True})

    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens == 42
    assert chunks[-1].usage.total_tokens == 45
    assert chunks[-2].choices[0].finish_reason == "stop"


async def test_streamed_tool_calls_are_split_by_index(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Two calls stream their arguments in fragments, both opening in one chunk."""
    server.reply(
        ToolCalls(
            [
                Call("HassTurnOn", {"name": "kitchen light"}),
                Call("HassTurnOff", '{"area": "garage"}', id="call_garage"),
            ],
            same_chunk=True,
        )
    )

    chunks = await ask_streaming(client)

    deltas = [
        c.choices[0].delta.tool_calls for c in chunks if c.choices[0].delta.tool_calls
    ]
    assert [call.index for call in deltas[0]] == [0, 1]
    assert all(len(delta) == 1 for delta in deltas[1:])
    calls: dict[int, dict[str, str]] = {}
    for delta in deltas:
        for part in delta:
            call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
            assert part.function is not None
            if part.id:
                assert part.type == "function"
                call["id"], call["name"] = part.id, part.function.name or ""
            else:
                assert part.function.name is None
            call["arguments"] += part.function.arguments or ""
    assert calls[0]["id"] == "call_1"
    assert calls[0]["name"] == "HassTurnOn"
    assert json.loads(calls[0]["arguments"]) == {"name": "kitchen light"}
    assert calls[1] == {
        "id": "call_garage",
        "name": "HassTurnOff",
        "arguments": '{"area": "garage"}',
    }
    assert sum(1 for d in deltas for part in d if part.index == 1) > 2
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_tool_calls_without_stream_keep_malformed_arguments(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """A plain completion carries tool calls, with string arguments verbatim."""
    server.reply(ToolCalls([Call("HassTurnOn", '{"name": "kitch')], content="On it."))

    completion = await ask(client)

    message = completion.choices[0].message
    assert message.content == "On it."
    assert message.tool_calls is not None
    assert message.tool_calls[0].id == "call_1"
    assert message.tool_calls[0].function.name == "HassTurnOn"
    assert message.tool_calls[0].function.arguments == '{"name": "kitch'
    assert completion.choices[0].finish_reason == "tool_calls"


async def test_reasoning_streams_before_content(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Reasoning deltas come first, under the key the reply names."""
    server.reply(
        Text("Yes.", reasoning="The user wants light."),
        Text("No.", reasoning="Think.", reasoning_key="reasoning"),
    )

    chunks = await ask_streaming(client)
    extras = [c.choices[0].delta.model_extra or {} for c in chunks]
    reasoning = [
        extra["reasoning_content"] for extra in extras if "reasoning_content" in extra
    ]
    assert "".join(reasoning) == "The user wants light."
    first_content = next(i for i, c in enumerate(chunks) if c.choices[0].delta.content)
    assert all("reasoning_content" not in extra for extra in extras[first_content:])
    assert "".join(contents(chunks)) == "Yes."

    completion = await ask(client)
    message = completion.choices[0].message
    assert message.model_extra == {"reasoning": "Think."}
    assert message.content == "No."


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (404, openai.NotFoundError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
async def test_error_status_raises_matching_sdk_error(
    server: LLMServer,
    client: openai.AsyncOpenAI,
    status: int,
    error: type[openai.APIStatusError],
) -> None:
    """Each scripted status surfaces as the SDK's exception for it."""
    body = openai_error("Nope", type="some_error", code="some_code")
    server.reply(Error(status, body))

    with pytest.raises(error) as caught:
        await ask(client, stream=True)

    assert caught.value.status_code == status
    assert caught.value.code == "some_code"
    assert caught.value.type == "some_error"
    assert "Nope" in caught.value.message


async def test_text_error_body(server: LLMServer, client: openai.AsyncOpenAI) -> None:
    """A plain text error body reaches the SDK as the message."""
    server.reply(Error(502, "Bad Gateway from the proxy"))

    with pytest.raises(openai.InternalServerError) as caught:
        await ask(client)

    assert caught.value.status_code == 502
    assert "Bad Gateway from the proxy" in caught.value.message


async def test_sdk_retries_cost_no_time(server: LLMServer) -> None:
    """Scripted errors tell the SDK to retry at once, so its retries are quick."""
    server.reply(Error(503), Error(429), Text("Third time lucky."))

    started = time.monotonic()
    async with openai.AsyncOpenAI(base_url=server.url, api_key="x") as client:
        completion = await ask(client)

    # Without retry-after-ms the SDK backs off over a second in total.
    assert time.monotonic() - started < 1.0
    assert completion.choices[0].message.content == "Third time lucky."
    assert len(server.chat_requests) == 3


async def test_unscripted_request_fails_loudly(server: LLMServer) -> None:
    """A request with no reply queued gets a clear 500 that the SDK does not retry."""
    async with openai.AsyncOpenAI(base_url=server.url, api_key="x") as client:
        with pytest.raises(openai.InternalServerError) as caught:
            await ask(client)

    assert "scripted no reply" in caught.value.message
    assert len(server.unscripted) == 1
    assert len(server.requests) == 1


async def test_api_key_is_checked(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """With an expected key, a wrong one gets 401 invalid_api_key."""
    server.api_key = "sk-right"
    server.reply(Text("Welcome."))

    with pytest.raises(openai.AuthenticationError) as caught:
        await client.models.list()
    assert caught.value.code == "invalid_api_key"

    async with openai.AsyncOpenAI(
        base_url=server.url, api_key="sk-right", max_retries=0
    ) as right:
        completion = await ask(right)
    assert completion.choices[0].message.content == "Welcome."
    assert server.pending == 0


async def test_raw_garbage(server: LLMServer, client: openai.AsyncOpenAI) -> None:
    """Raw pieces go out verbatim: broken SSE fails to parse, HTML comes as text."""
    server.reply(
        Raw(["data: {not json\n\n"]),
        Raw(["<html>", "oops</html>"], content_type="text/html"),
    )

    with pytest.raises(json.JSONDecodeError):
        await ask_streaming(client)
    # The SDK returns a non-JSON body as a plain string instead of raising.
    assert await ask(client) == "<html>oops</html>"


async def test_dropped_stream_breaks_iteration(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """drop_after cuts the stream: the chunks before it arrive, then reading fails."""
    server.reply(Text("This answer will be cut short.", drop_after=3))
    received: list[ChatCompletionChunk] = []

    stream = await ask(client, stream=True)
    with pytest.raises(BROKEN_STREAM):
        await read_into(stream, received)

    assert len(received) == 3
    assert "".join(contents(received)) == "This ans"
    assert server.pending == 0


async def test_disconnect_before_answering(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Disconnect closes the connection without a response."""
    server.reply(Disconnect())

    with pytest.raises(openai.APIConnectionError):
        await ask(client)


async def test_delay_runs_into_client_timeout(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """A reply slower than the client's timeout gives APITimeoutError."""
    server.reply(Text("Too late.", delay=30), Text("On time."))

    with pytest.raises(openai.APITimeoutError):
        await ask(client, timeout=0.2)
    completion = await ask(client)
    assert completion.choices[0].message.content == "On time."


async def test_chunk_delay_spaces_the_stream(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """chunk_delay waits before every chunk."""
    server.reply(Text("abcdefgh", piece_size=2, chunk_delay=0.02))

    started = time.monotonic()
    chunks = await ask_streaming(client)

    # role, four pieces, finish and [DONE]: seven waits.
    assert time.monotonic() - started >= 7 * 0.02
    assert contents(chunks) == ["ab", "cd", "ef", "gh"]


async def test_token_delay_spaces_only_the_tokens(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """token_delay waits before each text chunk; the server notes when it sent each."""
    server.reply(Text("abcdefgh", piece_size=2, token_delay=0.02))

    chunks = await ask_streaming(client, stream_options={"include_usage": True})

    assert contents(chunks) == ["ab", "cd", "ef", "gh"]
    timing = server.requests[-1].timing
    assert len(timing.tokens) == 4
    assert all(b - a >= 0.02 for a, b in itertools.pairwise(timing.tokens))
    assert timing.tokens[0] - timing.received >= 0.02
    # The finish, usage and [DONE] chunks follow the last token without a wait.
    assert timing.finished is not None
    assert timing.received < timing.tokens[-1] <= timing.finished
    assert timing.seconds == timing.finished - timing.received


async def test_server_time_and_size_are_recorded(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Each request keeps its body size and when the server got and answered it."""
    server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})], delay=0.05),
        Text("Done."),
    )

    await ask(client, stream=True)
    await ask(client)
    await client.models.list()

    streamed, plain, models = server.requests
    assert streamed.size == len(json.dumps(streamed.json, separators=(",", ":")))
    assert models.size == 0
    # The arguments go out four characters a chunk, each chunk a token.
    arguments = json.dumps({"name": "Kitchen light"})
    assert len(streamed.timing.tokens) == math.ceil(len(arguments) / 4)
    assert streamed.timing.seconds >= 0.05
    assert plain.timing.tokens == []
    for request in (streamed, plain, models):
        assert request.timing.finished is not None
        assert request.timing.received <= request.timing.finished


async def test_stopping_the_server_ends_a_hanging_reply(socket_enabled: None) -> None:
    """Stop cancels a reply that would never come, and the client sees a hang-up."""
    server = LLMServer()
    await server.start()
    server.reply(Text("Never.", hang=True))
    async with openai.AsyncOpenAI(
        base_url=server.url, api_key="x", max_retries=0
    ) as client:
        pending = asyncio.create_task(ask(client))
        async with asyncio.timeout(5):
            await server.wait_for_request()

        await server.stop()

        with pytest.raises(openai.APIConnectionError):
            await pending


async def test_stream_closed_early(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """A client that stops reading after one chunk leaves nothing behind."""
    server.reply(Text("A long answer nobody reads to the end.", chunk_delay=0.01))

    stream = await ask(client, stream=True)
    async with stream:
        first = await anext(aiter(stream))

    assert first.choices[0].delta.role == "assistant"


async def test_requests_are_recorded(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """Every request is kept with its method, path, headers and JSON body."""
    tools: list[Any] = [{"type": "function", "function": {"name": "HassTurnOn"}}]
    server.reply(Text("One."), Text("Two."))

    await client.models.list()
    await ask(client, tools=tools)
    await ask(client, stream=True)

    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/chat/completions"),
    ]
    assert server.requests[0].json is None
    assert server.requests[1].headers["authorization"] == "Bearer x"
    assert server.chat_requests[0]["tools"] == tools
    assert server.last_chat_request["stream"] is True
    assert server.unscripted == []


async def test_unknown_path_is_unscripted(
    server: LLMServer, client: openai.AsyncOpenAI
) -> None:
    """An endpoint the server does not serve fails and is noted as unscripted."""
    with pytest.raises(openai.InternalServerError):
        await client.embeddings.create(model="qwen3", input="hello")

    assert [r.path for r in server.unscripted] == ["/v1/embeddings"]


def test_reply_kinds_are_checked_per_endpoint() -> None:
    """A models reply cannot answer a chat completion, nor a chat reply the models."""
    server = LLMServer()

    with pytest.raises(TypeError):
        server.reply(ModelList())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        server.models_reply(Text("Hi"))  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        _ = server.url
