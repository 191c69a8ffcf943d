"""JSON as Chatterbox writes it: Home Assistant's values, and text the SDK can send."""

from datetime import UTC, datetime
import json

from openai._utils._json import openapi_dumps

from homeassistant.components import conversation
from homeassistant.helpers import llm

from custom_components.chatterbox.wire.messages import content_to_messages

AGENT = "conversation.chatterbox"


def test_result_data_that_plain_json_cannot_encode() -> None:
    """Encode dates and other Home Assistant values the way Home Assistant does."""
    moment = datetime(2026, 10, 4, 12, 30, tzinfo=UTC)

    messages = content_to_messages(
        [
            conversation.ToolResultContent(
                agent_id=AGENT,
                tool_call_id="t",
                tool_name="GetDateTime",
                result=llm.ToolResult(data={"now": moment, "tags": {"a"}}),  # type: ignore[dict-item]
            )
        ]
    )

    assert json.loads(str(messages[0]["content"])) == {
        "data": {"now": "2026-10-04T12:30:00+00:00", "tags": ["a"]},
        "error": False,
    }


def test_an_emoji_streamed_in_two_escaped_halves_is_sent_whole() -> None:
    """Found by the property below: halves in the answer broke every later turn."""
    content = [
        conversation.AssistantContent(agent_id=AGENT, content="Sunny \ud83d"),
        conversation.UserContent(content="Thanks"),
    ]
    content[0] = conversation.AssistantContent(
        agent_id=AGENT, content=content[0].content + "\ude00 and \udc00"
    )

    messages = content_to_messages(content)

    assert messages[0]["content"] == "Sunny \U0001f600 and \ufffd"
    assert openapi_dumps(messages)
