"""The probe: what a model on a server can do, found with a few tiny requests."""

from typing import Literal

import httpx
import openai
import pytest

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir, llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_MAX_TOKENS,
    CONF_TEMPERATURE,
    CONF_THINKING,
    DOMAIN,
)
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
                chat=True,
                tools=True,
                tool_calls="native",
                streaming=True,
                json_schema=True,
            ),
        ),
        (
            Abilities(tools="text", reasoning=True, json_schema=False),
            Capabilities(
                chat=True,
                tools=True,
                tool_calls="text",
                streaming=True,
                reasoning=True,
                json_schema=False,
            ),
        ),
        (
            Abilities(tools="refused", streaming=False),
            Capabilities(chat=True, tools=False, streaming=False, json_schema=True),
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
    """Three tiny requests find out tools, streaming, reasoning and schemas.

    A server that does not stream is asked once more, without streaming, to
    tell whether the model chats at all.
    """
    llm_server.abilities = abilities

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities == {MODELS[0]: verdict}
    assert verdict.text_tools is (abilities.tools != "native")
    # Tiny requests: at most 8 tokens each, never a turn of the script.
    assert len(llm_server.probes) == 3 + (not abilities.streaming)
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


@pytest.mark.parametrize(
    "agent_data",
    [{CONF_MODEL: "text-embedding-3-small", CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]}],
)
async def test_a_model_that_does_not_chat_is_told_apart(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """An agent set to an embedding model: OpenAI answers 404 to chat with it.

    The probe says it does not chat, and asks nothing more of it.
    """
    llm_server.abilities = Abilities(
        non_chat_models=frozenset({"text-embedding-3-small"})
    )

    await set_up(hass, config_entry)

    verdict = config_entry.runtime_data.capabilities["text-embedding-3-small"]
    assert verdict == Capabilities(chat=False, streaming=False)
    assert [probe.json.get("stream", False) for probe in llm_server.probes] == [
        True,
        False,
    ]


REASONING_AGENT = {
    CONF_MODEL: MODELS[0],
    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
    CONF_TEMPERATURE: 0.7,
    CONF_MAX_TOKENS: 300,
}


@pytest.mark.parametrize("agent_data", [REASONING_AGENT])
async def test_a_reasoning_model_is_asked_in_the_fields_it_takes(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """User adds OpenAI with a reasoning model, which refuses max_tokens and 0.7.

    The first probe learns both refusals and asks again; tools are not taken
    for refused (no repair sends the user to llama.cpp's --jinja), and the
    first turn asks with max_completion_tokens and the model's own
    temperature, and is answered.
    """
    llm_server.abilities = Abilities(reasoning_model=True)

    await set_up(hass, config_entry)

    assert config_entry.runtime_data.capabilities == {
        MODELS[0]: Capabilities(
            chat=True,
            tools=True,
            tool_calls="native",
            streaming=True,
            json_schema=True,
            limit_field="max_completion_tokens",
            sampling=False,
        )
    }
    first, *rest = [probe.json for probe in llm_server.probes]
    assert first["max_tokens"] == 8
    assert first["temperature"] == 0.5
    # Refused twice, once a field; then streamed, the tools, the schema.
    assert len(rest) == 4
    assert all(
        "max_tokens" not in body and "temperature" not in body for body in rest[1:]
    )
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_ID) is None

    llm_server.reply(Text("Hello."))
    result = await ask(hass, "hello")

    assert result.response.speech["plain"]["speech"] == "Hello."
    turn = llm_server.last_chat_request
    assert turn["max_completion_tokens"] == 300
    assert "max_tokens" not in turn
    assert "temperature" not in turn
    assert "tools" in turn


@pytest.mark.parametrize("agent_data", [REASONING_AGENT])
async def test_a_field_refused_in_a_turn_is_learned_for_the_next(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The probe failed; the first turn's fields are refused, one at a time.

    The turn is asked again in the fields the server takes and answered; the
    next turn asks in them at once.
    """
    llm_server.abilities = Abilities(probe_error=503, reasoning_model=True)
    await set_up(hass, config_entry)

    llm_server.reply(Text("Hello."))
    result = await ask(hass, "hello")

    assert result.response.speech["plain"]["speech"] == "Hello."
    verdict = config_entry.runtime_data.capabilities[MODELS[0]]
    assert (verdict.limit_field, verdict.sampling) == ("max_completion_tokens", False)
    before = len(llm_server.chat_requests)
    llm_server.reply(Text("Hi again."))
    second = await ask(hass, "hello again")
    assert second.response.speech["plain"]["speech"] == "Hi again."
    assert len(llm_server.chat_requests) == before + 1


def _refusal(message: str, param: str | None = None) -> openai.BadRequestError:
    """Build a 400 as the SDK raises it, with OpenAI's error body."""
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    body = {"message": message, "type": "invalid_request_error", "param": param}
    return openai.BadRequestError(
        message, response=httpx.Response(400, request=request), body=body
    )


@pytest.mark.parametrize(
    ("refusal", "fields"),
    [
        # OpenAI names the field in `param`, and in its message.
        (
            _refusal("Unsupported parameter: 'max_tokens'.", "max_tokens"),
            ("max_completion_tokens", True),
        ),
        # Another server only in its message.
        (_refusal("`temperature` must be 1 for this model"), ("max_tokens", False)),
        # A refusal of tools names no field of these: nothing is learned.
        (_refusal("tools param requires --jinja flag"), None),
    ],
    ids=["param", "message", "none"],
)
def test_a_refused_field_is_learned_once(
    refusal: openai.BadRequestError, fields: tuple[str, bool] | None
) -> None:
    """A 400 that names the token limit or a sampling field teaches the field."""
    learned = Capabilities().learned(refusal)

    if fields is None:
        assert learned is None
        return
    assert learned is not None
    assert (learned.limit_field, learned.sampling) == fields
    # Learned once: the same refusal teaches nothing more.
    assert learned.learned(refusal) is None
    request = {"model": "m", "max_tokens": 5, "temperature": 0.2, "top_p": 0.9}
    fitted = learned.fitted(request)
    assert (fields[0] in fitted, "temperature" in fitted) == (True, fields[1])


@pytest.mark.parametrize(
    ("refusal", "refused"),
    [
        # OpenAI's o-series asked to stop thinking.
        (
            _refusal(
                "Unsupported value: 'reasoning_effort' does not support 'none'.",
                "reasoning_effort",
            ),
            "reasoning_effort",
        ),
        # A proxy that knows no such field.
        (
            _refusal("Unrecognized request argument supplied: chat_template_kwargs"),
            "chat_template_kwargs",
        ),
        # Ollama, a level asked of a model that cannot think: no field named.
        (_refusal('"llama3.2" does not support thinking'), "reasoning_effort"),
        # OpenRouter, "off" asked of a model that must reason.
        (
            _refusal("Reasoning is mandatory for this endpoint and cannot be disabled"),
            "reasoning",
        ),
    ],
    ids=["openai", "proxy", "ollama", "openrouter"],
)
def test_a_refused_thinking_field_is_left_out_alone(
    refusal: openai.BadRequestError, refused: str
) -> None:
    """The thinking field the server refused is dropped, and only that one.

    The user's own extra body keeps everything else, so that a refusal of
    reasoning_effort never takes the user's chat_template_kwargs with it.
    """
    learned = Capabilities().learned(refusal)

    assert learned is not None
    assert learned.thinking_refused == (refused,)
    assert learned.learned(refusal) is None
    request = {
        "model": "m",
        "extra_body": {
            "reasoning_effort": "none",
            "chat_template_kwargs": {"enable_thinking": False},
            "reasoning": {"enabled": False},
            "top_k": 20,
        },
    }
    kept = learned.fitted(request)["extra_body"]
    assert refused not in kept
    assert len(kept) == 3
    assert kept["top_k"] == 20


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            CONF_MODEL: MODELS[0],
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
            CONF_THINKING: "off",
        }
    ],
)
async def test_thinking_fields_refused_without_a_name_are_found_by_the_probe(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """llama.cpp behind a strict proxy: a bare 400 for chat_template_kwargs.

    The probe asks with the agent's thinking fields; refused with a message
    that names nothing, it asks again without them, and the turns leave them
    out from the start: the user hears an answer, not an error.
    """
    llm_server.props = {"n_ctx": 8192}
    llm_server.abilities = Abilities(refuses_template_kwargs=True)

    await set_up(hass, config_entry)

    verdict = config_entry.runtime_data.capabilities[MODELS[0]]
    assert verdict.thinking_refused == ("chat_template_kwargs",)
    assert verdict.streaming is True
    llm_server.reply(Text("Hello."))
    result = await ask(hass, "hello")
    assert result.response.speech["plain"]["speech"] == "Hello."
    (turn,) = llm_server.chat_requests
    assert "chat_template_kwargs" not in turn
