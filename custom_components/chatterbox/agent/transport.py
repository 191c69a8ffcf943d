"""Send a round's request, and stream its response into the chat log.

A request the server refuses in part (tool_choice, tools, a JSON schema) goes
again in a form it takes; a rate limit is waited out once. Every failure is
logged without secrets, has its side effect (reauthentication, a repair, the
server marked unreachable) and becomes the error the user hears.
"""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, Final

import httpx
import openai
from openai import AsyncStream

from homeassistant.components import conversation
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_URL
from homeassistant.exceptions import HomeAssistantError

from ..const import CONF_TOOL_MODE, LOGGER, TOOL_MODE_AUTO
from ..repairs import async_model_missing, async_update_tools_issue
from ..server.capabilities import Capabilities
from ..server.client import describe, without_credentials
from ..server.errors import (
    retry_after,
    translate_request_error,
    translate_stream_error,
    user_error,
)
from ..wire.chunks import Chunk
from ..wire.json import dumps
from .request import with_schema_in_words, with_text_tools, without_tools
from .stage import Stage
from .turn import Turn

# Where an OpenAI-compatible server takes chat completions, below its base URL.
CHAT_PATH: Final = "/chat/completions"


async def async_send(
    stage: Stage, request: dict[str, Any], turn: Turn
) -> tuple[AsyncStream[Chunk], dict[str, Any]]:
    """Send the request, retrying a rate limit once and a refused request.

    Returns the response's stream and the request it answers: another than
    the one given when the server refused a part of it (request.py makes the
    new one). When the server refuses tools altogether, the request goes
    again with the tools in the prompt, and the agent stays in text mode from
    then on.
    """
    client = stage.client
    rate_limit_retried = False
    while True:
        try:
            # Chunks of the type object (not its alias Chunk, which the SDK
            # would try to build) come as the JSON the server wrote, see
            # wire/chunks.py; the SDK still raises an error sent in the stream.
            chunks = await client.post(
                CHAT_PATH,
                cast_to=object,
                content=_body(request),
                stream=True,
                stream_cls=AsyncStream[object],
            )
        except openai.RateLimitError as err:
            if rate_limit_retried or (wait := retry_after(err)) is None:
                raise _request_error(stage, err, request) from err
            LOGGER.info("Rate limited; retrying in %.1f s", wait)
            rate_limit_retried = True
            await asyncio.sleep(wait)
        except openai.BadRequestError as err:
            if (taken := _downgraded(stage, request, turn, err)) is None:
                raise _request_error(stage, err, request) from err
            request = taken
        except openai.OpenAIError as err:
            raise _request_error(stage, err, request) from err
        else:
            await _async_refuse_web_page(stage, chunks)
            stage.entry.runtime_data.coordinator.async_mark_reachable()
            return chunks, request


def _body(request: dict[str, Any]) -> bytes:
    """Serialize a request's body once, with Home Assistant's orjson.

    The SDK's create() would first walk every message and tool against its
    typed parameters, then serialize with the standard library: milliseconds
    a request for a body that is plain JSON already. Its extra_body is merged
    here, as create() merges it.
    """
    body = {key: value for key, value in request.items() if key != "extra_body"}
    if extra := request.get("extra_body"):
        body.update(extra)
    return dumps(body).encode()


async def async_stream_and_run_tools(
    stage: Stage,
    chat_log: conversation.ChatLog,
    chunks: AsyncStream[Chunk],
    deltas: AsyncIterator[conversation.AssistantContentDeltaDict],
) -> None:
    """Stream one response into the chat log, which runs its tool calls.

    The chat log hands each complete call to the turn's guard (the chat log's
    API for the turn, tools/guard.py), which decides it and runs it while the
    answer streams on.
    """
    try:
        async with chunks:
            async for _content in chat_log.async_add_delta_content_stream(
                stage.agent_id, deltas
            ):
                pass
    except (openai.OpenAIError, httpx.HTTPError, ValueError) as err:
        # openai 3.10 lets httpx errors and bad JSON from the stream through;
        # 3.26 wraps them. Either way the answer broke off.
        failure = translate_stream_error(err)
        LOGGER.warning(
            "The answer from %s %s: %s",
            without_credentials(stage.entry.data[CONF_URL]),
            "timed out" if failure.translation_key == "timeout" else "broke off",
            describe(err, stage.entry.data.get(CONF_API_KEY)),
        )
        raise failure from err


def _downgraded(
    stage: Stage,
    request: dict[str, Any],
    turn: Turn,
    err: openai.BadRequestError,
) -> dict[str, Any] | None:
    """Return the refused request in a form the server takes; None if none."""
    capabilities = stage.entry.runtime_data.capabilities
    model = request["model"]
    known = capabilities.get(model, Capabilities())
    if (learned := known.learned(err)) is not None:
        # The probe did not see it (it failed, or the server changed): the
        # field is learned for every later request of the model.
        LOGGER.info("%s refused a field; asking again without it", model)
        capabilities[model] = learned
        return learned.fitted(request)
    if "tool_choice" in request and "tool_choice" in str(err):
        LOGGER.info("The server refused tool_choice; asking without tools")
        return without_tools(request)
    if "tools" in request and _switch_to_text_tools(stage, err):
        return with_text_tools(request, turn.tools)
    if "response_format" in request and "response_format" in str(err):
        LOGGER.info("The server refused a JSON schema; asking in words")
        return with_schema_in_words(request)
    return None


def _switch_to_text_tools(stage: Stage, err: openai.BadRequestError) -> bool:
    """Tell whether a refusal is of tools; if so, switch to text mode."""
    options = stage.options
    text = str(err).lower()
    if "tool" not in text or options.get(CONF_TOOL_MODE, TOOL_MODE_AUTO) != (
        TOOL_MODE_AUTO
    ):
        return False
    entry = stage.entry
    model = options[CONF_MODEL]
    LOGGER.warning(
        "%s refused tools for %s (%s); describing them in the prompt instead",
        without_credentials(entry.data[CONF_URL]),
        model,
        describe(err, entry.data.get(CONF_API_KEY)),
    )
    capabilities = entry.runtime_data.capabilities
    capabilities[model] = replace(capabilities.get(model, Capabilities()), tools=False)
    async_update_tools_issue(stage.hass, entry, stage.subentry, tools_refused=True)
    return True


async def _async_refuse_web_page(stage: Stage, chunks: AsyncStream[Chunk]) -> None:
    """Refuse a web page where the API's stream should be."""
    if chunks.response.headers.get("content-type", "").startswith("text/html"):
        await chunks.close()
        LOGGER.warning(
            "%s answered with a web page, not an API stream; check that "
            "the URL is the API's (it usually ends in /v1)",
            without_credentials(stage.entry.data[CONF_URL]),
        )
        raise user_error("server_error")


def _request_error(
    stage: Stage, err: openai.OpenAIError, request: dict[str, Any]
) -> HomeAssistantError:
    """Log why a request failed, act on it, and return the error the user hears."""
    entry = stage.entry
    LOGGER.warning(
        "Request to %s failed: %s",
        without_credentials(entry.data[CONF_URL]),
        describe(err, entry.data.get(CONF_API_KEY)),
    )
    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
        entry.async_start_reauth(stage.hass)
    if isinstance(err, openai.NotFoundError):
        async_model_missing(stage.hass, entry, stage.subentry)
    if isinstance(err, openai.APIConnectionError) and isinstance(
        err.__cause__, httpx.ConnectError | httpx.ConnectTimeout
    ):
        # Refused, unresolvable, unroutable or unanswered: the server is
        # gone, not slow or broken (a read timeout or a dropped connection
        # is about one request).
        stage.entry.runtime_data.coordinator.async_mark_unreachable(err)
    return translate_request_error(err, model=request["model"])
