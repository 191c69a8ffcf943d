"""What most tests share: the test entry and its agent, speaking to it, its requests."""

import json
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.conversation.trace import async_get_traces
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import Context, HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import DOMAIN, SUBENTRY_CONVERSATION

API_KEY = "sk-test-0123456789abcdef"
MODELS = ("qwen3:8b", "llama3.2:3b")
AGENT_ID = "agent0subentry0000000000001"
AGENT_ENTITY_ID = "conversation.kitchen_helper"
KITCHEN_LIGHT = "light.kitchen_light"


def server_entry(
    url: str, agent_data: dict[str, object], **kwargs: Any
) -> MockConfigEntry:
    """Build the entry of a server at url, with the kitchen helper agent."""
    return MockConfigEntry(
        domain=DOMAIN,
        title="127.0.0.1",
        data={CONF_URL: url, CONF_API_KEY: API_KEY},
        subentries_data=[
            ConfigSubentryData(
                subentry_type=SUBENTRY_CONVERSATION,
                subentry_id=AGENT_ID,
                title="Kitchen helper",
                data=agent_data,
                unique_id=None,
            )
        ],
        **kwargs,
    )


async def set_up(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Set the entry up and let the capability probe that follows finish."""
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)


async def ask(
    hass: HomeAssistant,
    text: str,
    conversation_id: str | None = None,
    language: str = "en",
    context: Context | None = None,
) -> conversation.ConversationResult:
    """Say something to the agent, in a task of its own as each pipeline run is.

    HA 2026.10 leaves a failed turn's chat log set in the context of its task.
    The context says who speaks: nobody signed in unless given.
    """
    return await hass.async_create_task(
        conversation.async_converse(
            hass,
            text,
            conversation_id,
            context or Context(),
            agent_id=AGENT_ENTITY_ID,
            language=language,
        )
    )


def tool_result(content: str) -> Any:
    """Decode a tool message's content: the result alone, notes come after it."""
    return json.loads(content)


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the tool results a request carries, with their content decoded."""
    return [
        {**message, "content": tool_result(message["content"])}
        for message in request["messages"]
        if message["role"] == "tool"
    ]


def assert_every_tool_call_answered(request: dict[str, Any]) -> None:
    """Check the history is one a strict server accepts."""
    called = [
        call["id"]
        for message in request["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or ()
    ]
    answered = [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]
    assert called == answered


def is_summary_request(body: dict[str, Any]) -> bool:
    """Tell the side request that summarizes dropped history."""
    return "running summary" in body["messages"][0]["content"]


SENSOR_PREFIX = "sensor.kitchen_helper_"


def sensor_value(hass: HomeAssistant, key: str) -> float:
    """Return a usage sensor's state as a number."""
    state = hass.states.get(SENSOR_PREFIX + key)
    assert state is not None, key
    return float(state.state)


def traced(key: str) -> list[Any]:
    """Return what the last turn's Assist debug trace holds under key."""
    trace = async_get_traces()[-1].as_dict()
    return [
        event["data"][key] for event in trace["events"] if key in event.get("data", {})
    ]
