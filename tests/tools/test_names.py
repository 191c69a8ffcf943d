"""Tests of finding the offered tool a model's name means."""

import pytest

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.tools.names import tool_resolver
from tests.helpers.common import ask
from tests.helpers.llm_server import Call, LLMServer, Text, ToolCalls

OFFERED = ["intent__HassTurnOn", "intent__HassTurnOff", "GetLiveContext"]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        pytest.param("GetLiveContext", "GetLiveContext", id="exact"),
        pytest.param("getlivecontext", "GetLiveContext", id="any-case"),
        pytest.param("functions.GetLiveContext", "GetLiveContext", id="openai-prefix"),
        pytest.param(
            " default_api.GetLiveContext", "GetLiveContext", id="gemini-prefix"
        ),
        pytest.param("HassTurnOn", "intent__HassTurnOn", id="without-domain-prefix"),
        pytest.param(
            "intent__hassturnon", "intent__HassTurnOn", id="prefixed-any-case"
        ),
    ],
)
def test_a_name_finds_the_tool_it_means(written: str, meant: str) -> None:
    """A model's spelling of an offered tool's name finds that tool."""
    assert tool_resolver(OFFERED)(written) == meant


@pytest.mark.parametrize(
    "written",
    ["HassLightSet", "TurnOn", "", "intent__", "functions."],
)
def test_a_name_that_means_no_offered_tool_finds_none(written: str) -> None:
    """A name that is no offered tool's finds nothing, rather than a guess."""
    assert tool_resolver(OFFERED)(written) is None


def test_a_bare_name_two_tools_end_in_finds_neither() -> None:
    """Without its prefix, a name two domains share is not guessed."""
    resolve = tool_resolver(["intent__HassTurnOn", "other__HassTurnOn"])

    assert resolve("HassTurnOn") is None
    assert resolve("other__HassTurnOn") == "other__HassTurnOn"


async def test_tool_name_without_its_prefix_still_works(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    llm_server: LLMServer,
    kitchen_light: str,
) -> None:
    """Small models drop the intent__ prefix; the one tool it can mean is run."""
    llm_server.reply(
        ToolCalls([Call("HassTurnOn", {"name": "Kitchen light"})]),
        Text("Done."),
    )

    result = await ask(hass, "Kitchen light on, please")

    assert hass.states.get(kitchen_light).state == "on"
    assert result.response.speech["plain"]["speech"] == "Done."
