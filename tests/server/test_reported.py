"""What servers report at their own endpoints: context windows, sizes, keep-alive."""

from typing import Any

import pytest

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import CONF_KEEP_ALIVE
from tests.helpers.common import MODELS, set_up
from tests.helpers.llm_server import LLMServer, ollama_show


def _ollama(llm_server: LLMServer) -> None:
    """Make the test server answer Ollama's own API too."""
    llm_server.ollama = {MODELS[0]: {"parameters": "num_ctx 8192"}}


@pytest.mark.parametrize(
    ("agent_data", "keep_alive"),
    [
        ({"model": MODELS[0], CONF_KEEP_ALIVE: "-1"}, -1),
        ({"model": MODELS[0], CONF_KEEP_ALIVE: "30m"}, "30m"),
    ],
)
async def test_ollama_keeps_the_model_loaded(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    keep_alive: Any,
) -> None:
    """With keep-alive set, Ollama is asked to keep the model in memory."""
    _ollama(llm_server)

    await set_up(hass, config_entry)

    loads = [r.json for r in llm_server.requests if r.path == "/api/generate"]
    assert loads == [{"model": MODELS[0], "keep_alive": keep_alive}]
    # The probe's tiny requests warmed the model up too.
    assert llm_server.probes


@pytest.mark.parametrize("agent_data", [{"model": MODELS[0], CONF_KEEP_ALIVE: "1h"}])
async def test_keep_alive_goes_only_to_ollama(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Other servers never see Ollama's own API; they are warmed up by the probe."""
    await set_up(hass, config_entry)

    assert not [r for r in llm_server.requests if r.path == "/api/generate"]
    assert len(llm_server.probes) == 3


@pytest.mark.parametrize("agent_data", [{"model": MODELS[0], CONF_KEEP_ALIVE: "1h"}])
async def test_ollama_refusing_keep_alive_is_logged(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A failed load request is a warning, not a failed setup."""
    _ollama(llm_server)
    llm_server.ollama_generate_status = 500

    await set_up(hass, config_entry)

    assert f"Could not keep {MODELS[0]} loaded on Ollama" in caplog.text


@pytest.mark.parametrize(
    "fields",
    [{"max_model_len": 4096}, {"context_length": 4096}],
    ids=["vllm", "openrouter"],
)
async def test_a_model_list_that_tells_the_context_window_sets_it(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    fields: dict[str, int],
) -> None:
    """VLLM's max_model_len, OpenRouter's context_length: the model's window.

    No server's own API (/props) is asked then.
    """
    llm_server.model_fields = {MODELS[0]: fields}
    kind = "vllm" if "max_model_len" in fields else "openrouter"

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.runtime_data.context_windows == {MODELS[0]: 4096}
    assert config_entry.runtime_data.server_kind == kind
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


async def test_lm_studio_tells_the_window_it_loaded_the_model_with(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """LM Studio loads a model on demand, with a context of its own choosing.

    Its list tells that context only for a loaded model (its
    max_context_length is the model's ceiling): at setup nothing is loaded,
    and once the probe has loaded the agent's model, its window is read.
    """
    llm_server.lm_studio = [
        {
            "id": MODELS[0],
            "type": "llm",
            "state": "not-loaded",
            "max_context_length": 131072,
        },
        {"id": "text-embedding-nomic", "type": "embeddings", "state": "not-loaded"},
    ]
    llm_server.lm_studio_load_context = 16384

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.server_kind == "lm_studio"
    # Asked at setup, when nothing was loaded, and again after the probe.
    lists = [r for r in llm_server.requests if r.path == "/api/v0/models"]
    assert len(lists) == 2
    assert config_entry.runtime_data.context_windows == {MODELS[0]: 16384}
    agent = next(iter(config_entry.subentries.values()))
    assert config_entry.runtime_data.context_window(agent.data) == (16384, "server")


async def test_litellm_tells_each_models_input_limit(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """LiteLLM's /model/info knows the window of each model it routes to."""
    llm_server.litellm = [
        {"model_name": MODELS[0], "model_info": {"max_input_tokens": 128000}},
        # A second deployment under the same name, with less room.
        {"model_name": MODELS[0], "model_info": {"max_input_tokens": 32000}},
        {"model_name": MODELS[1], "model_info": {"max_input_tokens": None}},
        {"model_name": "odd", "model_info": "unknown"},
    ]

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.server_kind == "litellm"
    assert config_entry.runtime_data.context_windows == {MODELS[0]: 32000}


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


@pytest.mark.parametrize(
    ("show", "running", "window"),
    [
        # A Modelfile's num_ctx is what Ollama serves the model with.
        (ollama_show('num_ctx 16384\nstop "<|im_end|>"'), [], 16384),
        # Without one, a loaded model shows the context it was given...
        (
            ollama_show('stop "<|im_end|>"'),
            [{"name": MODELS[0], "model": MODELS[0], "context_length": 8192}],
            8192,
        ),
        # ...and one not loaded gets Ollama's default, 4096 on small machines,
        (ollama_show(), [{"name": "other:1b", "context_length": 2048}], 4096),
        # but never more than the model itself can read.
        (ollama_show(context_length=2048), [], 2048),
        # So does one whose process list cannot be read,
        (ollama_show(), None, 4096),
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


async def test_nothing_reported_leaves_every_size_unknown(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A server that tells no size (vLLM, OpenAI) leaves Auto to the names."""
    llm_server.model_fields = {MODELS[0]: {"max_model_len": 4096}}

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.runtime_data.model_sizes == {}
    assert [r.path for r in llm_server.requests] == ["/v1/models"]


@pytest.mark.parametrize("props", [{"n_ctx": 2048}, None])
async def test_llama_cpp_lists_each_models_size(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    props: dict[str, object] | None,
) -> None:
    """llama.cpp's n_params in a model's meta is its size, with /props or not."""
    llm_server.model_meta = {
        MODELS[0]: {"n_params": 1_543_714_304, "n_ctx_train": 32768},
        MODELS[1]: {"n_params": "3B"},
    }
    llm_server.props = props

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.runtime_data.model_sizes == {MODELS[0]: 1_543_714_304}
    # The size came with the list: no request was added for it.
    assert [r.path for r in llm_server.requests][:2] == ["/v1/models", "/props"]


@pytest.mark.parametrize(
    ("show", "sizes"),
    [
        # model_info counts the parameters exactly,
        (
            ollama_show(parameter_count=8_190_735_360, parameter_size="8.2B"),
            {MODELS[0]: 8_190_735_360},
        ),
        # older servers only say it in details,
        (ollama_show(parameter_size="1.5B"), {MODELS[0]: 1_500_000_000}),
        # and odd answers say nothing.
        (ollama_show(parameter_count=True, parameter_size="huge"), {}),
        ({**ollama_show(), "details": "8B", "model_info": None}, {}),
        (ollama_show(), {}),
    ],
)
async def test_ollama_tells_the_agents_model_size(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    show: object,
    sizes: dict[str, int],
) -> None:
    """The /api/show answer that gives the window gives the size too."""
    llm_server.ollama = {MODELS[0]: show}

    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    assert config_entry.state is ConfigEntryState.LOADED
    assert config_entry.runtime_data.model_sizes == sizes
    shown = [r.json for r in llm_server.requests if r.path == "/api/show"]
    assert shown == [{"model": MODELS[0]}]
