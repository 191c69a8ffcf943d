"""Describe the offered tools as text, for servers that do not parse calls."""

from openai.types.chat import ChatCompletionToolParam

from ...prompts import TEXT_TOOLS_PROMPT
from ..json import python_dumps


def text_tool_prompt(tools: list[ChatCompletionToolParam]) -> str:
    """Return the system prompt section that offers the tools as text.

    It lists the tools as Hermes and Qwen templates do, one JSON object per
    line, and asks for the <tool_call> format those models are trained on.
    The history goes back in the same form (wire.messages.with_text_tool_calls).
    """
    listing = "\n".join(
        python_dumps(
            {
                "name": tool["function"]["name"],
                "description": tool["function"].get("description", ""),
                "parameters": tool["function"].get("parameters", {}),
            }
        )
        for tool in tools
    )
    return TEXT_TOOLS_PROMPT.format(tools=listing)
