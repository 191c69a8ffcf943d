"""AI Task: data from instructions, images and tools, through the same loop."""

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from homeassistant.components import ai_task
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.const import (
    CONF_IMAGE_MODEL,
    DOMAIN,
    SUBENTRY_AI_TASK,
)
from tests.helpers.common import API_KEY, MODELS
from tests.helpers.llm_server import Abilities, Call, Error, LLMServer, Text, ToolCalls

TASK_ID = "aitask0subentry000000000001"
ENTITY_ID = "ai_task.camera_describer"
# The smallest valid PNG: one transparent pixel.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


@pytest.fixture
async def task_entry(ha_core: HomeAssistant, llm_server: LLMServer) -> MockConfigEntry:
    """Build a server entry whose only subentry is an AI Task."""
    return MockConfigEntry(
        domain=DOMAIN,
        title="127.0.0.1",
        data={CONF_URL: llm_server.url, CONF_API_KEY: API_KEY},
        subentries_data=[
            ConfigSubentryData(
                subentry_type=SUBENTRY_AI_TASK,
                subentry_id=TASK_ID,
                title="Camera describer",
                data={CONF_MODEL: MODELS[0]},
                unique_id=None,
            )
        ],
    )


async def _set_up(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Add the entry and let the capability probe finish."""
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)


async def _generate(hass: HomeAssistant, **data: Any) -> Any:
    """Call the ai_task.generate_data action as an automation would."""
    response = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {"task_name": "Describe", "entity_id": ENTITY_ID, **data},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    return response["data"]


async def test_text_without_a_structure(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Plain instructions get the model's text, not filtered for speech."""
    await _set_up(hass, task_entry)
    llm_server.reply(Text("**Three** cats."))

    data = await _generate(hass, instructions="How many cats?")

    assert data == "**Three** cats."
    body = llm_server.last_chat_request
    assert "response_format" not in body
    assert "spoken aloud" not in body["messages"][0]["content"]


STRUCTURE = {
    "count": {"selector": {"number": {}}, "required": True},
    "animal": {"selector": {"text": {}}, "required": True},
}


async def test_a_structure_goes_as_a_json_schema(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """With a structure, the server is asked for JSON of that schema."""
    await _set_up(hass, task_entry)
    llm_server.reply(Text('{"count": 3, "animal": "cat"}'))

    data = await _generate(hass, instructions="Count the animals", structure=STRUCTURE)

    assert data == {"count": 3, "animal": "cat"}
    schema = llm_server.last_chat_request["response_format"]["json_schema"]
    assert schema["name"] == "Describe"
    assert set(schema["schema"]["properties"]) == {"count", "animal"}
    assert sorted(schema["schema"]["required"]) == ["animal", "count"]


async def test_a_server_without_json_schemas_gets_it_in_words(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The probe found no JSON schema support: the schema goes in the prompt."""
    llm_server.abilities = Abilities(json_schema=False)
    await _set_up(hass, task_entry)
    llm_server.reply(Text('```json\n{"count": 2, "animal": "dog"}\n```'))

    data = await _generate(hass, instructions="Count the animals", structure=STRUCTURE)

    assert data == {"count": 2, "animal": "dog"}
    body = llm_server.last_chat_request
    assert "response_format" not in body
    assert "matches this JSON schema" in body["messages"][0]["content"]


async def test_a_refused_schema_is_asked_for_in_words(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Refused at run time (after the probe): the same request, schema in words."""
    await _set_up(hass, task_entry)
    llm_server.abilities = Abilities(json_schema=False)
    llm_server.reply(Text('{"count": 1, "animal": "owl"}'))

    data = await _generate(hass, instructions="Count the animals", structure=STRUCTURE)

    assert data == {"count": 1, "animal": "owl"}
    refused, accepted = llm_server.chat_requests
    assert "response_format" in refused
    assert "response_format" not in accepted


async def test_an_answer_that_misses_the_structure_gets_one_retry(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The model is told what was wrong, once; then it must fit or fail."""
    await _set_up(hass, task_entry)
    llm_server.reply(Text('{"count": "many"}'), Text('{"count": 4, "animal": "bee"}'))

    data = await _generate(hass, instructions="Count the animals", structure=STRUCTURE)

    assert data == {"count": 4, "animal": "bee"}
    retry = llm_server.last_chat_request["messages"][-1]
    assert retry["role"] == "user"
    assert "does not match the requested structure" in retry["content"]

    llm_server.reply(Text("not json"), Text("still not json"))
    with pytest.raises(HomeAssistantError, match="did not match the requested"):
        await _generate(hass, instructions="Count again", structure=STRUCTURE)


async def test_a_task_with_a_tool(
    hass: HomeAssistant,
    task_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """A task given the Assist API calls its tools through the same loop."""
    await _set_up(hass, task_entry)
    llm_server.reply(
        ToolCalls([Call("GetLiveContext", {})]), Text("The kitchen light is off.")
    )
    api = await llm.async_get_api(
        hass,
        llm.LLM_API_ASSIST,
        llm.LLMContext(
            platform="test",
            context=None,
            language="en",
            assistant="conversation",
            device_id=None,
        ),
    )

    result = await ai_task.async_generate_data(
        hass,
        task_name="Report",
        entity_id=ENTITY_ID,
        instructions="Is the kitchen light on?",
        llm_api=api.api,
    )

    assert result.data == "The kitchen light is off."
    first, second = llm_server.chat_requests
    assert any("GetLiveContext" in t["function"]["name"] for t in first["tools"])
    # The tool ran in Home Assistant and its answer reached the model. (The
    # light is exposed to Assist, not to AI Tasks, and the answer says so.)
    result_message = second["messages"][-1]
    assert result_message["role"] == "tool"
    assert "expose entities" in result_message["content"]


async def test_an_image_attachment_goes_as_an_image_part(
    hass: HomeAssistant,
    task_entry: MockConfigEntry,
    llm_server: LLMServer,
    tmp_path: Path,
) -> None:
    """A snapshot reaches the model as an image, with the instructions."""
    (tmp_path / "snap.png").write_bytes(PIXEL)
    hass.config.media_dirs = {"local": str(tmp_path)}
    assert await async_setup_component(hass, "media_source", {})
    await _set_up(hass, task_entry)
    llm_server.reply(Text("An empty room."))

    data = await _generate(
        hass,
        instructions="What do you see?",
        attachments=[
            {
                "media_content_id": "media-source://media_source/local/snap.png",
                "media_content_type": "image/png",
            }
        ],
    )

    assert data == "An empty room."
    content = llm_server.last_chat_request["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "What do you see?"}
    url = content[1]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(PIXEL).decode()
    assert json.dumps(content).count('"type": "image_url"') == 1


async def test_the_entity_offers_data_and_attachments(
    hass: HomeAssistant, task_entry: MockConfigEntry
) -> None:
    """The AI Task entity says what it supports."""
    await _set_up(hass, task_entry)

    state = hass.states.get(ENTITY_ID)

    assert state is not None
    features = ai_task.AITaskEntityFeature(state.attributes["supported_features"])
    assert ai_task.AITaskEntityFeature.GENERATE_DATA in features
    assert ai_task.AITaskEntityFeature.SUPPORT_ATTACHMENTS in features


async def test_a_failed_task_is_reported_in_home_assistants_language(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """With Home Assistant in German, a server fault is reported in German."""
    await _set_up(hass, task_entry)
    hass.config.language = "de"
    llm_server.reply(Error(500, "CUDA error: out of memory"))

    with pytest.raises(HomeAssistantError, match="hatte ein Problem") as raised:
        await _generate(hass, instructions="Describe the garden")

    assert raised.value.translation_key == "server_error"


def _with_image_model(entry: MockConfigEntry, model: str) -> MockConfigEntry:
    """Give the entry's AI Task an image model, as its settings would."""
    (task,) = entry.subentries.values()
    data = {**task.data, CONF_IMAGE_MODEL: model}
    return MockConfigEntry(
        domain=DOMAIN,
        title=entry.title,
        data=entry.data,
        subentries_data=[
            ConfigSubentryData(
                subentry_type=SUBENTRY_AI_TASK,
                subentry_id=TASK_ID,
                title=task.title,
                data=data,
                unique_id=None,
            )
        ],
    )


async def _make_image(hass: HomeAssistant) -> dict[str, Any]:
    """Call ai_task.generate_image as an automation would."""
    response = await hass.services.async_call(
        "ai_task",
        "generate_image",
        {
            "task_name": "Wallpaper",
            "entity_id": ENTITY_ID,
            "instructions": "A calm lake at dawn",
        },
        blocking=True,
        return_response=True,
    )
    assert response is not None
    return dict(response)


@pytest.mark.parametrize("refuses_format", [False, True])
async def test_an_image_from_the_servers_images_endpoint(
    hass: HomeAssistant,
    task_entry: MockConfigEntry,
    llm_server: LLMServer,
    refuses_format: bool,  # noqa: FBT001
) -> None:
    """The AI Task has an image model: the automation gets the image.

    The probe found the endpoint without making an image; gpt-image models,
    which refuse to be asked for base64, are asked again without it.
    """
    llm_server.images = {"gpt-image-1": PIXEL}
    llm_server.images_refuse_format = refuses_format
    assert await async_setup_component(hass, "ai_task", {})
    await _set_up(hass, _with_image_model(task_entry, "gpt-image-1"))
    state = hass.states.get(ENTITY_ID)
    assert state is not None
    features = state.attributes["supported_features"]
    assert features & ai_task.AITaskEntityFeature.GENERATE_IMAGE

    result = await _make_image(hass)

    assert result["mime_type"] == "image/png"
    assert result["model"] == "gpt-image-1"
    assert result["revised_prompt"] == "A calm lake."
    assert result["url"]
    made = [body for body in llm_server.image_requests if body.get("n") == 1]
    assert made[-1]["prompt"] == "A calm lake at dawn"
    assert ("response_format" in made[-1]) is not refuses_format


async def test_no_images_endpoint_no_image_feature(
    hass: HomeAssistant, task_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """A server without the endpoint: the task does not offer images."""
    await _set_up(hass, _with_image_model(task_entry, "dall-e-3"))

    state = hass.states.get(ENTITY_ID)
    assert state is not None
    features = state.attributes["supported_features"]
    assert not features & ai_task.AITaskEntityFeature.GENERATE_IMAGE


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (b"<html>not an image</html>", "made no image with gpt-image-1"),
        # The endpoint gone after start-up: the model is not there any more.
        (None, "doesn't have the model gpt-image-1"),
    ],
)
async def test_an_image_the_server_cannot_make_is_told(
    hass: HomeAssistant,
    task_entry: MockConfigEntry,
    llm_server: LLMServer,
    image: bytes | None,
    message: str,
) -> None:
    """Bytes that are no image, or an endpoint gone: a clear error."""
    llm_server.images = {"gpt-image-1": image} if image else {}
    assert await async_setup_component(hass, "ai_task", {})
    await _set_up(hass, _with_image_model(task_entry, "gpt-image-1"))
    if image is None:
        llm_server.images = None

    with pytest.raises(HomeAssistantError, match=message):
        await _make_image(hass)
