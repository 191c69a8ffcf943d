"""What the user hears when the server fails: short, translated sentences."""

from contextlib import suppress
from email.utils import parsedate_to_datetime
from http import HTTPStatus
import re
import time
from typing import Final

import httpx
import openai

from homeassistant.exceptions import HomeAssistantError

from ..const import DOMAIN

# A 429 is retried once when the server asks for a wait no longer than this.
MAX_RETRY_AFTER: Final = 10.0
DEFAULT_RETRY_AFTER: Final = 1.0

# How servers say the prompt does not fit: OpenAI and vLLM ("maximum context
# length"), llama.cpp ("exceeds the available context size", n_ctx), LM Studio
# and TGI ("context window", "too many tokens"), Anthropic-style proxies
# ("prompt is too long").
_CONTEXT_TOO_LONG = re.compile(
    r"context[_ ]length|context (size|window)|n_ctx|too many tokens"
    r"|prompt is too long|maximum context",
    re.IGNORECASE,
)
# OpenAI's image models refuse a prompt with "moderation_blocked".
_CONTENT_FILTER_CODES: Final = {
    "content_filter",
    "content_policy_violation",
    "moderation_blocked",
}


def user_error(key: str, **placeholders: str) -> HomeAssistantError:
    """Build the translated error the pipeline speaks."""
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key=key,
        translation_placeholders=placeholders or None,
    )


def _error_code(err: openai.APIStatusError) -> str:
    """Return the error code from an OpenAI-style error body, if any."""
    return str(getattr(err, "code", None) or "")


def translate_request_error(  # noqa: PLR0911  # one case per thing the user hears
    err: Exception, *, model: str
) -> HomeAssistantError:
    """Say in one sentence why the server did not answer the request."""
    match err:
        case openai.APIConnectionError() if isinstance(
            err.__cause__, httpx.ConnectTimeout
        ):
            # Nothing took the connection: the server was never reached.
            return user_error("cannot_connect")
        case openai.APITimeoutError() | httpx.TimeoutException():
            return user_error("timeout")
        case openai.APIConnectionError() | httpx.TransportError():
            return user_error("cannot_connect")
        case openai.AuthenticationError() | openai.PermissionDeniedError():
            return user_error("auth_failed")
        case openai.RateLimitError():
            return user_error("rate_limited")
        case openai.APIStatusError() if (
            # A proxy's body size limit (nginx allows 1 MB) refuses the
            # conversation with a 413 and a page that names no context.
            err.status_code == HTTPStatus.REQUEST_ENTITY_TOO_LARGE
            or _CONTEXT_TOO_LONG.search(str(err))
        ):
            return user_error("context_too_long")
        case openai.APIStatusError() if _error_code(err) in _CONTENT_FILTER_CODES:
            return user_error("content_filtered")
        case openai.NotFoundError():
            return user_error("model_not_found", model=model)
        case openai.APIStatusError() if _says_model_missing(str(err)):
            return user_error("model_not_found", model=model)
        case _:
            return user_error("server_error")


def translate_stream_error(err: Exception) -> HomeAssistantError:
    """Say why an answer broke off after the server had started sending it."""
    match err:
        case openai.APITimeoutError() | httpx.TimeoutException():
            return user_error("timeout")
        case _:
            return user_error("stream_broken")


def retry_after(err: openai.RateLimitError) -> float | None:
    """Return how long to wait before the one retry of a 429, or None for none."""
    headers = err.response.headers
    wait = DEFAULT_RETRY_AFTER
    if (millis := headers.get("retry-after-ms")) is not None:
        with suppress(ValueError):
            wait = float(millis) / 1000
    elif (value := headers.get("retry-after")) is not None:
        try:
            wait = float(value)
        except ValueError:
            with suppress(TypeError, ValueError):
                wait = parsedate_to_datetime(value).timestamp() - time.time()
    return max(wait, 0.0) if wait <= MAX_RETRY_AFTER else None


def _says_model_missing(text: str) -> bool:
    """Tell whether an error says a model is not found, in linear time.

    As "model .* (not found|does not exist)" on one line would, without the
    pattern's backtracking: quadratic on a long line with "model" written many
    times, and a server's error body can be megabytes.
    """
    for line in text.lower().splitlines():
        if (start := line.find("model")) >= 0 and (
            line.find("not found", start) >= 0
            or line.find("does not exist", start) >= 0
        ):
            return True
    return False
