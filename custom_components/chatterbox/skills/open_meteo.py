"""chatterbox__weather_at_place: the weather anywhere, from Open-Meteo (no key).

The place is looked up with Open-Meteo's geocoding API, then its current and
daily weather with the forecast API, in Home Assistant's unit system. The hosts
are fixed; only the place name and numbers come from the model. Answers are
kept for 10 minutes.
"""

from contextlib import suppress
from datetime import date, timedelta
from typing import Any, Final, override

import probatio

from homeassistant.const import ATTR_SUPPORTED_FEATURES, UnitOfTemperature
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from ..lang import base_language
from ..tools.own import SkillTool, error_result, reads_only
from .cache import TimedCache
from .fetch import ServiceError, async_get_json
from .home_weather import (
    FORECAST_FEATURES,
    async_get_forecast,
    current_weather,
    exposed_weather,
    home_weather,
    units_of,
    upcoming,
)
from .readable import compass, day_label
from .skill import compact

SERVICE: Final = "Open-Meteo"
GEOCODING_URL: Final = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL: Final = "https://api.open-meteo.com/v1/forecast"
CACHE_TTL: Final = timedelta(minutes=10)
CACHE_SIZE: Final = 64
DEFAULT_DAYS: Final = 3
MAX_DAYS: Final = 16  # as far as Open-Meteo forecasts
# Candidates asked for when a "Town, Region" name has to be narrowed by hand.
CANDIDATES: Final = 10

CURRENT_VARIABLES: Final = (
    "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,"
    "weather_code,wind_speed_10m,wind_direction_10m"
)
DAILY_VARIABLES: Final = (
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,"
    "precipitation_probability_max,wind_speed_10m_max"
)
US_UNITS: Final = {
    "temperature_unit": "fahrenheit",
    "wind_speed_unit": "mph",
    "precipitation_unit": "inch",
}

# WMO weather interpretation codes, as Open-Meteo documents them.
WMO_CODES: Final = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "freezing fog",
    51: "light drizzle",
    53: "drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "freezing drizzle",
    61: "light rain",
    63: "rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "freezing rain",
    71: "light snow",
    73: "snow",
    75: "heavy snow",
    77: "snow grains",
    80: "light rain showers",
    81: "rain showers",
    82: "violent rain showers",
    85: "light snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with light hail",
    99: "thunderstorm with heavy hail",
}


class WeatherAtPlaceTool(SkillTool):
    """The weather at a place the user names, anywhere in the world."""

    name = "chatterbox__weather_at_place"
    title = "Weather at a place"
    description = (
        "Get the current weather and the daily forecast for a town, region or "
        "country the user names, anywhere in the world, from Open-Meteo."
    )
    parameters = probatio.Schema(
        {
            # No example place: small models copy an example's value into
            # their calls, and a question about the weather at home would be
            # answered with the weather of the example's town.
            probatio.Required(
                "place",
                description="The town, region or country as the user said it, "
                "with its state or country when they gave one",
            ): probatio.All(str, probatio.Length(min=2, max=100)),
            probatio.Optional(
                "days", description=f"Days of forecast (default {DEFAULT_DAYS})"
            ): probatio.All(probatio.Coerce(int), probatio.Range(min=1, max=MAX_DAYS)),
        }
    )
    annotations = reads_only(online=True)

    def __init__(self) -> None:
        """Start with an empty cache."""
        self.cache: TimedCache[tuple[str, str, int, bool], dict[str, Any]] = TimedCache(
            CACHE_TTL, CACHE_SIZE
        )

    @override
    async def async_run(
        self,
        hass: HomeAssistant,
        arguments: dict[str, Any],
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Find the place, then its weather, unless it is in the cache."""
        place: str = " ".join(arguments["place"].split())
        days = int(arguments.get("days", DEFAULT_DAYS))
        language = base_language(llm_context.language)
        us_units = hass.config.units.temperature_unit == UnitOfTemperature.FAHRENHEIT
        key = (place.casefold(), language, days, us_units)
        if (cached := self.cache.get(key)) is not None:
            return llm.ToolResult(data=cached)
        try:
            location = await _async_geocode(hass, place, language)
            if location is None:
                return await _async_unknown(hass, place, days, llm_context)
            forecast = await _async_forecast(hass, location, days, us_units=us_units)
        except ServiceError as err:
            return err.result
        data = {"place": _place_name(location), **forecast, "source": SERVICE}
        self.cache.put(key, data)
        return llm.ToolResult(data=data)


async def _async_unknown(
    hass: HomeAssistant, place: str, days: int, llm_context: llm.LLMContext
) -> llm.ToolResult:
    """Say Open-Meteo knows no such place; with the weather at home, if any.

    Small models pass "outside", "here" or a placeholder as the place. When a
    weather entity is exposed, its current weather and its daily forecast
    come with the error, for a question about the weather here ("and
    tomorrow?"); the error says so, and that it is no place's else.
    """
    text = (
        f"{SERVICE} knows no place called {place!r}. Ask the user which place "
        "they mean, or try the town's name alone, or 'Town, Country'."
    )
    if not (exposed := exposed_weather(hass, llm_context.assistant)):
        return error_result("UnknownPlace", text)
    state = home_weather(hass, exposed)
    home: dict[str, Any] = {"current": current_weather(state), "units": units_of(state)}
    features = int(state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0)
    if features & FORECAST_FEATURES["daily"]:
        # Without its forecast, the current weather still answers "now".
        with suppress(HomeAssistantError):
            forecast = await async_get_forecast(
                hass, state.entity_id, "daily", llm_context
            )
            home["forecast"] = upcoming(forecast, "daily", {"days": days})
    return llm.ToolResult(
        data={
            "error": "UnknownPlace",
            "error_text": f"{text} If the user asked about the weather here, at "
            f"home or outside, home_weather is it, from {state.name}; it is no "
            "other place's weather.",
            "home_weather": home,
        },
        error=True,
    )


async def _async_geocode(
    hass: HomeAssistant, place: str, language: str
) -> dict[str, Any] | None:
    """Return the best match for the place, or None when there is none.

    The geocoder matches names, not "Town, Region": when the whole text finds
    nothing, the town is looked up alone and the region picks among the results.
    """
    if results := await _async_search(hass, place, language, 1):
        return results[0]
    town, _, region = (part.strip() for part in place.partition(","))
    if not region or not town:
        return None
    results = await _async_search(hass, town, language, CANDIDATES)
    wanted = region.casefold()
    for result in results:
        fields = ("country", "country_code", "admin1", "admin2")
        if any(wanted == str(result.get(field, "")).casefold() for field in fields):
            return result
    return None


async def _async_search(
    hass: HomeAssistant, name: str, language: str, count: int
) -> list[dict[str, Any]]:
    """Ask the geocoding API for places of this name."""
    status, body = await async_get_json(
        hass,
        SERVICE,
        GEOCODING_URL,
        {"name": name, "count": str(count), "language": language, "format": "json"},
    )
    _check(status, body)
    # No match is an answer without "results" at all.
    results = body.get("results") or []
    return [r for r in results if isinstance(r, dict) and "latitude" in r]


async def _async_forecast(
    hass: HomeAssistant, location: dict[str, Any], days: int, *, us_units: bool
) -> dict[str, Any]:
    """Return the current weather and the daily forecast at the location."""
    params = {
        "latitude": str(location["latitude"]),
        "longitude": str(location["longitude"]),
        "current": CURRENT_VARIABLES,
        "daily": DAILY_VARIABLES,
        "timezone": "auto",
        "forecast_days": str(days),
        **(US_UNITS if us_units else {}),
    }
    status, body = await async_get_json(hass, SERVICE, FORECAST_URL, params)
    _check(status, body)
    try:
        return _read_forecast(body)
    except (KeyError, TypeError, ValueError) as err:
        msg = f"{SERVICE} sent a forecast that could not be read ({err!r})."
        raise ServiceError("BadResponse", msg) from err


def _check(status: int, body: Any) -> None:
    """Refuse an answer that is an error or not what the API sends."""
    if status != 200 or not isinstance(body, dict) or body.get("error"):  # noqa: PLR2004
        reason = body.get("reason") if isinstance(body, dict) else None
        msg = f"{SERVICE} refused the request (HTTP {status}): {reason or 'no reason'}."
        raise ServiceError("ServiceError", msg)


def _read_forecast(body: dict[str, Any]) -> dict[str, Any]:
    """Turn the forecast API's columns into a short answer, with its units."""
    current, units = body["current"], body["current_units"]
    daily = body["daily"]
    # The place's own date: the API answers in its time zone.
    today = date.fromisoformat(str(current["time"])[:10])
    days = [
        compact(
            {
                "date": day_label(date.fromisoformat(day), today),
                "condition": _weather_code(daily["weather_code"][i]),
                "high": daily["temperature_2m_max"][i],
                "low": daily["temperature_2m_min"][i],
                "precipitation": daily["precipitation_sum"][i],
                "precipitation_probability": daily["precipitation_probability_max"][i],
                "max_wind_speed": daily["wind_speed_10m_max"][i],
            }
        )
        for i, day in enumerate(daily["time"])
    ]
    return {
        "local_time": str(current["time"]).replace("T", " "),
        "current": compact(
            {
                "condition": _weather_code(current["weather_code"]),
                "temperature": current["temperature_2m"],
                "feels_like": current["apparent_temperature"],
                "humidity": current["relative_humidity_2m"],
                "precipitation": current["precipitation"],
                "wind_speed": current["wind_speed_10m"],
                "wind_direction": compass(current["wind_direction_10m"]),
            }
        ),
        "daily": days,
        "units": {
            "temperature": units["temperature_2m"],
            "wind_speed": units["wind_speed_10m"],
            "precipitation": units["precipitation"],
            "humidity": "%",
            "precipitation_probability": "%",
        },
    }


def _weather_code(code: Any) -> str | None:
    """Return a WMO weather code in words."""
    if code is None:
        return None
    return WMO_CODES.get(int(code), f"weather code {code}")


def _place_name(location: dict[str, Any]) -> str:
    """Name the place found, so the model can say which one it is."""
    parts = [location.get("name"), location.get("admin1"), location.get("country")]
    names: list[str] = []
    for part in parts:
        if part and part not in names:
            names.append(str(part))
    return ", ".join(names)
