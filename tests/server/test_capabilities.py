"""Local servers: what the model can do is probed, and the agent adapts."""

from typing import Any, Literal

import pytest

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_EXTRA_BODY,
    CONF_KEEP_ALIVE,
    DOMAIN,
)
from custom_components.chatterbox.server.capabilities import Capabilities

from .conftest import AGENT_ID, MODELS, ask
from .llm_server import Abilities, LLMServer, Text

ISSUE_ID = f"tools_unsupported_{AGENT_ID}"


async def _set_up(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Set the entry up and let the probe that follows finish."""
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)


@pytest.mark.parametrize(
    ("abilities", "verdict"),
    [
        (
            Abilities(),
            Capabilities(
                tools=True, tool_calls="native", streaming=True, json_schema=True
            ),
        ),
        (
            Abilities(tools="text", reasoning=True, json_schema=False),
            Capabilities(
                tools=True,
                tool_calls="text",
                streaming=True,
                reasoning=True,
                json_schema=False,
            ),
        ),
        (
            Abilities(tools="refused", streaming=False),
            Capabilities(tools=False, streaming=False, json_schema=True),
        ),
    ],
    ids=["native", "text", "refused"],
)
async def test_the_probe_tells_what_the_model_can_do(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    abilities: Abilities,
    verdict: Capabilities,
) -> None:
    """Three tiny requests find out tools, streaming, reasoning and schemas."""
    llm_server.abilities = abilities

    await _set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities == {MODELS[0]: verdict}
    assert verdict.text_tools is (abilities.tools != "native")
    # Tiny requests: at most 8 tokens each, never a turn of the script.
    assert len(llm_server.probes) == 3
    assert all(probe.json["max_tokens"] <= 8 for probe in llm_server.probes)
    assert llm_server.unscripted == []


@pytest.mark.parametrize("style", ["native", "text"])
async def test_a_call_cut_off_by_the_tiny_probe_is_let_finish(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    style: Literal["native", "text"],
) -> None:
    """llama.cpp with a fenced-JSON template: 8 tokens cut the call, 64 parse it.

    Cut off, the call comes back as content that starts like a call written as
    text; judged on that alone, the agent would put its tools in the prompt of
    a server that parses them natively.
    """
    llm_server.abilities = Abilities(tools=style, call_tokens=20)

    await _set_up(hass, config_entry)

    verdict = config_entry.runtime_data.capabilities[MODELS[0]]
    assert verdict.tool_calls == style
    tool_probes = [probe.json for probe in llm_server.probes if "tools" in probe.json]
    assert [probe["max_tokens"] for probe in tool_probes] == [8, 64]
    # The agent then offers the tools natively, or in its prompt.
    llm_server.reply(Text("Hello."))
    await ask(hass, "hello")
    assert ("tools" in llm_server.last_chat_request) is (style == "native")


async def test_a_failing_probe_does_not_block_setup(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A server that fails the probes still gets its agents; verdicts stay open."""
    llm_server.abilities = Abilities(probe_error=503)

    await _set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities == {MODELS[0]: Capabilities()}
    llm_server.reply(Text("Hello."))
    result = await ask(hass, "Hi")
    assert result.response.speech["plain"]["speech"] == "Hello."


async def test_a_model_without_tools_raises_a_repair_until_fixed(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Refused tools with an LLM API selected: a repair says how to fix it."""
    llm_server.abilities = Abilities(tools="refused")

    await _set_up(hass, config_entry)

    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID)
    assert issue is not None
    assert issue.translation_key == "tools_unsupported"
    assert issue.severity is ir.IssueSeverity.WARNING
    assert issue.translation_placeholders == {
        "agent": "Kitchen helper",
        "model": MODELS[0],
        "url": llm_server.url,
    }

    # The user starts the server with --jinja; the next start clears it.
    llm_server.abilities = Abilities()
    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is None


@pytest.mark.parametrize("agent_data", [{"model": MODELS[0]}])
async def test_a_chat_only_agent_needs_no_tools(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Without an LLM API selected, refused tools are nothing to repair."""
    llm_server.abilities = Abilities(tools="refused")

    await _set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities[MODELS[0]].tools is False
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is None


async def test_removing_the_server_withdraws_its_repairs(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A repair about an agent that no longer exists goes with it."""
    llm_server.abilities = Abilities(tools="refused")
    await _set_up(hass, config_entry)
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is not None

    assert await hass.config_entries.async_remove(config_entry.entry_id)

    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is None


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

    await _set_up(hass, config_entry)

    loads = [r.json for r in llm_server.requests if r.path == "/api/generate"]
    assert loads == [{"model": MODELS[0], "keep_alive": keep_alive}]
    # The probe's tiny requests warmed the model up too.
    assert llm_server.probes


@pytest.mark.parametrize("agent_data", [{"model": MODELS[0], CONF_KEEP_ALIVE: "1h"}])
async def test_keep_alive_goes_only_to_ollama(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Other servers never see Ollama's own API; they are warmed up by the probe."""
    await _set_up(hass, config_entry)

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

    await _set_up(hass, config_entry)

    assert f"Could not keep {MODELS[0]} loaded on Ollama" in caplog.text


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            "model": MODELS[0],
            CONF_LLM_HASS_API: [],
            CONF_EXTRA_BODY: {
                "top_k": 20,
                "min_p": 0.05,
                "chat_template_kwargs": {"enable_thinking": False},
            },
        }
    ],
)
async def test_the_extra_body_goes_with_every_request(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Fields the server understands beyond the OpenAI API reach it as set."""
    await _set_up(hass, config_entry)
    llm_server.reply(Text("Hello."))

    await ask(hass, "Hi")

    body = llm_server.last_chat_request
    assert body["top_k"] == 20
    assert body["min_p"] == 0.05
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["stream"] is True
