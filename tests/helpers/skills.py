"""Helpers for the skill tests: the model calls one tool through the agent."""

from typing import Any

from homeassistant.core import HomeAssistant

from tests.helpers.common import ask, tool_messages
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls

ANSWER = "Here is what I found."


def offered_tools(request: dict[str, Any]) -> list[str]:
    """Return the names of the tools a request offers the model."""
    return [tool["function"]["name"] for tool in request.get("tools", ())]


async def call_tool(
    hass: HomeAssistant,
    llm_server: LLMServer,
    question: str,
    tool: str,
    arguments: dict[str, Any],
    **ask_options: Any,
) -> dict[str, Any]:
    """Ask; let the model call the tool; return the result it reads next.

    The result is the tool message of the model's next request, decoded:
    {"data": ..., "error": ...}.
    """
    llm_server.reply(ToolCalls([Call(tool, arguments)]), Text(ANSWER))
    first = len(llm_server.chat_requests)

    result = await ask(hass, question, **ask_options)

    assert result.response.speech["plain"]["speech"] == ANSWER
    asked, answered = llm_server.chat_requests[first:]
    assert any(name.endswith(tool) for name in offered_tools(asked))
    *_, message = tool_messages(answered)
    assert message["tool_call_id"] == answered["messages"][-2]["tool_calls"][0]["id"]
    content: dict[str, Any] = message["content"]
    return content
