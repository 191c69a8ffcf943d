"""The connection to an OpenAI-compatible server: build, probe, classify failures."""

import asyncio
from base64 import b64encode
from collections.abc import Awaitable
from dataclasses import dataclass, field
from enum import StrEnum
import re
from typing import Any, cast
from urllib.parse import unquote, urlsplit, urlunsplit

import openai

from homeassistant.core import HomeAssistant
from homeassistant.helpers.httpx_client import get_async_client

from ..const import CONNECT_TIMEOUT, LOGGER
from .profile import size_from_text

# The SDK refuses to build a client without a key, but local servers (Ollama,
# llama.cpp, LM Studio) need none and ignore the header.
NO_API_KEY = "no-key"

_NUM_CTX = re.compile(r"^num_ctx\s+(\d+)\s*$", re.MULTILINE)
# What Ollama gives a model that sets no num_ctx, on machines under 24 GiB of
# VRAM; bigger machines get more, which only makes our budget cautious.
OLLAMA_DEFAULT_CONTEXT = 4096
# Loading a big model from disk can take this long.
WARM_UP_TIMEOUT = 120.0

_KEY_LIKE = re.compile(r"\b(sk|key|token)-[\w*.-]{4,}", re.IGNORECASE)
# A secret that a server or a proxy echoes after its name, whatever it looks
# like: "Authorization: Bearer …", "api_key=…", "password: …".
_NAMED_SECRET = re.compile(
    r"\b(bearer|basic|api[_-]?key|token|secret|password|authorization)"
    r"(\s*[:=]\s*|\s+)((?:bearer|basic)\s+)?[\"']?[^\s\"',;&]{6,}",
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
    if window := _positive_int(extra.get("max_model_len")):
        kind = ServerKind.VLLM
    elif window := _positive_int(extra.get("context_length")):
        kind = ServerKind.OPENROUTER
    else:
        kind = None
    made = extra.get("architecture")
    outputs = made.get("output_modalities") if isinstance(made, dict) else None
    return Listed(
        window=window,
        parameters=_positive_int(parameters),
        kind=kind,
        chat="text" in outputs if isinstance(outputs, list) else None,
    )


@dataclass(frozen=True, slots=True)
class Reported:
    """What the server reports of its models at setup, where it reports it."""

    kind: ServerKind | None = None
    windows: dict[str, int] = field(default_factory=dict)
    """The context window the server gives each model."""
    sizes: dict[str, int] = field(default_factory=dict)
    """Each model's parameter count."""
    thinks: dict[str, bool] = field(default_factory=dict)
    """Whether each model thinks before it answers, where the server says."""


async def async_reported(
    client: openai.AsyncOpenAI, listed: dict[str, Listed], agent_models: set[str]
) -> Reported:
    """Return the context windows and sizes the server reports, and its kind.

    vLLM and OpenRouter list the windows with the models, and no sizes.
    llama.cpp lists each model's size in its meta, serves one model and tells
    its n_ctx at /props.
    Ollama tells both per model, and whether it thinks, so only the agents'
    models are asked. A probe that fails leaves the model out: the agent's
    option or the default applies.
    """
    sizes = {model: of.parameters for model, of in listed.items() if of.parameters}
    if windows := {model: of.window for model, of in listed.items() if of.window}:
        kind = next(of.kind for of in listed.values() if of.window)
        return Reported(kind, windows, sizes)
    # Each server's own endpoint, asked at once: a server that lets unknown
    # paths time out costs one wait, not three.
    n_ctx, loaded, limits = await asyncio.gather(
        async_server_context_window(client),
        async_lm_studio_windows(client),
        _async_litellm_windows(client),
    )
    if n_ctx:
        return Reported(ServerKind.LLAMA_CPP, dict.fromkeys(listed, n_ctx), sizes)
    if loaded is not None:
        return Reported(ServerKind.LM_STUDIO, loaded, sizes)
    if limits is not None:
        return Reported(ServerKind.LITELLM, limits, sizes)
    probe = client.with_options(timeout=CONNECT_TIMEOUT, max_retries=0)
    root = _server_root(client)
    thinks: dict[str, bool] = {}
    for model in sorted(agent_models):
        shown = await _async_answer_or_none(
            probe.post(f"{root}/api/show", body={"model": model}, cast_to=object),
            "Ollama model details",
            root,
        )
        if not isinstance(shown, dict):
            # Not Ollama (or not answering): no point asking for the others.
            break
        windows[model] = await _async_ollama_window(probe, root, model, shown)
        if parameters := _ollama_parameters(shown):
            sizes[model] = parameters
        if isinstance(abilities := shown.get("capabilities"), list):
            thinks[model] = "thinking" in abilities
    return Reported(ServerKind.OLLAMA if windows else None, windows, sizes, thinks)


async def async_lm_studio_windows(client: openai.AsyncOpenAI) -> dict[str, int] | None:
    """Return the context LM Studio loaded each loaded model with; None elsewhere.

    Its own model list (/api/v0/models) tells the window of a loaded model
    only: a model it loads on demand gets LM Studio's default, which its
    max_context_length (the model's ceiling) would overstate. So it is asked
    again once the probe has loaded the agents' models.
    """
    probe = client.with_options(timeout=CONNECT_TIMEOUT, max_retries=0)
    url = _server_root(client) + "/api/v0/models"
    listed = await _async_answer_or_none(
        probe.get(url, cast_to=object), "LM Studio model list", url
    )
    models = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(models, list) or not any(
        isinstance(model, dict) and "state" in model for model in models
    ):
        # Not LM Studio's list: each of its entries says loaded or not.
        return None
    return {
        model["id"]: window
        for model in models
        if isinstance(model, dict)
        and isinstance(model.get("id"), str)
        and (window := _positive_int(model.get("loaded_context_length")))
    }


async def _async_litellm_windows(client: openai.AsyncOpenAI) -> dict[str, int] | None:
    """Return the input limit LiteLLM knows of each model; None from other servers.

    LiteLLM's proxy tells, at /model/info beside its OpenAI routes, what it
    knows of each model it routes to: max_input_tokens among it.
    """
    probe = client.with_options(timeout=CONNECT_TIMEOUT, max_retries=0)
    url = str(client.base_url).rstrip("/") + "/model/info"
    info = await _async_answer_or_none(
        probe.get(url, cast_to=object), "LiteLLM model info", url
    )
    models = info.get("data") if isinstance(info, dict) else None
    entries = [
        (model["model_name"], model["model_info"])
        for model in (models if isinstance(models, list) else ())
        if isinstance(model, dict)
        and isinstance(model.get("model_name"), str)
        and isinstance(model.get("model_info"), dict)
    ]
    if not entries:
        return None
    windows: dict[str, int] = {}
    for name, details in entries:
        if window := _positive_int(details.get("max_input_tokens")):
            # Deployments under one name may differ: the smallest fits all.
            windows[name] = min(window, windows.get(name, window))
    return windows


async def async_ollama_keep_alive(
    client: openai.AsyncOpenAI, model: str, keep_alive: str
) -> None:
    """Load a model on Ollama and keep it loaded for keep_alive ("-1": always).

    A generate request without a prompt only loads the model. Requests to the
    OpenAI endpoint do not reset the duration it sets.
    """
    probe = client.with_options(timeout=WARM_UP_TIMEOUT, max_retries=0)
    root = _server_root(client)
    duration: int | str = -1 if keep_alive == "-1" else keep_alive
    try:
        await probe.post(
            f"{root}/api/generate",
            body={"model": model, "keep_alive": duration},
            cast_to=object,
        )
    except openai.OpenAIError as err:
        LOGGER.warning("Could not keep %s loaded on Ollama: %s", model, describe(err))


async def async_server_context_window(client: openai.AsyncOpenAI) -> int | None:
    """Ask a llama.cpp server for its context size; None from any other server.

    llama.cpp serves one model and reports n_ctx at /props, beside /v1.
    """
    probe = client.with_options(timeout=CONNECT_TIMEOUT, max_retries=0)
    url = _server_root(client) + "/props"
    props = await _async_answer_or_none(
        probe.get(url, cast_to=object), "llama.cpp context size", url
    )
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    nested = settings.get("n_ctx") if isinstance(settings, dict) else None
    return _positive_int(props.get("n_ctx") or nested)


async def _async_ollama_window(
    probe: openai.AsyncOpenAI, root: str, model: str, shown: dict[str, Any]
) -> int:
    """Return how many tokens Ollama gives the model, from its /api/show answer.

    Ollama serves a model with the num_ctx of its Modelfile, or the server's
    default: the context_length a loaded model shows at /api/ps, else 4096
    on machines under 24 GiB of VRAM. The model's own context_length in
    model_info is only its ceiling; Ollama silently cuts prompts past num_ctx.
    """
    parameters = shown.get("parameters")
    if isinstance(parameters, str) and (match := _NUM_CTX.search(parameters)):
        # A num_ctx of 0 sets nothing: Ollama's default applies.
        return int(match.group(1)) or OLLAMA_DEFAULT_CONTEXT
    info = shown.get("model_info")
    ceiling = next(
        (
            _positive_int(value)
            for key, value in (info.items() if isinstance(info, dict) else ())
            if key.endswith(".context_length")
        ),
        None,
    )
    window = await _async_ollama_loaded_window(probe, root, model)
    window = window or OLLAMA_DEFAULT_CONTEXT
    return min(window, ceiling) if ceiling else window


def _ollama_parameters(shown: dict[str, Any]) -> int | None:
    """Return the parameter count in Ollama's /api/show answer, if it has one.

    model_info counts them exactly; details says them in words ("8.0B"), which
    is read where the count is missing.
    """
    info = shown.get("model_info")
    counted = info.get("general.parameter_count") if isinstance(info, dict) else None
    details = shown.get("details")
    size = details.get("parameter_size") if isinstance(details, dict) else None
    said = size_from_text(size) if isinstance(size, str) else None
    return _positive_int(counted) or said


async def _async_ollama_loaded_window(
    probe: openai.AsyncOpenAI, root: str, model: str
) -> int | None:
    """Return the context a running Ollama model was loaded with, if it runs."""
    running = await _async_answer_or_none(
        probe.get(f"{root}/api/ps", cast_to=object), "Ollama process list", root
    )
    loaded = running.get("models") if isinstance(running, dict) else None
    return next(
        (
            _positive_int(item.get("context_length"))
            for item in (loaded if isinstance(loaded, list) else ())
            if isinstance(item, dict) and model in (item.get("name"), item.get("model"))
        ),
        None,
    )


def _server_root(client: openai.AsyncOpenAI) -> str:
    """Return the server's address without the OpenAI API's /v1.

    Ollama and llama.cpp serve their own endpoints beside /v1.
    """
    return str(client.base_url).rstrip("/").removesuffix("/v1")


async def _async_answer_or_none(
    request: Awaitable[object], what: str, where: str
) -> object:
    """Return a server's answer at one of its own endpoints, None if it failed.

    Only some servers have each endpoint, so a failure is logged, not raised.
    """
    try:
        return await request
    except openai.OpenAIError as err:
        LOGGER.debug("No %s at %s: %s", what, where, describe(err))
        return None


def _positive_int(value: Any) -> int | None:
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
