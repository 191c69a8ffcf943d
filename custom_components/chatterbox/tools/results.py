"""The shape of a tool call's error result."""

from homeassistant.helpers import llm


def error_result(kind: str, text: str) -> llm.ToolResult:
    """Build an error result in the shape chat logs use for their own errors."""
    return llm.ToolResult(data={"error": kind, "error_text": text}, error=True)
