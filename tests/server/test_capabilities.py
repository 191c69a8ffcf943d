"""The probe: what a model on a server can do, found with a few tiny requests."""

from typing import Literal

import pytest

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.server.capabilities import Capabilities
from tests.helpers.common import AGENT_ID, MODELS, ask, set_up
from tests.helpers.llm_server import Abilities, LLMServer, Text

ISSUE_ID = f"tools_unsupported_{AGENT_ID}"


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

    await set_up(hass, config_entry)

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

    await set_up(hass, config_entry)

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

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities == {MODELS[0]: Capabilities()}
    llm_server.reply(Text("Hello."))
    result = await ask(hass, "Hi")
    assert result.response.speech["plain"]["speech"] == "Hello."
