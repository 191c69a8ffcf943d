"""Tools whose behaviour a test chooses, offered by an LLM API of their own."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Self, override

import probatio

from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from custom_components.chatterbox.const import CONF_GUIDE, CONF_MAX_ITERATIONS, GUIDE_ON
from tests.helpers.common import MODELS

WEATHER_API = "weather_test"


class FakeTool(llm.Tool):
    """A tool whose behaviour a test chooses: answer, raise or hang."""

    def __init__(
        self, name: str, behaviour: Callable[[dict[str, Any]], Awaitable[Any]]
    ) -> None:
        """Name the tool and say what it does when called."""
        self.name = name
        self.description = f"The {name} tool."
        self.parameters = probatio.Schema({probatio.Optional("city"): str})
        self.behaviour = behaviour
        self.calls: list[dict[str, Any]] = []
        self.called = asyncio.Event()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Be itself in a copy: the Assist debug trace copies the tools it lists."""
        return self

    @override
    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Record the call and behave as told."""
        self.calls.append(tool_input.tool_args)
        self.called.set()
        return llm.ToolResult(data=await self.behaviour(tool_input.tool_args))


class FakeAPI(llm.API):
    """An LLM API offering the test's tools."""

    def __init__(self, hass: HomeAssistant, tools: list[llm.Tool]) -> None:
        """Offer these tools."""
        super().__init__(hass=hass, id=WEATHER_API, name="Weather test")
        self.tools = tools

    @override
    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Return the tools for one turn."""
        return llm.APIInstance(
            api=self,
            api_prompt="Use the weather tools.",
            llm_context=llm_context,
            tools=self.tools,
        )


async def forecast(args: dict[str, Any]) -> dict[str, Any]:
    """Answer like a weather service."""
    return {"city": args.get("city", "home"), "forecast": "sunny", "high": 21}


async def broken(args: dict[str, Any]) -> dict[str, Any]:
    """Fail the way buggy tool code does."""
    msg = f"weather backend exploded for {args}"
    raise RuntimeError(msg)


async def hang(args: dict[str, Any]) -> dict[str, Any]:
    """Never answer."""
    await asyncio.Event().wait()
    return args  # pragma: no cover


def weather_tools() -> dict[str, FakeTool]:
    """Return the weather tools by name: two that answer, one that fails, one hangs."""
    return {
        tool.name: tool
        for tool in (
            FakeTool("GetForecast", forecast),
            FakeTool("GetAlerts", forecast),
            FakeTool("BrokenTool", broken),
            FakeTool("SlowTool", hang),
        )
    }


def weather_agent(hass: HomeAssistant, tools: dict[str, FakeTool]) -> dict[str, Any]:
    """Offer the tools through their own API; return an agent with only them.

    The agent may take 4 tool rounds, and guides a small model: the stories
    of its failures need the aids.
    """
    llm.async_register_api(hass, FakeAPI(hass, list(tools.values())))
    return {
        CONF_MODEL: MODELS[0],
        CONF_LLM_HASS_API: [WEATHER_API],
        CONF_MAX_ITERATIONS: 4,
        CONF_GUIDE: GUIDE_ON,
    }
