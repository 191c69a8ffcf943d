"""The home's weather, as the exposed weather entities have it.

Both weather tools read it: weather_forecast (weather.py) for the weather at
home, and weather_at_place (open_meteo.py) for a place Open-Meteo does not
know, which small models pass for "outside" or "here".
"""

from datetime import timedelta
from typing import Any, Final, cast

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.components.weather.const import (
    DOMAIN as WEATHER_DOMAIN,
    SERVICE_GET_FORECASTS,
    WeatherEntityFeature,
)
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util

from .readable import compass, condition, day_label, hour_label, local_time
from .skill import compact

FORECAST_FEATURES: Final = {
    "daily": WeatherEntityFeature.FORECAST_DAILY,
    "hourly": WeatherEntityFeature.FORECAST_HOURLY,
    "twice_daily": WeatherEntityFeature.FORECAST_TWICE_DAILY,
}
DEFAULT_DAYS: Final = 3
DEFAULT_HOURS: Final = 12

# The state attribute that names the unit of each kind of value.
UNIT_ATTRIBUTES: Final = {
    "temperature": "temperature_unit",
    "wind_speed": "wind_speed_unit",
    "pressure": "pressure_unit",
    "visibility": "visibility_unit",
    "precipitation": "precipitation_unit",
}


def exposed_weather(hass: HomeAssistant, assistant: str) -> list[State]:
    """Return the weather entities exposed to the assistant."""
    return sorted(
        (
            state
            for state in hass.states.async_all(WEATHER_DOMAIN)
            if async_should_expose(hass, assistant, state.entity_id)
        ),
        key=lambda state: state.entity_id,
    )


def home_weather(hass: HomeAssistant, exposed: list[State]) -> State:
    """Pick the weather at home: one named after home, else the first."""
    hints = [h for h in ("home", hass.config.location_name.casefold()) if h]
    for state in exposed:
        if any(hint in f"{state.entity_id} {state.name}".casefold() for hint in hints):
            return state
    return exposed[0]


def current_weather(state: State) -> dict[str, Any]:
    """Return the current weather, in the entity's units."""
    attributes = state.attributes
    return compact(
        {
            "condition": condition(state.state),
            "temperature": attributes.get("temperature"),
            "feels_like": attributes.get("apparent_temperature"),
            "humidity": attributes.get("humidity"),
            "dew_point": attributes.get("dew_point"),
            "wind_speed": attributes.get("wind_speed"),
            "wind_gust_speed": attributes.get("wind_gust_speed"),
            "wind_direction": compass(attributes.get("wind_bearing")),
            "pressure": attributes.get("pressure"),
            "visibility": attributes.get("visibility"),
            "cloud_coverage": attributes.get("cloud_coverage"),
            "uv_index": attributes.get("uv_index"),
        }
    )


def units_of(state: State) -> dict[str, str]:
    """Name the units the entity reports in: Home Assistant's unit system."""
    units = {
        kind: str(unit)
        for kind, attribute in UNIT_ATTRIBUTES.items()
        if (unit := state.attributes.get(attribute))
    }
    return {**units, "humidity": "%", "precipitation_probability": "%"}


async def async_get_forecast(
    hass: HomeAssistant, entity_id: str, kind: str, llm_context: llm.LLMContext
) -> list[dict[str, Any]]:
    """Ask the entity for its forecast through weather.get_forecasts."""
    response = await hass.services.async_call(
        WEATHER_DOMAIN,
        SERVICE_GET_FORECASTS,
        {"type": kind, ATTR_ENTITY_ID: entity_id},
        blocking=True,
        context=llm_context.context,
        return_response=True,
    )
    by_entity = cast("dict[str, dict[str, Any]]", response)
    return list(by_entity[entity_id]["forecast"])


def upcoming(
    forecast: list[dict[str, Any]], kind: str, arguments: dict[str, Any]
) -> list[dict[str, Any]]:
    """Keep what is still ahead, as many entries as asked, in words."""
    now = dt_util.now()
    if kind == "hourly":
        count = int(arguments.get("hours", DEFAULT_HOURS))
    else:
        days = int(arguments.get("days", DEFAULT_DAYS))
        count = days * 2 if kind == "twice_daily" else days
    entries: list[dict[str, Any]] = []
    for entry in forecast:
        moment = local_time(entry.get("datetime"))
        if moment is None:
            continue
        if kind == "hourly":
            if moment < now - timedelta(hours=1):
                continue
            entries.append(
                compact(
                    {
                        "time": hour_label(moment),
                        "condition": condition(entry.get("condition")),
                        "temperature": entry.get("temperature"),
                        **_shared(entry),
                    }
                )
            )
        elif moment.date() >= now.date():
            part = entry.get("is_daytime")
            entries.append(
                compact(
                    {
                        "date": day_label(moment.date(), now.date()),
                        "part": None if part is None else ("day" if part else "night"),
                        "condition": condition(entry.get("condition")),
                        "high": entry.get("temperature"),
                        "low": entry.get("templow"),
                        **_shared(entry),
                    }
                )
            )
        if len(entries) == count:
            break
    return entries


def _shared(entry: dict[str, Any]) -> dict[str, Any]:
    """Return the values every kind of forecast entry may carry."""
    return {
        "feels_like": entry.get("apparent_temperature"),
        "precipitation": entry.get("precipitation"),
        "precipitation_probability": entry.get("precipitation_probability"),
        "humidity": entry.get("humidity"),
        "wind_speed": entry.get("wind_speed"),
        "wind_direction": compass(entry.get("wind_bearing")),
    }
