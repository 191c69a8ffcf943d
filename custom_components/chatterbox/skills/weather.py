"""The weather skill: the home's weather from exposed entities, anywhere else's online.

chatterbox__weather_forecast reads Home Assistant's weather entities that the
user exposed to the assistant, through the weather.get_forecasts action.
chatterbox__weather_at_place (open_meteo.py) covers any named place.
"""

from datetime import timedelta
from typing import Any, Final, cast, override

import probatio

from homeassistant.components.weather.const import (
    DOMAIN as WEATHER_DOMAIN,
    SERVICE_GET_FORECASTS,
    WeatherEntityFeature,
)
from homeassistant.const import (
    ATTR_ENTITY_ID,
    ATTR_SUPPORTED_FEATURES,
    STATE_UNAVAILABLE,
    STATE_UNKNOWN,
)
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm
from homeassistant.util import dt as dt_util

from ..tools.own import SkillTool, error_result, reads_only
from .home_weather import current_weather, exposed_weather, home_weather, units_of
from .open_meteo import WeatherAtPlaceTool
from .readable import compass, condition, day_label, hour_label, local_time
from .skill import Skill, compact

FORECAST_FEATURES: Final = {
    "daily": WeatherEntityFeature.FORECAST_DAILY,
    "hourly": WeatherEntityFeature.FORECAST_HOURLY,
    "twice_daily": WeatherEntityFeature.FORECAST_TWICE_DAILY,
}
DEFAULT_DAYS: Final = 3
MAX_DAYS: Final = 10
DEFAULT_HOURS: Final = 12
MAX_HOURS: Final = 48


class WeatherForecastTool(SkillTool):
    """The current weather and forecast of an exposed weather entity."""

    name = "chatterbox__weather_forecast"
    title = "Weather forecast"
    description = (
        "Get the current weather and the forecast at home, or of a weather entity "
        "the user names, from Home Assistant. Values are in the units the result "
        "names."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional(
                "name", description="The weather entity's name; leave out for home"
            ): str,
            probatio.Optional(
                "forecast",
                description="daily (default), hourly, or twice_daily (day and night)",
            ): probatio.In(list(FORECAST_FEATURES)),
            probatio.Optional(
                "days",
                description=f"Days ahead, daily forecasts (default {DEFAULT_DAYS})",
            ): probatio.All(probatio.Coerce(int), probatio.Range(min=1, max=MAX_DAYS)),
            probatio.Optional(
                "hours", description=f"Hours ahead, hourly (default {DEFAULT_HOURS})"
            ): probatio.All(probatio.Coerce(int), probatio.Range(min=1, max=MAX_HOURS)),
        }
    )
    annotations = reads_only(online=False)

    @override
    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Read the weather entity's state and ask it for its forecast."""
        exposed = exposed_weather(hass, llm_context.assistant)
        if not exposed:
            return error_result(
                "NoWeatherEntity",
                "No weather entity is exposed to the assistant, so the weather at "
                "home is unknown. Tell the user; for a named town or country use "
                "weather_at_place.",
            )
        name: str | None = arguments.get("name")
        state = (
            home_weather(hass, exposed) if name is None else _named(hass, exposed, name)
        )
        if state is None:
            return error_result(
                "UnknownWeatherEntity",
                f"No exposed weather entity is called {name!r}. The exposed ones "
                f"are: {', '.join(s.name for s in exposed)}. For a town or country "
                "use weather_at_place.",
            )
        if state.state in (STATE_UNAVAILABLE, STATE_UNKNOWN):
            return error_result(
                "Unavailable", f"{state.name} has no weather data right now."
            )
        features = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
        supported = [kind for kind, bit in FORECAST_FEATURES.items() if features & bit]
        kind: str | None = arguments.get("forecast") or next(iter(supported), None)
        data: dict[str, Any] = {
            "weather_entity": state.name,
            "current": current_weather(state),
            "units": units_of(state),
        }
        if kind is None:
            data["forecast"] = "none: this weather entity only has the current weather"
        elif kind not in supported:
            return error_result(
                "UnsupportedForecast",
                f"{state.name} has no {kind} forecast; it has "
                f"{', '.join(supported) or 'none, only the current weather'}.",
            )
        else:
            forecast = await _async_get_forecast(
                hass, state.entity_id, kind, llm_context
            )
            data["forecast_type"] = kind
            data["forecast"] = _upcoming(forecast, kind, arguments)
        if name is None and len(exposed) > 1:
            data["other_weather_entities"] = [s.name for s in exposed if s is not state]
        return llm.ToolResult(data=data)


def _named(hass: HomeAssistant, exposed: list[State], name: str) -> State | None:
    """Find the exposed weather entity the model named, by name, alias or id."""
    for state in exposed:
        if name.strip().casefold() == state.entity_id:
            return state
    result = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(name=name, domains=[WEATHER_DOMAIN]),
        states=exposed,
    )
    return result.states[0] if result.is_match else None


async def _async_get_forecast(
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


def _upcoming(
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


WEATHER: Final = Skill(
    id="chatterbox_weather",
    name="Chatterbox weather",
    prompt=(
        "For the weather at home, or of a weather entity the user names, use "
        "weather_forecast. For the weather in any other town, region or country, "
        "use weather_at_place. Say temperatures and speeds with the units the "
        "result names. Say which place a weather_at_place result is for."
    ),
    tools=(WeatherForecastTool, WeatherAtPlaceTool),
)
