"""Error results: every way a call fails reaches the model in one shape."""

import pytest

from homeassistant.core import HomeAssistant

from tests.helpers.common import ask, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls


@pytest.mark.usefixtures("loaded_entry")
async def test_every_failed_call_reads_the_same_way(
    hass: HomeAssistant, llm_server: LLMServer, kitchen_light: str
) -> None:
    """A device that is not there, a tool that is not, arguments that cannot be read.

    Each result is in the shape Home Assistant's chat log gives its own
    errors: marked as an error, the kind of error and a sentence about it. The
    model reads all three, and answers.
    """
    llm_server.reply(
        ToolCalls(
            [
                Call("intent__HassTurnOn", {"name": "Garage door"}),
                Call("intent__HassHoroscope", {"sign": "Leo"}),
                Call("intent__HassTurnOn", '{"name": "Kitchen light",'),
            ],
            same_chunk=True,
        ),
        Text("I could not do any of that."),
    )

    result = await ask(hass, "Open the garage, read my horoscope, light the kitchen")

    assert result.response.speech["plain"]["speech"] == "I could not do any of that."
    results = [
        message["content"] for message in tool_messages(llm_server.last_chat_request)
    ]
    assert [failed["data"]["error"] for failed in results] == [
        "MatchFailedError",
        "UnknownTool",
        "InvalidArguments",
    ]
    for failed in results:
        assert failed["error"] is True
        assert set(failed["data"]) == {"error", "error_text"}
        assert failed["data"]["error_text"]
    assert (
        "There is no tool named intent__HassHoroscope"
        in results[1]["data"]["error_text"]
    )
    assert hass.states.get(kitchen_light).state == "off"
