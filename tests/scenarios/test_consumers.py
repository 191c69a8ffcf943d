"""Reaching a Chatterbox agent the ways users do: an action, Assist, the REST API.

Every story goes through a real Home Assistant, its real front doors, and the
test server over real HTTP.
"""

from dataclasses import dataclass
import json
from pathlib import Path
import time
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    MockHAClientWebSocket,
    WebSocketGenerator,
)

import custom_components.chatterbox
from tests.helpers.common import AGENT_ENTITY_ID
from tests.helpers.llm_server import Call, Error, LLMServer, Text, ToolCalls

EN_JSON = Path(custom_components.chatterbox.__file__).parent / "translations/en.json"

SHOPPING_LIST = "What is on the shopping list?"
SHOPPING_ANSWER = "Bread, milk and eggs."
MILK = "Is milk on it?"
MILK_ANSWER = "Yes, milk is on the list."
# Long enough to reach Assist in many pieces: the test server sends four
# characters a chunk.
RECIPE = (
    "Whisk two eggs with a cup of milk, stir in a cup of flour and a pinch "
    "of salt, then fry thin pancakes in a hot buttered pan."
)


def speech(result: dict[str, Any]) -> str:
    """Return what the user hears from a conversation result."""
    return result["response"]["speech"]["plain"]["speech"]


def history(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the messages of a chat request after the system prompt."""
    system, *rest = request["messages"]
    assert system["role"] == "system"
    return rest


def user(text: str) -> dict[str, str]:
    """Return a user message as the wire carries it."""
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    """Return an assistant answer as the wire carries it."""
    return {"role": "assistant", "content": text}


def translated(key: str) -> str:
    """Return the sentence Home Assistant speaks for one of our exceptions.

    Home Assistant strips the final period of exception messages
    (homeassistant/helpers/translation.py, async_get_exception_message).
    """
    messages = json.loads(EN_JSON.read_text(encoding="utf-8"))["exceptions"]
    return messages[key]["message"].rstrip(".")


async def process(
    hass: HomeAssistant, text: str, conversation_id: str | None = None
) -> dict[str, Any]:
    """Call the conversation.process action and return its response.

    The call runs in a task of its own, as scripts, automations and the
    websocket API run every action. On Home Assistant 2026.10 the chat session
    and chat log of a failed turn stay set in the caller's context, so a caller
    that converses again from the same task reuses a stale chat log.
    """
    data = {"agent_id": AGENT_ENTITY_ID, "text": text, "language": "en"}
    if conversation_id is not None:
        data["conversation_id"] = conversation_id
    response = await hass.async_create_task(
        hass.services.async_call(
            conversation.DOMAIN,
            "process",
            data,
            blocking=True,
            return_response=True,
        )
    )
    assert response is not None
    return response


async def test_action_keeps_the_conversation(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The action asks twice in one conversation; the model sees the first turn."""
    llm_server.reply(Text(SHOPPING_ANSWER), Text(MILK_ANSWER))

    first = await process(hass, SHOPPING_LIST)

    assert first["response"]["response_type"] == "action_done"
    assert speech(first) == SHOPPING_ANSWER
    conversation_id = first["conversation_id"]
    assert conversation_id

    second = await process(hass, MILK, conversation_id)

    assert second["conversation_id"] == conversation_id
    assert speech(second) == MILK_ANSWER
    assert history(llm_server.chat_requests[1]) == [
        user(SHOPPING_LIST),
        assistant(SHOPPING_ANSWER),
        user(MILK),
    ]


async def test_script_turns_on_the_kitchen_light(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A script asks the agent for light; the model calls HassTurnOn; it is on."""
    assert await async_setup_component(
        hass,
        "script",
        {
            "script": {
                "kitchen_lights_up": {
                    "sequence": [
                        {
                            "action": "conversation.process",
                            "data": {
                                "agent_id": AGENT_ENTITY_ID,
                                "text": "Turn on the kitchen light",
                            },
                            "response_variable": "answer",
                        },
                        {"stop": "Asked", "response_variable": "answer"},
                    ]
                }
            }
        },
    )
    llm_server.reply(
        ToolCalls([Call("intent__HassTurnOn", {"name": "Kitchen light"})]),
        Text("The kitchen light is on."),
    )

    answer = await hass.services.async_call(
        "script", "kitchen_lights_up", blocking=True, return_response=True
    )

    assert hass.states.get(kitchen_light).state == "on"
    assert answer is not None
    assert speech(answer) == "The kitchen light is on."
    tool_message = llm_server.last_chat_request["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "Kitchen light" in tool_message["content"]


async def test_server_error_through_the_action(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The server fails a turn; the user hears why; the conversation goes on."""
    llm_server.reply(Text(SHOPPING_ANSWER), Error(500), Text(MILK_ANSWER))
    first = await process(hass, SHOPPING_LIST)
    conversation_id = first["conversation_id"]

    failed = await process(hass, MILK, conversation_id)

    assert failed["response"]["response_type"] == "error"
    heard = translated("server_error")
    assert speech(failed) == heard
    assert failed["conversation_id"] == conversation_id

    again = await process(hass, "And eggs?", conversation_id)

    assert again["response"]["response_type"] == "action_done"
    assert speech(again) == MILK_ANSWER
    assert again["conversation_id"] == conversation_id
    # The request failed once and was not retried.
    assert len(llm_server.chat_requests) == 3
    sent = history(llm_server.chat_requests[2])
    assert sent[:2] == [user(SHOPPING_LIST), assistant(SHOPPING_ANSWER)]
    assert sent[-1] == user("And eggs?")
    # Home Assistant 2026.10 forgets a failed turn; 2026.11 keeps it, with the
    # error as the answer. Either way no two user messages follow each other.
    assert sent[2:-1] in ([], [user(MILK), assistant(f"Error: {heard}")])


@pytest.fixture
async def assist(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """Set up Assist pipelines next to the loaded agent."""
    assert await async_setup_component(hass, "assist_pipeline", {})
    await hass.async_block_till_done()


async def create_pipeline(client: MockHAClientWebSocket) -> str:
    """Create a text-only pipeline that talks to our agent, as the UI does."""
    await client.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/create",
            "name": "Kitchen helper",
            "language": "en",
            "conversation_engine": AGENT_ENTITY_ID,
            "conversation_language": MATCH_ALL,
            "prefer_local_intents": False,
            "stt_engine": None,
            "stt_language": None,
            "tts_engine": None,
            "tts_language": None,
            "tts_voice": None,
            "wake_word_entity": None,
            "wake_word_id": None,
        }
    )
    created = await client.receive_json()
    assert created["success"], created
    return created["result"]["id"]


@dataclass(frozen=True)
class Event:
    """One event of a pipeline run, and when the client received it."""

    type: str
    data: dict[str, Any]
    received: float


async def run_intent(
    client: MockHAClientWebSocket,
    pipeline_id: str,
    text: str,
    conversation_id: str | None = None,
) -> list[Event]:
    """Type text into Assist and return the events of the run, in order."""
    await client.send_json_auto_id(
        {
            "type": "assist_pipeline/run",
            "pipeline": pipeline_id,
            "start_stage": "intent",
            "end_stage": "intent",
            "input": {"text": text},
            "conversation_id": conversation_id,
        }
    )
    accepted = await client.receive_json()
    assert accepted["success"], accepted
    events: list[Event] = []
    while not events or events[-1].type != "run-end":
        event = (await client.receive_json())["event"]
        events.append(Event(event["type"], event["data"] or {}, time.monotonic()))
    return events


async def test_assist_streams_the_answer(
    hass: HomeAssistant,
    assist: None,
    llm_server: LLMServer,
    hass_ws_client: WebSocketGenerator,
) -> None:
    """Assist shows the answer as the model writes it, then the whole answer."""
    client = await hass_ws_client(hass)
    pipeline_id = await create_pipeline(client)
    llm_server.reply(Text(RECIPE, chunk_delay=0.01))

    events = await run_intent(client, pipeline_id, "How do I make pancakes?")

    run_start, intent_start, *progress, intent_end, run_end = events
    assert (run_start.type, intent_start.type) == ("run-start", "intent-start")
    assert (intent_end.type, run_end.type) == ("intent-end", "run-end")
    assert intent_start.data["engine"] == AGENT_ENTITY_ID
    assert {event.type for event in progress} == {"intent-progress"}
    deltas = [event.data["chat_log_delta"] for event in progress]
    assert deltas[0] == {"role": "assistant"}
    pieces = [delta["content"] for delta in deltas[1:]]
    assert len(pieces) > 10
    assert "".join(pieces) == RECIPE
    # The first words reached the client while the model was still writing:
    # the rest took at least 30 more chunks, 10 ms apart.
    assert intent_end.received - progress[1].received > 0.1

    assert intent_end.data["processed_locally"] is False
    output = intent_end.data["intent_output"]
    assert speech(output) == RECIPE
    assert output["conversation_id"] == run_start.data["conversation_id"]


async def test_assist_keeps_the_conversation(
    hass: HomeAssistant,
    assist: None,
    llm_server: LLMServer,
    hass_ws_client: WebSocketGenerator,
) -> None:
    """A second run in the same conversation sends the first turn to the model."""
    client = await hass_ws_client(hass)
    pipeline_id = await create_pipeline(client)
    llm_server.reply(Text(SHOPPING_ANSWER), Text(MILK_ANSWER))
    first = await run_intent(client, pipeline_id, SHOPPING_LIST)
    conversation_id = first[-2].data["intent_output"]["conversation_id"]

    second = await run_intent(client, pipeline_id, MILK, conversation_id)

    assert second[0].data["conversation_id"] == conversation_id
    assert speech(second[-2].data["intent_output"]) == MILK_ANSWER
    assert history(llm_server.chat_requests[1]) == [
        user(SHOPPING_LIST),
        assistant(SHOPPING_ANSWER),
        user(MILK),
    ]


async def test_rest_api_keeps_the_conversation(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    hass_client: ClientSessionGenerator,
) -> None:
    """An app posts twice to /api/conversation/process in one conversation."""
    client = await hass_client()
    llm_server.reply(Text(SHOPPING_ANSWER), Text(MILK_ANSWER))

    response = await client.post(
        "/api/conversation/process",
        json={"agent_id": AGENT_ENTITY_ID, "text": SHOPPING_LIST, "language": "en"},
    )

    assert response.status == 200
    first = await response.json()
    assert speech(first) == SHOPPING_ANSWER
    conversation_id = first["conversation_id"]

    response = await client.post(
        "/api/conversation/process",
        json={
            "agent_id": AGENT_ENTITY_ID,
            "text": MILK,
            "language": "en",
            "conversation_id": conversation_id,
        },
    )

    assert response.status == 200
    second = await response.json()
    assert speech(second) == MILK_ANSWER
    assert second["conversation_id"] == conversation_id
    assert history(llm_server.chat_requests[1]) == [
        user(SHOPPING_LIST),
        assistant(SHOPPING_ANSWER),
        user(MILK),
    ]
