"""Chatterbox's own tools: the base every skill's tool and the device search share.

A tool of Chatterbox's own checks its arguments, then answers with a
ToolResult; an error result has the shape chat logs give their own errors.
The tools live in skills/ (each skill an LLM API of its own) and in the
turn's guard (the device search of a large home, offered by the agent).
"""

from abc import abstractmethod
from typing import Any, Final, override

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import DOMAIN

TOOL_PREFIX: Final = f"{DOMAIN}__"


class SkillTool(llm.Tool):
    """A Chatterbox tool: checks its arguments, then answers with a ToolResult."""

    integration = DOMAIN

    @override
    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Validate the model's arguments and run the tool.

        Arguments that do not fit raise probatio.Invalid, which every chat log
        turns into an error result the model can read and correct.
        """
        arguments: dict[str, Any] = self.parameters(tool_input.tool_args)
        return await self.async_run(hass, arguments, llm_context)

    @abstractmethod
    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Run the tool with validated arguments."""


def reads_only(*, online: bool) -> llm.ToolAnnotations:
    """Annotate a tool that changes nothing, so a call may safely be repeated.

    online: it asks a service outside Home Assistant.
    """
    return llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=online
    )


def error_result(kind: str, text: str) -> llm.ToolResult:
    """Build an error result in the shape chat logs use for their own errors."""
    return llm.ToolResult(data={"error": kind, "error_text": text}, error=True)
