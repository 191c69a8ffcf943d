"""What servers tell of their models beyond the OpenAI API, at their own endpoints.

llama.cpp's /props, LM Studio's and LiteLLM's model lists, Ollama's
/api/show and /api/ps: context windows, sizes, whether a model thinks; and
Ollama's keep-alive. Only some servers have each endpoint, so a failure there
is logged and read as "not this server".
"""

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
import re
from typing import Any

import openai

from ..const import CONNECT_TIMEOUT, LOGGER
from .client import Listed, ServerKind, describe, positive_int
from .profile import size_from_text

_NUM_CTX = re.compile(r"^num_ctx\s+(\d+)\s*$", re.MULTILINE)
# What Ollama gives a model that sets no num_ctx, on machines under 24 GiB of
# VRAM; bigger machines get more, which only makes our budget cautious.
OLLAMA_DEFAULT_CONTEXT = 4096
# Loading a big model from disk can take this long.
WARM_UP_TIMEOUT = 120.0


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
    its n_ctx at /props. LM Studio tells the windows of its loaded models,
    LiteLLM each model's input limit, in their own lists.
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
        and (window := positive_int(model.get("loaded_context_length")))
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
        if window := positive_int(details.get("max_input_tokens")):
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
    return positive_int(props.get("n_ctx") or nested)


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
            positive_int(value)
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
    return positive_int(counted) or said


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
            positive_int(item.get("context_length"))
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
