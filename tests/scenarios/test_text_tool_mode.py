"""Models that write tool calls as text: the calls still run, nothing is lost."""

import json

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_GUIDE,
    CONF_SPEECH,
    CONF_TOOL_MODE,
    DOMAIN,
    GUIDE_ON,
)
from tests.helpers.common import AGENT_ID, ask, set_up
from tests.helpers.llm_server import Abilities, LLMServer, Text

TURN_ON = {"name": "Kitchen light"}
# The same call, as the chat templates of common local models write it.
FORMATS = {
    "hermes": '<tool_call>\n{"name": "HassTurnOn", "arguments": %s}\n</tool_call>',
    "llama3": '<|python_tag|>{"name": "HassTurnOn", "parameters": %s}',
    "mistral": '[TOOL_CALLS][{"name": "HassTurnOn", "arguments": %s}]',
    "fenced": '```json\n{"name": "HassTurnOn", "arguments": %s}\n```',
    "xml": "<function=HassTurnOn>%s</function>",
    "invoke": (
        '<invoke name="HassTurnOn"><parameter name="name">Kitchen light'
        "</parameter></invoke>"
    ),
}


# An agent told to write its calls as text, whatever the server can parse.
TEXT_MODE_AGENT = pytest.mark.parametrize(
    "agent_data",
    [
        {
            "model": "qwen3:8b",
            "llm_hass_api": ["assist"],
            CONF_GUIDE: GUIDE_ON,
            CONF_TOOL_MODE: "text",
        }
    ],
)


def _written(form: str) -> str:
    """Return the call in a format, with the arguments filled in."""
    return form % json.dumps(TURN_ON) if "%s" in form else form


@pytest.mark.parametrize("piece_size", [1, 5])
@pytest.mark.parametrize("form", list(FORMATS))
async def test_a_call_written_as_text_turns_the_light_on(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    form: str,
    piece_size: int,
) -> None:
    """User asks; the model writes the call as text; the light is on; it says so."""
    llm_server.abilities = Abilities(tools="text")
    await set_up(hass, config_entry)
    llm_server.reply(
        Text(_written(FORMATS[form]), piece_size=piece_size),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    first, second = llm_server.chat_requests
    # The tools went in the prompt, not in the request.
    assert "tools" not in first
    assert "<tools>" in first["messages"][0]["content"]
    assert '"name":"HassTurnOn"' in first["messages"][0]["content"].replace(
        "intent__", ""
    )
    # The call and its result come back as text the template can render.
    assert [m["role"] for m in second["messages"][-2:]] == ["assistant", "user"]
    assert "<tool_call>" in second["messages"][-2]["content"]
    assert second["messages"][-1]["content"].startswith("<tool_response>")
    assert "Kitchen light" in second["messages"][-1]["content"]


@pytest.mark.parametrize("form", ["bare", "fenced", "hermes"])
async def test_a_call_the_server_did_not_parse_still_runs(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    form: str,
) -> None:
    """Native tools, but the call comes back as text: it runs, and is not spoken.

    Qwen2.5-Coder 0.5B writes bare JSON where the demo's template expects a
    fenced block, so llama.cpp passes it on as the answer.
    """
    await set_up(hass, config_entry)
    written = {
        "bare": '{"name": "intent__HassTurnOn", "arguments": %s}',
        "fenced": FORMATS["fenced"],
        "hermes": FORMATS["hermes"],
    }[form]
    llm_server.reply(
        Text(_written(written), piece_size=4), Text("The kitchen light is on.")
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    first, second = llm_server.chat_requests
    assert "tools" in first
    # Sent back as the native call and result it should have been.
    call, answer = second["messages"][-2:]
    assert call["tool_calls"][0]["function"]["name"] == "intent__HassTurnOn"
    assert answer["role"] == "tool"
    assert "Kitchen light" in answer["content"]


@pytest.mark.parametrize(
    "agent_data",
    [
        {
            "model": "qwen3:8b",
            "llm_hass_api": ["assist"],
            CONF_GUIDE: GUIDE_ON,
            CONF_TOOL_MODE: "text",
            CONF_SPEECH: False,
        }
    ],
)
async def test_text_that_only_looks_like_a_call_is_kept(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Text mode by choice: words about calls and unknown tools are spoken as is."""
    await set_up(hass, config_entry)
    answer = (
        'Write {"name": "x"} in braces, or <tool_call> tags. '
        '<tool_call>{"name": "OpenThePodBayDoors", "arguments": {}}</tool_call> '
        "That tool does not exist."
    )
    llm_server.reply(Text(answer, piece_size=3))

    result = await ask(hass, "How do tool calls look?")

    assert result.response.speech["plain"]["speech"] == answer
    assert len(llm_server.chat_requests) == 1


async def test_a_server_that_refuses_tools_mid_conversation(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Refused after setup: the turn goes again in text mode; a repair says why."""
    await set_up(hass, config_entry)
    llm_server.abilities = Abilities(tools="refused")
    llm_server.reply(
        Text(_written(FORMATS["hermes"])), Text("The kitchen light is on.")
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    assert hass.states.get(kitchen_light).state == "on"
    refused, *later = [
        r.json for r in llm_server.requests if r.path.endswith("/chat/completions")
    ]
    assert "tools" in refused
    assert all("tools" not in body for body in later)
    assert "refused tools" in caplog.text
    issue = ir.async_get(hass).async_get_issue(DOMAIN, f"tools_unsupported_{AGENT_ID}")
    assert issue is not None


@TEXT_MODE_AGENT
async def test_a_guess_written_before_a_call_is_not_read_back(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """The model guesses the answer, then calls: it reads back only the call.

    Small models repeat a guess they read back instead of the tool's result.
    """
    await set_up(hass, config_entry)
    llm_server.reply(
        Text("The kitchen light is already on.\n" + _written(FORMATS["hermes"])),
        Text("The kitchen light is on now."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert result.response.speech["plain"]["speech"] == "The kitchen light is on now."
    assert hass.states.get(kitchen_light).state == "on"
    call = llm_server.chat_requests[1]["messages"][-2]
    assert call["role"] == "assistant"
    assert call["content"].startswith("<tool_call>")
    assert "already on" not in json.dumps(llm_server.chat_requests[1]["messages"])


@TEXT_MODE_AGENT
async def test_a_result_the_model_makes_up_is_never_heard(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """User asks for the light; the model writes a result instead of calling.

    The made-up result is not heard. The model is told so, makes the call,
    and answers from the real result.
    """
    await set_up(hass, config_entry)
    llm_server.reply(
        Text('<tool_response>\n{"state": "on"}\n</tool_response>'),
        Text(_written(FORMATS["hermes"])),
        Text("The kitchen light is on."),
    )

    result = await ask(hass, "Turn on the kitchen light")

    assert result.response.speech["plain"]["speech"] == "The kitchen light is on."
    assert hass.states.get(kitchen_light).state == "on"
    told = llm_server.chat_requests[1]["messages"][-1]
    assert told["role"] == "user"
    assert "made up" in told["content"]
    assert '"state": "on"' not in json.dumps(llm_server.chat_requests[1]["messages"])
