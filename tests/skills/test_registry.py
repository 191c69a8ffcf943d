"""The skill registry: one LLM API per skill, registered while an entry is loaded."""

from dataclasses import replace

from awesomeversion import AwesomeVersion
import pytest

from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import __version__ as ha_version
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.skills.calculator import CALCULATOR, CalculateTool
from custom_components.chatterbox.skills.registry import (
    DATA_SKILLS,
    SkillConflictError,
    async_use_skills,
    check_skills,
)
from custom_components.chatterbox.skills.skill import SkillAPI
from custom_components.chatterbox.skills.weather import (
    WEATHER,
    WeatherForecastTool,
)
from tests.helpers.common import server_entry
from tests.helpers.llm_server import LLMServer

SKILL_IDS = {"chatterbox_weather", "chatterbox_calc", "chatterbox_lookup"}
# 2026.10 prefixes every tool of a merged API with the slug of its API's name
# ("Chatterbox weather" gives chatterbox-weather); 2026.11 prefixes only names
# that clash, with the API id.
PREFIXES_EVERY_MERGED_TOOL = AwesomeVersion(ha_version) < AwesomeVersion("2026.11.0")


def _registered(hass: HomeAssistant) -> set[str]:
    """Return the ids of the registered LLM APIs."""
    return {api.id for api in llm.async_get_apis(hass)}


def _context() -> llm.LLMContext:
    """Return the context another integration's agent would give."""
    return llm.LLMContext(
        platform="ollama",
        context=Context(),
        language="en",
        assistant="conversation",
        device_id=None,
    )


async def test_registered_once_and_released_by_the_last_entry(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """Two server entries share the skills; they go when the last one unloads."""
    assert _registered(hass) >= SKILL_IDS
    second = server_entry(llm_server.url, {"model": "llama3.2:3b"})
    second.add_to_hass(hass)
    assert await hass.config_entries.async_setup(second.entry_id)
    assert second.state is ConfigEntryState.LOADED

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert _registered(hass) >= SKILL_IDS

    assert await hass.config_entries.async_unload(second.entry_id)
    assert not SKILL_IDS & _registered(hass)
    assert DATA_SKILLS not in hass.data

    # Loaded again, they come back.
    assert await hass.config_entries.async_setup(second.entry_id)
    assert _registered(hass) >= SKILL_IDS


@pytest.mark.parametrize(
    ("skills", "problem"),
    [
        (
            (WEATHER, replace(CALCULATOR, tools=(CalculateTool, WeatherForecastTool))),
            (
                "chatterbox_weather and chatterbox_calc both define the tool "
                "chatterbox__weather_forecast"
            ),
        ),
        (
            (WEATHER, replace(CALCULATOR, id=WEATHER.id)),
            "more than one skill has the id chatterbox_weather",
        ),
    ],
    ids=["tool", "id"],
)
async def test_duplicates_fail_loudly(
    hass: HomeAssistant, skills: tuple[object, ...], problem: str
) -> None:
    """Two skills claiming one tool or one id stop the start, and say which."""
    with pytest.raises(SkillConflictError) as conflict:
        async_use_skills(hass, "entry", skills)  # type: ignore[arg-type]

    assert conflict.value.translation_key == "skill_conflict"
    assert conflict.value.translation_placeholders == {"problem": problem}
    assert not SKILL_IDS & _registered(hass)
    assert DATA_SKILLS not in hass.data


def test_tools_must_carry_the_prefix() -> None:
    """A tool named without chatterbox__ is refused before anything registers."""

    class Unprefixed(CalculateTool):
        name = "calculate"

    with pytest.raises(SkillConflictError) as conflict:
        check_skills([replace(CALCULATOR, tools=(Unprefixed,))])

    assert conflict.value.translation_placeholders == {
        "problem": "chatterbox_calc's tool calculate lacks the prefix chatterbox__"
    }


async def test_taken_api_id_fails_setup_and_registers_nothing(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Another integration holds chatterbox_calc: setup fails, nothing is left."""
    unregister = llm.async_register_api(hass, SkillAPI(hass, CALCULATOR))

    assert not await hass.config_entries.async_setup(config_entry.entry_id)

    assert config_entry.state is ConfigEntryState.SETUP_ERROR
    assert "API chatterbox_calc is already registered" in caplog.text
    assert _registered(hass) & SKILL_IDS == {"chatterbox_calc"}
    unregister()


@pytest.mark.usefixtures("loaded_entry")
async def test_core_agent_merges_a_skill_with_assist(hass: HomeAssistant) -> None:
    """Any agent that selects Assist and the weather skill gets both APIs' tools."""
    merged = await llm.async_get_api(hass, ["assist", "chatterbox_weather"], _context())

    names = [tool.name for tool in merged.tools]
    skill_tools = ["chatterbox__weather_forecast", "chatterbox__weather_at_place"]
    if PREFIXES_EVERY_MERGED_TOOL:
        assert "assist__llm__GetDateTime" in names
        assert names[-2:] == [f"chatterbox-weather__{name}" for name in skill_tools]
    else:
        assert "llm__GetDateTime" in names
        assert names[-2:] == skill_tools
    assert WEATHER.prompt in merged.api_prompt

    # The merged tool runs as the other agent's chat log would call it.
    result = await merged.async_call_tool(
        llm.ToolInput(tool_name=names[-2], tool_args={})
    )
    assert result.error is True
    assert result.data["error"] == "NoWeatherEntity"
