"""The weather skill: the home's weather from exposed entities, anywhere else's online.

chatterbox__weather_forecast reads Home Assistant's weather entities that the
user exposed to the assistant, through the weather.get_forecasts action.
chatterbox__weather_at_place (open_meteo.py) covers any named place.
"""

from typing import Any, Final, override

import probatio

from homeassistant.components.weather.const import (
    DOMAIN as WEATHER_DOMAIN,
)
from homeassistant.const import (
    ATTR_SUPPORTED_FEATURES,
    STATE_UNAVAILABLE,
    STATE_UNKNOWN,
)
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm

from ..tools.own import SkillTool, error_result, reads_only
from .home_weather import (
    DEFAULT_DAYS,
    DEFAULT_HOURS,
    FORECAST_FEATURES,
    async_get_forecast,
    current_weather,
    exposed_weather,
    home_weather,
    units_of,
    upcoming,
)
from .open_meteo import WeatherAtPlaceTool
from .skill import Skill

MAX_DAYS: Final = 10
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
            forecast = await async_get_forecast(
                hass, state.entity_id, kind, llm_context
            )
            data["forecast_type"] = kind
            data["forecast"] = upcoming(forecast, kind, arguments)
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
