"""Open-Meteo played by a stand-in: a few cities, answered in the real formats.

The weather skill asks Open-Meteo's geocoding API for the place, then its
forecast API for the weather there. The stand-in answers both (through the
test harness's aiohttp mock, for the skill's fixed hosts) for the cities
below, with weather unlike the demo home's, so an answer can only hold the
city's figures if the skill was asked.
"""

from dataclasses import dataclass
import datetime as dt
from typing import Any

from yarl import URL

from pytest_homeassistant_custom_component.test_util.aiohttp import (
    AiohttpClientMocker,
    AiohttpClientMockResponse,
)

GEOCODING_URL = URL("https://geocoding-api.open-meteo.com/v1/search")
FORECAST_URL = URL("https://api.open-meteo.com/v1/forecast")


@dataclass(frozen=True)
class City:
    """A city the stand-in knows, and its weather now and for three days."""

    name: str
    country: str
    latitude: float
    longitude: float
    timezone: str
    now: float  # °C
    feels_like: float
    code: int  # WMO weather code
    highs: tuple[float, float, float]
    lows: tuple[float, float, float]
    codes: tuple[int, int, int]


CITIES = (
    City(
        "Paris",
        "France",
        48.85341,
        2.3488,
        "Europe/Paris",
        now=23.4,
        feels_like=22.8,
        code=0,
        highs=(25.1, 21.0, 19.6),
        lows=(14.2, 13.5, 12.1),
        codes=(0, 3, 61),
    ),
    City(
        "Oslo",
        "Norway",
        59.91273,
        10.74609,
        "Europe/Oslo",
        now=-3.2,
        feels_like=-7.5,
        code=73,
        highs=(-1.0, 0.5, 2.2),
        lows=(-6.1, -4.8, -3.0),
        codes=(73, 71, 3),
    ),
    City(
        "Tokyo",
        "Japan",
        35.6895,
        139.69171,
        "Asia/Tokyo",
        now=27.1,
        feels_like=29.0,
        code=3,
        highs=(29.5, 30.2, 28.8),
        lows=(22.0, 23.1, 22.4),
        codes=(3, 80, 2),
    ),
)


def serve_open_meteo(aioclient_mock: AiohttpClientMocker) -> None:
    """Answer the weather skill's requests for the cities above."""
    aioclient_mock.get(GEOCODING_URL, side_effect=_geocode)
    aioclient_mock.get(FORECAST_URL, side_effect=_forecast)


def _city(name: str) -> City | None:
    """Find a city by the name asked for."""
    wanted = name.split(",", maxsplit=1)[0].strip().casefold()
    return next((c for c in CITIES if c.name.casefold() == wanted), None)


async def _geocode(_method: str, url: URL, _data: Any) -> AiohttpClientMockResponse:
    """Answer like the geocoding API: the best match, or no "results" at all."""
    city = _city(url.query.get("name", ""))
    body: dict[str, Any] = {"generationtime_ms": 0.5}
    if city is not None:
        body["results"] = [
            {
                "id": 1000 + CITIES.index(city),
                "name": city.name,
                "latitude": city.latitude,
                "longitude": city.longitude,
                "country": city.country,
                "timezone": city.timezone,
                "feature_code": "PPLC",
            }
        ]
    return AiohttpClientMockResponse("GET", url, json=body)


async def _forecast(_method: str, url: URL, _data: Any) -> AiohttpClientMockResponse:
    """Answer like the forecast API for the city at the coordinates asked for."""
    latitude = float(url.query.get("latitude", "nan"))
    city = next((c for c in CITIES if abs(c.latitude - latitude) < 0.01), None)
    if city is None:
        return AiohttpClientMockResponse(
            "GET", url, status=400, json={"error": True, "reason": "unknown place"}
        )
    today = dt.datetime.now(dt.UTC).date()
    days = [(today + dt.timedelta(days=n)).isoformat() for n in range(3)]
    body = {
        "latitude": city.latitude,
        "longitude": city.longitude,
        "timezone": city.timezone,
        "current_units": {
            "time": "iso8601",
            "temperature_2m": "°C",
            "apparent_temperature": "°C",
            "relative_humidity_2m": "%",
            "precipitation": "mm",
            "weather_code": "wmo code",
            "wind_speed_10m": "km/h",
            "wind_direction_10m": "°",
        },
        "current": {
            "time": f"{days[0]}T12:00",
            "temperature_2m": city.now,
            "apparent_temperature": city.feels_like,
            "relative_humidity_2m": 60,
            "precipitation": 0.0,
            "weather_code": city.code,
            "wind_speed_10m": 11.0,
            "wind_direction_10m": 250,
        },
        "daily": {
            "time": days,
            "weather_code": list(city.codes),
            "temperature_2m_max": list(city.highs),
            "temperature_2m_min": list(city.lows),
            "precipitation_sum": [0.0, 0.4, 3.1],
            "precipitation_probability_max": [5, 30, 70],
            "wind_speed_10m_max": [14.0, 20.5, 25.0],
        },
    }
    return AiohttpClientMockResponse("GET", url, json=body)
