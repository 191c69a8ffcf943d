"""The weather skill at home: real template weather entities, exposed or not."""

from datetime import datetime, timedelta
import json
from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from homeassistant.util.unit_system import (
    METRIC_SYSTEM,
    US_CUSTOMARY_SYSTEM,
    UnitSystem,
)
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from tests.helpers.common import MODELS
from tests.helpers.llm_server import LLMServer
from tests.helpers.skills import call_tool, offered_tools

FORECAST = "chatterbox__weather_forecast"


def _template(value: Any) -> str:
    """Write a value as a template that renders it."""
    return "{{ " + json.dumps(value) + " }}"


def _day(offset: int) -> datetime:
    """Return local midnight, offset days from today."""
    return dt_util.start_of_local_day() + timedelta(days=offset)


def _hour(offset: int) -> datetime:
    """Return the start of the current hour, offset hours from it."""
    return dt_util.now().replace(minute=0, second=0, microsecond=0) + timedelta(
        hours=offset
    )


# Native units of every test entity: °C, km/h, hPa, mm, km.
NATIVE_UNITS = {
    "temperature_unit": "°C",
    "wind_speed_unit": "km/h",
    "pressure_unit": "hPa",
    "precipitation_unit": "mm",
    "visibility_unit": "km",
}


def _home() -> dict[str, Any]:
    """Describe the home weather: rain now, every kind of forecast."""
    daily = [
        (-1, "sunny", 30.0, 20.0, 0.0, 0),  # yesterday: not ahead any more
        (0, "rainy", 18.0, 9.0, 4.2, 80),
        (1, "partlycloudy", 21.0, 11.0, 0.5, 20),
        (2, "sunny", 25.0, 13.0, 0.0, 0),
        (3, "cloudy", 19.0, 12.0, 0.0, 10),
    ]
    hourly = [(-3, "sunny", 15.0), (0, "rainy", 18.4), (1, "pouring", 17.0)]
    hourly += [(offset, "cloudy", 16.0) for offset in range(2, 30)]
    # A time nobody can read is left out rather than guessed.
    garbled = {"datetime": "soon", "condition": "hail", "temperature": 0.0}
    twice_daily = [
        (0, True, "rainy", 18.0, 12.0),
        (0, False, "clear-night", 10.0, 8.0),
        (1, True, "sunny", 21.0, 11.0),
        (1, False, "clear-night", 11.0, 9.0),
    ]
    return {
        "name": "Home",
        "condition": "rainy",
        "temperature": "{{ 18.4 }}",
        "apparent_temperature": "{{ 16.0 }}",
        "humidity": "{{ 81 }}",
        "wind_speed": "{{ 20.0 }}",
        "wind_bearing": "{{ 225 }}",
        "pressure": "{{ 1008.0 }}",
        "visibility": "{{ 8.0 }}",
        **NATIVE_UNITS,
        "forecast_daily": _template(
            [
                {
                    "datetime": _day(offset).isoformat(),
                    "condition": condition,
                    "temperature": high,
                    "templow": low,
                    "precipitation": rain,
                    "precipitation_probability": chance,
                    "wind_speed": 20.0,
                    "wind_bearing": 270,
                }
                for offset, condition, high, low, rain, chance in daily
            ]
        ),
        "forecast_hourly": _template(
            [garbled]
            + [
                {
                    "datetime": _hour(offset).isoformat(),
                    "condition": condition,
                    "temperature": temperature,
                    "precipitation": 1.0,
                }
                for offset, condition, temperature in hourly
            ]
        ),
        "forecast_twice_daily": _template(
            [
                {
                    "datetime": (
                        _day(offset) + timedelta(hours=6 + 12 * (not day))
                    ).isoformat(),
                    "is_daytime": day,
                    "condition": condition,
                    "temperature": high,
                    "templow": low,
                }
                for offset, day, condition, high, low in twice_daily
            ]
        ),
    }


GARDEN = {
    "name": "Garden",
    "condition": "sunny",
    "temperature": "{{ 31.7 }}",
    "humidity": "{{ 12 }}",
    **NATIVE_UNITS,
    "forecast_daily": _template(
        [{"datetime": _day(1).isoformat(), "condition": "sunny", "temperature": 33.0}]
    ),
}
# A station without forecasts, offline while input_boolean.cabin_online is off.
CABIN = {
    "name": "Cabin",
    "condition": "snowy",
    "temperature": "{{ -4.0 }}",
    "humidity": "{{ 90 }}",
    "availability": "{{ not is_state('input_boolean.cabin_online', 'off') }}",
    **NATIVE_UNITS,
}


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent the weather skill only."""
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["chatterbox_weather"]}


@pytest.fixture
def unit_system() -> UnitSystem:
    """Return Home Assistant's unit system for the test."""
    return METRIC_SYSTEM


@pytest.fixture
async def weather(ha_core: HomeAssistant, unit_system: UnitSystem) -> None:
    """Add Home and Cabin, exposed to Assist, and Garden, not exposed."""
    ha_core.config.units = unit_system
    assert await async_setup_component(
        ha_core, "input_boolean", {"input_boolean": {"cabin_online": {"initial": True}}}
    )
    assert await async_setup_component(
        ha_core, "template", {"template": [{"weather": [_home(), GARDEN, CABIN]}]}
    )
    await ha_core.async_block_till_done()
    for entity_id, exposed in (
        ("weather.home", True),
        ("weather.cabin", True),
        ("weather.garden", False),
    ):
        assert ha_core.states.get(entity_id) is not None
        async_expose_entity(
            ha_core, conversation.DOMAIN, entity_id, should_expose=exposed
        )


@pytest.mark.parametrize(
    ("unit_system", "current", "units", "today"),
    [
        (
            METRIC_SYSTEM,
            {
                "temperature": 18.4,
                "feels_like": 16.0,
                "wind_speed": 20.0,
                "pressure": 1008.0,
                "visibility": 8.0,
            },
            {
                "temperature": "°C",
                "wind_speed": "km/h",
                "pressure": "hPa",
                "visibility": "km",
                "precipitation": "mm",
            },
            {"high": 18.0, "low": 9.0, "precipitation": 4.2, "wind_speed": 20.0},
        ),
        (
            US_CUSTOMARY_SYSTEM,
            {
                "temperature": 65,
                "feels_like": 61,
                "wind_speed": 12.43,
                "pressure": 29.77,
                "visibility": 4.97,
            },
            {
                "temperature": "°F",
                "wind_speed": "mph",
                "pressure": "inHg",
                "visibility": "mi",
                "precipitation": "in",
            },
            {"high": 64, "low": 48, "precipitation": 0.17, "wind_speed": 12.43},
        ),
    ],
    ids=["metric", "us_customary"],
)
@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_home_weather_in_the_unit_system(
    hass: HomeAssistant,
    llm_server: LLMServer,
    current: dict[str, Any],
    units: dict[str, str],
    today: dict[str, Any],
) -> None:
    """User asks for the weather; the model reads home's, in HA's units, named."""
    result = await call_tool(hass, llm_server, "What's the weather like?", FORECAST, {})

    assert result["error"] is False
    data = result["data"]
    assert data["weather_entity"] == "Home"
    assert data["current"] == {
        "condition": "rain",
        "humidity": 81,
        "wind_direction": "SW",
        **current,
    }
    assert data["units"] == {
        **units,
        "humidity": "%",
        "precipitation_probability": "%",
    }
    # Daily by default, three days from today; yesterday is left out. Today
    # and tomorrow say so: a small model cannot tell which date is tomorrow.
    assert data["forecast_type"] == "daily"
    assert [day["date"] for day in data["forecast"]] == [
        _day(0).strftime("today, %a %Y-%m-%d"),
        _day(1).strftime("tomorrow, %a %Y-%m-%d"),
        _day(2).strftime("%a %Y-%m-%d"),
    ]
    assert data["forecast"][0] == {
        "date": _day(0).strftime("today, %a %Y-%m-%d"),
        "condition": "rain",
        "precipitation_probability": 80,
        "wind_direction": "W",
        **today,
    }
    # Cabin is exposed too; Garden is not, and the model never hears of it.
    assert data["other_weather_entities"] == ["Cabin"]
    assert "Garden" not in json.dumps(llm_server.chat_requests)


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_hourly_forecast_for_the_next_hours(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Will it rain soon? The model asks for 3 hours; past hours are left out."""
    result = await call_tool(
        hass,
        llm_server,
        "Will it rain in the next hours?",
        FORECAST,
        {"forecast": "hourly", "hours": 3},
    )

    data = result["data"]
    assert data["forecast_type"] == "hourly"
    assert data["forecast"] == [
        {
            "time": _hour(offset).strftime("%a %H:%M"),
            "condition": condition,
            "temperature": temperature,
            "precipitation": 1.0,
        }
        for offset, condition, temperature in (
            (0, "rain", 18.4),
            (1, "heavy rain", 17.0),
            (2, "cloudy", 16.0),
        )
    ]


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_twice_daily_forecast_has_days_and_nights(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Tonight and tomorrow: a day and a night per day asked for."""
    result = await call_tool(
        hass,
        llm_server,
        "How cold will it get tonight?",
        FORECAST,
        {"name": "Home", "forecast": "twice_daily", "days": 1},
    )

    data = result["data"]
    assert data["forecast_type"] == "twice_daily"
    assert data["forecast"] == [
        {
            "date": _day(0).strftime("today, %a %Y-%m-%d"),
            "part": "day",
            "condition": "rain",
            "high": 18.0,
            "low": 12.0,
        },
        {
            "date": _day(0).strftime("today, %a %Y-%m-%d"),
            "part": "night",
            "condition": "clear",
            "high": 10.0,
            "low": 8.0,
        },
    ]
    # The entity was named: the other ones are not listed.
    assert "other_weather_entities" not in data


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_entity_without_forecasts(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Cabin has only the current weather: an hourly forecast is refused."""
    refused = await call_tool(
        hass,
        llm_server,
        "Will it snow at the cabin tonight?",
        FORECAST,
        {"name": "cabin", "forecast": "hourly"},
    )
    current_only = await call_tool(
        hass, llm_server, "How is it at the cabin?", FORECAST, {"name": "weather.cabin"}
    )

    assert refused["error"] is True
    assert refused["data"] == {
        "error": "UnsupportedForecast",
        "error_text": "Cabin has no hourly forecast; it has none, only the "
        "current weather.",
    }
    assert current_only["error"] is False
    assert current_only["data"]["weather_entity"] == "Cabin"
    assert current_only["data"]["current"] == {
        "condition": "snow",
        "temperature": -4.0,
        "humidity": 90,
    }
    assert current_only["data"]["forecast"].startswith("none")


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_default_without_a_home_entity(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """With Home unexposed, no entity is named after home: the first one is used."""
    async_expose_entity(hass, conversation.DOMAIN, "weather.home", should_expose=False)

    result = await call_tool(hass, llm_server, "How is the weather?", FORECAST, {})

    assert result["data"]["weather_entity"] == "Cabin"
    assert "other_weather_entities" not in result["data"]


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_unexposed_entity_is_refused(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Garden is not exposed: the model hears only which entities are."""
    result = await call_tool(
        hass, llm_server, "How hot is it in the garden?", FORECAST, {"name": "Garden"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == "UnknownWeatherEntity"
    assert result["data"]["error_text"] == (
        "No exposed weather entity is called 'Garden'. The exposed ones are: "
        "Cabin, Home. For a town or country use weather_at_place."
    )
    assert "31.7" not in json.dumps(llm_server.chat_requests)


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_unavailable_entity(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """The cabin's station is offline: the model hears there is no data."""
    await hass.services.async_call(
        "input_boolean",
        "turn_off",
        {"entity_id": "input_boolean.cabin_online"},
        blocking=True,
    )
    await hass.async_block_till_done()
    assert hass.states.get("weather.cabin").state == "unavailable"

    result = await call_tool(
        hass, llm_server, "How is it at the cabin?", FORECAST, {"name": "Cabin"}
    )

    assert result["data"] == {
        "error": "Unavailable",
        "error_text": "Cabin has no weather data right now.",
    }


async def _assert_no_weather_entity(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """Ask for the weather; the model hears there is none to read."""
    result = await call_tool(hass, llm_server, "Is it raining?", FORECAST, {})

    assert result["error"] is True
    assert result["data"]["error"] == "NoWeatherEntity"
    assert "weather_at_place" in result["data"]["error_text"]


@pytest.mark.usefixtures("loaded_entry")
async def test_no_weather_entity(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """Home Assistant has no weather entity at all."""
    await _assert_no_weather_entity(hass, llm_server)


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_no_weather_entity_exposed(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """Weather entities exist, but the user exposed none of them."""
    for entity_id in ("weather.home", "weather.cabin"):
        async_expose_entity(hass, conversation.DOMAIN, entity_id, should_expose=False)

    await _assert_no_weather_entity(hass, llm_server)
    assert "Home" not in json.dumps(llm_server.chat_requests[-1]["messages"][-1])


@pytest.mark.parametrize(
    "agent_data",
    [{CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["assist", "chatterbox_weather"]}],
)
@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_skill_beside_assist(hass: HomeAssistant, llm_server: LLMServer) -> None:
    """Selected with Assist: both APIs' tools are offered, and the call works.

    HA 2026.10 prefixes every merged tool with its API, 2026.11 only clashing
    ones; the model's chatterbox__weather_forecast reaches the tool either way.
    """
    result = await call_tool(hass, llm_server, "Weather?", FORECAST, {})

    assert result["data"]["weather_entity"] == "Home"
    offered = offered_tools(llm_server.chat_requests[0])
    assert any(name.endswith("chatterbox__weather_at_place") for name in offered)
    assert any(name.endswith("llm__GetDateTime") for name in offered)


@pytest.mark.parametrize(
    "agent_data", [{CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]}]
)
@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_skill_left_unselected_is_off(
    hass: HomeAssistant, llm_server: LLMServer
) -> None:
    """An agent with only Assist selected is not offered the weather tools."""
    result = await call_tool(
        hass, llm_server, "What time is it?", "llm__GetDateTime", {}
    )

    assert result["error"] is False
    offered = offered_tools(llm_server.chat_requests[0])
    assert not [name for name in offered if "chatterbox" in name]


@pytest.mark.usefixtures("weather", "loaded_entry")
async def test_a_place_nobody_knows_brings_the_homes_forecast(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """User asks about tomorrow's weather; the model names a place that is none.

    Open-Meteo knows no such place. The error comes with the home's weather
    and its daily forecast, tomorrow included: what the user asked about.
    """
    aioclient_mock.get(
        "https://geocoding-api.open-meteo.com/v1/search",
        json={"generationtime_ms": 0.4},
    )

    result = await call_tool(
        hass,
        llm_server,
        "What will the weather be tomorrow?",
        "chatterbox__weather_at_place",
        {"place": "my town", "days": 2},
    )

    assert result["error"] is True
    data = result["data"]
    assert data["error"] == "UnknownPlace"
    assert data["home_weather"]["current"]["condition"] == "rain"
    assert [day["date"] for day in data["home_weather"]["forecast"]] == [
        _day(0).strftime("today, %a %Y-%m-%d"),
        _day(1).strftime("tomorrow, %a %Y-%m-%d"),
    ]
