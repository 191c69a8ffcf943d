"""Setting up a server entry: it is tested first, and failures land right."""

import pytest

from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from .conftest import API_KEY, MODELS
from .llm_server import Disconnect, Error, LLMServer, openai_error


async def test_setup_lists_models_and_unloads(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A reachable server loads; its models are kept; unloading works."""
    assert loaded_entry.state is ConfigEntryState.LOADED
    assert loaded_entry.runtime_data.models == list(MODELS)
    # No context size listed with the models: llama.cpp's /props is asked,
    # then Ollama's details of the agent's model.
    assert [r.path for r in llm_server.requests] == [
        "/v1/models",
        "/props",
        "/api/show",
    ]
    assert loaded_entry.runtime_data.context_windows == {}

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert loaded_entry.state is ConfigEntryState.NOT_LOADED


@pytest.mark.parametrize(
    ("reply", "state", "message"),
    [
        (Disconnect(), ConfigEntryState.SETUP_RETRY, "Cannot reach the server"),
        (Error(500, openai_error("boom")), ConfigEntryState.SETUP_RETRY, "HTTP 500"),
        (Error(503, "overloaded"), ConfigEntryState.SETUP_RETRY, "HTTP 503"),
        (Error(429, openai_error("slow")), ConfigEntryState.SETUP_RETRY, "HTTP 429"),
        (Error(404, "no such path"), ConfigEntryState.SETUP_ERROR, "HTTP 404"),
        (Error(400, openai_error("bad")), ConfigEntryState.SETUP_ERROR, "refused"),
    ],
)
async def test_setup_failures_retry_or_stop(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    reply: Error | Disconnect,
    state: ConfigEntryState,
    message: str,
) -> None:
    """Busy or broken servers are retried later; other refusals stop setup."""
    llm_server.models_reply(reply)

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is state
    assert message in caplog.text
    # One probe, no SDK retries: setup fails fast and Home Assistant retries.
    assert len(llm_server.requests) == 1


async def test_refused_key_starts_reauth_and_stays_secret(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 401 asks the user for a new key; the key never reaches the log."""
    llm_server.models_reply(
        Error(401, openai_error(f"Key {API_KEY} refused, sk-proj-1234***7890 too"))
    )

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is ConfigEntryState.SETUP_ERROR
    (flow,) = hass.config_entries.flow.async_progress_by_handler("chatterbox")
    assert flow["context"]["source"] == SOURCE_REAUTH
    assert "refused the API key" in caplog.text
    assert API_KEY not in caplog.text
    assert "sk-proj-1234" not in caplog.text
    assert "Key **REDACTED** refused, sk-**REDACTED** too" in caplog.text


async def test_vllm_lists_each_model_context_window(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """VLLM's max_model_len becomes the model's context window; /props is skipped."""
    llm_server.model_fields = {MODELS[0]: {"max_model_len": 4096}}

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.runtime_data.context_windows == {MODELS[0]: 4096}
    assert [r.path for r in llm_server.requests] == ["/v1/models"]


@pytest.mark.parametrize(
    "props",
    [
        {"default_generation_settings": {"n_ctx": 2048}},
        {"n_ctx": 2048},
    ],
)
async def test_llama_cpp_reports_its_context_size(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    props: dict[str, object],
) -> None:
    """llama.cpp's n_ctx at /props is the window of the model it serves."""
    llm_server.props = props

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.runtime_data.context_windows == dict.fromkeys(MODELS, 2048)


@pytest.mark.parametrize(
    "props", [{"n_ctx": "big", "default_generation_settings": None}, ["n_ctx"]]
)
async def test_odd_props_are_ignored(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    props: object,
) -> None:
    """A /props answer without a usable n_ctx leaves the default window."""
    llm_server.props = props

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is ConfigEntryState.LOADED
    assert config_entry.runtime_data.context_windows == {}


def _ollama_show(parameters: object = "", context_length: int = 32768) -> object:
    """Return Ollama's /api/show answer for a model, in its real shape."""
    return {
        "modelfile": "FROM /models/blobs/sha256-1",
        "parameters": parameters,
        "template": "{{ .Prompt }}",
        "details": {"family": "qwen3", "parameter_size": "8.2B"},
        "model_info": {
            "general.architecture": "qwen3",
            "qwen3.context_length": context_length,
        },
        "capabilities": ["completion", "tools"],
    }


@pytest.mark.parametrize(
    ("show", "running", "window"),
    [
        # A Modelfile's num_ctx is what Ollama serves the model with.
        (_ollama_show('num_ctx 16384\nstop "<|im_end|>"'), [], 16384),
        # Without one, a loaded model shows the context it was given...
        (
            _ollama_show('stop "<|im_end|>"'),
            [{"name": MODELS[0], "model": MODELS[0], "context_length": 8192}],
            8192,
        ),
        # ...and one not loaded gets Ollama's default, 4096 on small machines,
        (_ollama_show(), [{"name": "other:1b", "context_length": 2048}], 4096),
        # but never more than the model itself can read.
        (_ollama_show(context_length=2048), [], 2048),
        # So does one whose process list cannot be read,
        (_ollama_show(), None, 4096),
        # and odd answers fall back to the default too.
        ({"parameters": ["num_ctx", 1], "model_info": None}, [{"model": 1}], 4096),
    ],
)
async def test_ollama_reports_the_agents_model_window(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    show: object,
    running: list[dict[str, object]] | None,
    window: int,
) -> None:
    """Ollama's runtime num_ctx, not the model's maximum, is the agent's window."""
    llm_server.ollama = {MODELS[0]: show}
    llm_server.ollama_running = running

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    # Only the agent's model is asked about, not every model Ollama has.
    assert config_entry.runtime_data.context_windows == {MODELS[0]: window}
    shown = [r.json for r in llm_server.requests if r.path == "/api/show"]
    assert shown == [{"model": MODELS[0]}]


async def test_an_odd_ollama_answer_leaves_the_default(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """An /api/show answer that is no object says nothing about the window."""
    llm_server.ollama = {MODELS[0]: ["num_ctx 9000"]}

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is ConfigEntryState.LOADED
    assert config_entry.runtime_data.context_windows == {}
