"""From adding a server to a first answer, on each kind of server people run.

The test server plays OpenAI (a reasoning model, an unordered list with
speech and embedding models, no context window), Ollama (its /api/show),
llama.cpp (its /props), vLLM and OpenRouter (windows in the model list). For
each: the user adds the server and picks a model, the probe finds its fields,
the user turns thinking off, and the first question is answered through
Home Assistant in the fields that server reads. The probe's requests, the
turn's fields and a summary's fields are snapshotted per kind.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from homeassistant import config_entries
from homeassistant.components import conversation
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_URL
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import entity_registry as er

from custom_components.chatterbox.const import (
    CONF_CONTEXT_WINDOW,
    CONF_MAX_TOKENS,
    CONF_THINKING,
    DOMAIN,
)
from custom_components.chatterbox.runtime import ChatterboxConfigEntry
from custom_components.chatterbox.server.client import ServerKind
from tests.helpers.common import is_summary_request
from tests.helpers.llm_server import Abilities, LLMServer, Text, ollama_show

pytestmark = pytest.mark.usefixtures("ha_core")


def _openai(server: LLMServer) -> None:
    """OpenAI: speech, image and embedding models listed beside o3-mini.

    o3-mini refuses max_tokens, any temperature but 1, and a reasoning effort
    of "none": it cannot stop thinking.
    """
    server.models = [
        "whisper-1",
        "o3-mini",
        "text-embedding-3-small",
        "gpt-4o-mini",
        "dall-e-3",
    ]
    server.abilities = Abilities(
        reasoning_model=True,
        non_chat_models=frozenset({"whisper-1", "text-embedding-3-small"}),
        thinking_levels=("low", "medium", "high"),
    )


def _ollama(server: LLMServer) -> None:
    """Ollama: qwen3 with a num_ctx of 16384 in its Modelfile, and an embedder."""
    server.api_key = None
    server.models = ["qwen3:8b", "nomic-embed-text:latest"]
    server.ollama = {
        "qwen3:8b": ollama_show("num_ctx 16384", parameter_size="8.2B", thinking=True)
    }
    server.abilities = Abilities(reasoning=True, strict_models=True)


def _llama_cpp(server: LLMServer) -> None:
    """llama.cpp: one model, its size in the list's meta, n_ctx at /props."""
    server.api_key = None
    server.models = ["Qwen3-8B-Q4_K_M.gguf"]
    server.model_meta = {"Qwen3-8B-Q4_K_M.gguf": {"n_params": 8_190_735_360}}
    server.props = {"default_generation_settings": {"n_ctx": 32768}}
    server.abilities = Abilities(reasoning=True)


def _vllm(server: LLMServer) -> None:
    """vLLM: max_model_len in the model list."""
    server.api_key = None
    server.models = ["Qwen/Qwen3-32B"]
    server.model_fields = {"Qwen/Qwen3-32B": {"max_model_len": 40960}}


def _openrouter(server: LLMServer) -> None:
    """OpenRouter: context_length and output modalities in the model list."""
    server.models = ["qwen/qwen3-235b-a22b", "openai/gpt-image-1"]
    server.model_fields = {
        "qwen/qwen3-235b-a22b": {
            "context_length": 131072,
            "architecture": {"output_modalities": ["text"]},
        },
        "openai/gpt-image-1": {"architecture": {"output_modalities": ["image"]}},
    }


@dataclass(frozen=True)
class Kind:
    """A kind of server, as a user meets it, and what Chatterbox should find."""

    prepare: Callable[[LLMServer], None]
    offered: list[str]
    model: str
    server_kind: ServerKind | None
    window: tuple[int, str]
    thinking_off: dict[str, Any]
    """The turn's fields that turn thinking off; empty where none is taken."""


KINDS = {
    "openai": Kind(
        _openai,
        ["gpt-4o-mini", "o3-mini"],
        "o3-mini",
        None,
        (8192, "default"),
        {},
    ),
    "ollama": Kind(
        _ollama,
        ["qwen3:8b"],
        "qwen3:8b",
        ServerKind.OLLAMA,
        (16384, "server"),
        {"reasoning_effort": "none"},
    ),
    "llama.cpp": Kind(
        _llama_cpp,
        ["Qwen3-8B-Q4_K_M.gguf"],
        "Qwen3-8B-Q4_K_M.gguf",
        ServerKind.LLAMA_CPP,
        (32768, "server"),
        {"chat_template_kwargs": {"enable_thinking": False}},
    ),
    "vllm": Kind(
        _vllm,
        ["Qwen/Qwen3-32B"],
        "Qwen/Qwen3-32B",
        ServerKind.VLLM,
        (40960, "server"),
        {"chat_template_kwargs": {"enable_thinking": False}},
    ),
    "openrouter": Kind(
        _openrouter,
        ["qwen/qwen3-235b-a22b"],
        "qwen/qwen3-235b-a22b",
        ServerKind.OPENROUTER,
        (131072, "server"),
        {"reasoning": {"enabled": False}},
    ),
}


async def _add_server(
    hass: HomeAssistant, server: LLMServer, model: str, offered: list[str]
) -> ChatterboxConfigEntry:
    """Add the server as the user does, pick the model, wait for the probe."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url, CONF_API_KEY: server.api_key or ""}
    )
    assert result["step_id"] == "model"
    assert result["data_schema"].schema[CONF_MODEL].config["options"] == offered
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_MODEL: model}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    entry: ChatterboxConfigEntry = result["result"]
    await hass.async_block_till_done(wait_background_tasks=True)
    return entry


async def _think_and_say_hello(
    hass: HomeAssistant, entry: ChatterboxConfigEntry, thinking: str
) -> str:
    """Set the agent's thinking as the user does, say hello; return the answer."""
    (agent,) = entry.subentries.values()
    hass.config_entries.async_update_subentry(
        entry, agent, data={**agent.data, CONF_THINKING: thinking}
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    agent_id = er.async_get(hass).async_get_entity_id(
        "conversation", DOMAIN, agent.subentry_id
    )
    result = await conversation.async_converse(
        hass, "hello", None, Context(), agent_id=agent_id, language="en"
    )
    return str(result.response.speech["plain"]["speech"])


def _turn_fields(body: dict[str, Any]) -> dict[str, Any]:
    """Return a turn's fields but its words and tools, which every kind shares."""
    return {
        key: value for key, value in body.items() if key not in ("messages", "tools")
    }


@pytest.mark.parametrize("name", list(KINDS))
async def test_from_adding_the_server_to_a_first_answer(
    hass: HomeAssistant,
    llm_server: LLMServer,
    snapshot: SnapshotAssertion,
    name: str,
) -> None:
    """The user adds the server, picks a model, turns thinking off, and asks."""
    kind = KINDS[name]
    kind.prepare(llm_server)

    entry = await _add_server(hass, llm_server, kind.model, kind.offered)

    runtime = entry.runtime_data
    (agent,) = entry.subentries.values()
    assert runtime.server_kind is kind.server_kind
    assert runtime.context_window(agent.data) == kind.window
    verdict = runtime.capabilities[kind.model]
    assert verdict.chat is True
    assert verdict.tools is True
    # The chosen model was asked for a word before the entry was made (in
    # the fields the server takes), then probed in full as it was set up.
    assert [probe.json for probe in llm_server.probes] == snapshot(name="probes")

    llm_server.reply(Text("Hello! How can I help?"))
    heard = await _think_and_say_hello(hass, entry, "off")

    assert heard == "Hello! How can I help?"
    turn = _turn_fields(llm_server.last_chat_request)
    assert turn == snapshot(name="turn")
    for field, value in kind.thinking_off.items():
        assert turn[field] == value
    if not kind.thinking_off:
        # The model refused "none" when the probe asked with it, after the
        # change: the turn leaves the field out from the start.
        (turn_request,) = llm_server.chat_requests
        assert "reasoning_effort" not in turn_request
        assert any(
            probe.json.get("reasoning_effort") == "none" for probe in llm_server.probes
        )
        verdict = entry.runtime_data.capabilities[kind.model]
        assert verdict.thinking_refused == ("reasoning_effort",)


@pytest.mark.parametrize("name", list(KINDS))
async def test_a_summary_goes_out_in_the_servers_own_fields(
    hass: HomeAssistant,
    llm_server: LLMServer,
    snapshot: SnapshotAssertion,
    name: str,
) -> None:
    """A long chat outgrows a small window: the summary asks as the turns do.

    The token limit in the server's field, thinking off in the server's own,
    no temperature where the model refuses one.
    """
    kind = KINDS[name]
    kind.prepare(llm_server)
    llm_server.responder = lambda body: (
        Text("They talked about the garden.") if is_summary_request(body) else None
    )
    entry = await _add_server(hass, llm_server, kind.model, kind.offered)
    (agent,) = entry.subentries.values()
    # A chat-only agent with a small window, thinking off.
    hass.config_entries.async_update_subentry(
        entry,
        agent,
        data={
            CONF_MODEL: kind.model,
            CONF_CONTEXT_WINDOW: 2048,
            CONF_MAX_TOKENS: 200,
            CONF_THINKING: "off",
        },
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    agent_id = er.async_get(hass).async_get_entity_id(
        "conversation", DOMAIN, agent.subentry_id
    )

    for turn in range(12):
        llm_server.reply(Text(f"Noted, part {turn}."))
        await conversation.async_converse(
            hass,
            f"Part {turn} of my garden plan: " + "roses and tulips " * 40,
            "garden",
            Context(),
            agent_id=agent_id,
            language="en",
        )

    summaries = [body for body in llm_server.chat_requests if is_summary_request(body)]
    assert summaries
    assert _turn_fields(summaries[0]) == snapshot(name="summary")


async def test_an_ollama_model_that_does_not_think_is_asked_nothing_of_it(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Ollama says llama3.2 does not think: a level set for it is not sent.

    Ollama would refuse it ("does not support thinking"); the turn goes out
    as if the option were the server's default, and is answered at once.
    """
    llm_server.api_key = None
    llm_server.models = ["llama3.2:3b"]
    llm_server.ollama = {"llama3.2:3b": ollama_show(parameter_size="3.2B")}
    entry = await _add_server(hass, llm_server, "llama3.2:3b", ["llama3.2:3b"])
    assert entry.runtime_data.server_kind is ServerKind.OLLAMA
    assert entry.runtime_data.thinks == {"llama3.2:3b": False}

    llm_server.reply(Text("Hi there."))
    heard = await _think_and_say_hello(hass, entry, "low")

    assert heard == "Hi there."
    (turn,) = llm_server.chat_requests
    assert "reasoning_effort" not in turn
    # Nor did the probe ask with it: nothing was refused on the way.
    assert all("reasoning_effort" not in probe.json for probe in llm_server.probes)
