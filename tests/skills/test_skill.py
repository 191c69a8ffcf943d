"""A skill's tools: prefixed, honest about what they do, with a schema."""

import probatio

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.skills.registry import SKILLS
from custom_components.chatterbox.wire.schema import format_tool


def test_every_tool_declares_itself() -> None:
    """Prefixed names, the integration, a title, honest annotations, a schema."""
    tools = [tool() for skill in SKILLS for tool in skill.tools]

    assert [tool.name for tool in tools] == [
        "chatterbox__weather_forecast",
        "chatterbox__weather_at_place",
        "chatterbox__calculate",
        "chatterbox__wikipedia_summary",
    ]
    for tool in tools:
        assert tool.integration == DOMAIN
        assert tool.title
        assert tool.description
        assert tool.annotations.read_only
        assert not tool.annotations.destructive
        assert tool.annotations.idempotent
        # Without Home Assistant's selector serializer too, as other agents send.
        schema = probatio.to_openapi(tool.parameters)
        assert format_tool(tool, None)["function"]["parameters"] == schema
    open_world = {tool.name for tool in tools if tool.annotations.open_world}
    assert open_world == {
        "chatterbox__weather_at_place",
        "chatterbox__wikipedia_summary",
    }
