"""The connection to an OpenAI-compatible server: build, probe, classify failures."""

from base64 import b64encode
from dataclasses import dataclass
from enum import StrEnum
import re
from typing import Any, cast
from urllib.parse import unquote, urlsplit, urlunsplit

import openai

from homeassistant.core import HomeAssistant
from homeassistant.helpers.httpx_client import get_async_client

from ..const import CONNECT_TIMEOUT

# The SDK refuses to build a client without a key, but local servers (Ollama,
# llama.cpp, LM Studio) need none and ignore the header.
NO_API_KEY = "no-key"


_KEY_LIKE = re.compile(r"\b(sk|key|token)-[\w*.-]{4,}", re.IGNORECASE)
_CREDENTIAL_NAMES = r"bearer|basic|api[_-]?key|token|secret|password|authorization"
# A secret that a server or a proxy echoes after its name, whatever it looks
# like: "Authorization: Bearer …", "api_key=…", "password: …". What follows a
# name is no secret when it is itself a name and its separator, or a label
# ("x-api-key:"): taken for one, it would leave the secret after it unmasked.
_NAMED_SECRET = re.compile(
    rf"\b({_CREDENTIAL_NAMES})(\s*[:=]\s*|\s+)((?:bearer|basic)\s+)?[\"']?"
    rf"(?!(?:{_CREDENTIAL_NAMES})(?:\s*[:=]|\s))[^\s\"',;&]{{6,}}+(?<!:)",
    re.IGNORECASE,
)
# A user and password in a URL.
_USERINFO = re.compile(r"(://)[^/\s@]+@")


class Failure(StrEnum):
    """What kind of trouble a request to the server ran into."""

    AUTH = "auth"
    """The server refused the API key (401/403)."""
    UNAVAILABLE = "unavailable"
    """The server could not be reached, timed out, was busy (429) or broke (5xx)."""
    REJECTED = "rejected"
    """The server understood and refused the request (another 4xx)."""


async def async_create_client(
    hass: HomeAssistant, url: str, api_key: str | None
) -> openai.AsyncOpenAI:
    """Build a client on Home Assistant's shared HTTP connection pool.

    A user and password in the URL (a reverse proxy's) go as a Basic
    Authorization header, as HTTP clients send them, and never in the URL:
    the HTTP client logs every request's URL.
    """
    client = openai.AsyncOpenAI(
        base_url=without_credentials(url),
        api_key=api_key or NO_API_KEY,
        default_headers=_basic_authorization(url),
        # The SDK types http_client as its own httpx client class; Home Assistant's
        # shared client is the same class under another module name on 2026.11.
        http_client=cast("Any", get_async_client(hass)),
    )
    await hass.async_add_executor_job(_load_lazy_parts, client)
    return client


def without_credentials(url: str) -> str:
    """Return a URL without the user and password it may carry, to show or log."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _basic_authorization(url: str) -> dict[str, str] | None:
    """Return the Authorization header for the user and password in a URL."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return None
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return {"Authorization": f"Basic {b64encode(pair.encode()).decode()}"}


def _load_lazy_parts(client: openai.AsyncOpenAI) -> None:
    """Do the SDK's first-use disk work here, in an executor, not in the loop.

    It reads platform details once, and newer releases import their resource
    modules on first access through importlib, which the loop must not do.
    """
    client.platform_headers()
    _ = client.chat.completions


class ServerKind(StrEnum):
    """The servers that tell more about themselves than the OpenAI API does."""

    VLLM = "vllm"
    LLAMA_CPP = "llama.cpp"
    OLLAMA = "ollama"
    OPENROUTER = "openrouter"
    LM_STUDIO = "lm_studio"
    LITELLM = "litellm"


@dataclass(frozen=True, slots=True)
class Listed:
    """What the server's model list tells of one model, where it tells it."""

    window: int | None = None
    """The context window: vLLM lists max_model_len, OpenRouter context_length."""
    parameters: int | None = None
    """The parameter count: llama.cpp lists n_params in the model's meta."""
    kind: ServerKind | None = None
    """The server whose field told the window."""
    chat: bool | None = None
    """Whether the model writes text, where the list says (OpenRouter does)."""


async def async_list_models(client: openai.AsyncOpenAI) -> list[str]:
    """Return the ids of the server's models, failing fast when it is unwell."""
    return list(await async_list_model_details(client))


async def async_list_model_details(client: openai.AsyncOpenAI) -> dict[str, Listed]:
    """Return the server's model ids with what the list tells of each."""
    probe = client.with_options(timeout=CONNECT_TIMEOUT, max_retries=0)
    return {
        model.id: _listed(model.model_extra or {})
        async for model in await probe.models.list()
    }


def _listed(extra: dict[str, Any]) -> Listed:
    """Read the fields a server adds to a model in its list."""
    meta = extra.get("meta")
    parameters = meta.get("n_params") if isinstance(meta, dict) else None
    if window := positive_int(extra.get("max_model_len")):
        kind = ServerKind.VLLM
    elif window := positive_int(extra.get("context_length")):
        kind = ServerKind.OPENROUTER
    else:
        kind = None
    made = extra.get("architecture")
    outputs = made.get("output_modalities") if isinstance(made, dict) else None
    return Listed(
        window=window,
        parameters=positive_int(parameters),
        kind=kind,
        chat="text" in outputs if isinstance(outputs, list) else None,
    )


def positive_int(value: Any) -> int | None:
    """Return a count a server reported, or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if value > 0 else None


def classify(err: openai.OpenAIError) -> Failure:
    """Sort an SDK error into the three ways Home Assistant reacts to them."""
    match err:
        case openai.AuthenticationError() | openai.PermissionDeniedError():
            return Failure.AUTH
        case openai.RateLimitError() | openai.InternalServerError():
            return Failure.UNAVAILABLE
        case openai.APIStatusError():
            return Failure.REJECTED
        case _:
            return Failure.UNAVAILABLE


def describe(err: BaseException, api_key: str | None = None) -> str:
    """Say what went wrong for the log, with anything that looks like a key masked."""
    text = str(err)
    if not text or not isinstance(err, openai.OpenAIError):
        # httpx's timeouts say nothing but their type.
        text = f"{type(err).__name__}: {text}".removesuffix(": ")
    if isinstance(err, openai.APIStatusError):
        text = f"HTTP {err.status_code}: {text}"
    elif isinstance(err, openai.APIConnectionError) and err.__cause__ is not None:
        text = f"{text} ({type(err.__cause__).__name__}: {err.__cause__})"
    if api_key:
        text = text.replace(api_key, "**REDACTED**")
    text = _USERINFO.sub(r"\1**REDACTED**@", text)
    text = _NAMED_SECRET.sub(r"\1\2\3**REDACTED**", text)
    return _KEY_LIKE.sub(r"\1-**REDACTED**", text)
