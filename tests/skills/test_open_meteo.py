"""The weather at a named place, from Open-Meteo (replaced by aioclient_mock)."""

from datetime import timedelta
from http import HTTPStatus
from typing import Any

import aiohttp
from freezegun.api import FrozenDateTimeFactory
import pytest

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL
from homeassistant.core import HomeAssistant
from homeassistant.util.unit_system import US_CUSTOMARY_SYSTEM
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from tests.helpers.common import MODELS
from tests.helpers.llm_server import LLMServer
from tests.helpers.skills import call_tool

PLACE = "chatterbox__weather_at_place"
GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"

# What the geocoding API answers for ?name=Paris&count=1&language=en&format=json.
PARIS = {
    "results": [
        {
            "id": 2988507,
            "name": "Paris",
            "latitude": 48.85341,
            "longitude": 2.3488,
            "elevation": 42.0,
            "feature_code": "PPLC",
            "country_code": "FR",
            "admin1_id": 3012874,
            "admin2_id": 2968815,
            "timezone": "Europe/Paris",
            "population": 2138551,
            "postcodes": ["75001", "75020"],
            "country_id": 3017382,
            "country": "France",
            "admin1": "Île-de-France",
            "admin2": "Paris",
        }
    ],
    "generationtime_ms": 0.8,
}
PARIS_AT = {"latitude": "48.85341", "longitude": "2.3488"}
# A name the geocoder does not know: no "results" key at all.
NOTHING = {"generationtime_ms": 0.4}


def _forecast(*, us_units: bool = False) -> dict[str, Any]:
    """Answer like the forecast API for Paris, 3 days, in either unit set."""
    temperature, speed, rain = (
        ("°F", "mph", "inch") if us_units else ("°C", "km/h", "mm")
    )
    if us_units:
        now = (66.7, 64.6, 7.0, 0.0)
        days = ([70.5, 64.2, 66.2], [50.4, 52.7, 49.6], [0.0, 0.248, 0.008])
        wind = [9.4, 15.4, 7.5]
        # Beyond a weather model's range, Open-Meteo sends null.
        codes, chances = [2, 61, None], [5, 85, None]
    else:
        now = (19.3, 18.1, 11.2, 0.0)
        days = ([21.4, 17.9, 19.0], [10.2, 11.5, 9.8], [0.0, 6.3, 0.2])
        wind = [15.1, 24.8, 12.0]
        codes, chances = [2, 61, 3], [5, 85, 20]
    return {
        "latitude": 48.86,
        "longitude": 2.3399997,
        "generationtime_ms": 0.12,
        "utc_offset_seconds": 7200,
        "timezone": "Europe/Paris",
        "timezone_abbreviation": "GMT+2",
        "elevation": 43.0,
        "current_units": {
            "time": "iso8601",
            "interval": "seconds",
            "temperature_2m": temperature,
            "apparent_temperature": temperature,
            "relative_humidity_2m": "%",
            "precipitation": rain,
            "weather_code": "wmo code",
            "wind_speed_10m": speed,
            "wind_direction_10m": "°",
        },
        "current": {
            "time": "2026-05-01T14:15",
            "interval": 900,
            "temperature_2m": now[0],
            "apparent_temperature": now[1],
            "relative_humidity_2m": 52,
            "precipitation": now[3],
            "weather_code": 2,
            "wind_speed_10m": now[2],
            "wind_direction_10m": 245,
        },
        "daily_units": {
            "time": "iso8601",
            "weather_code": "wmo code",
            "temperature_2m_max": temperature,
            "temperature_2m_min": temperature,
            "precipitation_sum": rain,
            "precipitation_probability_max": "%",
            "wind_speed_10m_max": speed,
        },
        "daily": {
            "time": ["2026-05-01", "2026-05-02", "2026-05-03"],
            "weather_code": codes,
            "temperature_2m_max": days[0],
            "temperature_2m_min": days[1],
            "precipitation_sum": days[2],
            "precipitation_probability_max": chances,
            "wind_speed_10m_max": wind,
        },
    }


@pytest.fixture
def agent_data() -> dict[str, object]:
    """Give the agent the weather skill only."""
    return {CONF_MODEL: MODELS[0], CONF_LLM_HASS_API: ["chatterbox_weather"]}


def _queries(aioclient_mock: AiohttpClientMocker) -> list[tuple[str, dict[str, str]]]:
    """Return the hosts asked and their query parameters, in order."""
    return [
        (str(url.host), dict(url.query))
        for _method, url, _data, _h in aioclient_mock.mock_calls
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_known_place(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """Weather in Paris: geocoded, then its forecast, in metric units, named."""
    aioclient_mock.get(GEOCODING_URL, params={"name": "Paris"}, json=PARIS)
    aioclient_mock.get(FORECAST_URL, params=PARIS_AT, json=_forecast())

    result = await call_tool(
        hass, llm_server, "What's the weather in Paris?", PLACE, {"place": "Paris"}
    )

    assert result["error"] is False
    assert result["data"] == {
        "place": "Paris, Île-de-France, France",
        "local_time": "2026-05-01 14:15",
        "current": {
            "condition": "partly cloudy",
            "temperature": 19.3,
            "feels_like": 18.1,
            "humidity": 52,
            "precipitation": 0.0,
            "wind_speed": 11.2,
            "wind_direction": "WSW",
        },
        # Today and tomorrow are the place's own, by its local time.
        "daily": [
            {
                "date": "today, Fri 2026-05-01",
                "condition": "partly cloudy",
                "high": 21.4,
                "low": 10.2,
                "precipitation": 0.0,
                "precipitation_probability": 5,
                "max_wind_speed": 15.1,
            },
            {
                "date": "tomorrow, Sat 2026-05-02",
                "condition": "light rain",
                "high": 17.9,
                "low": 11.5,
                "precipitation": 6.3,
                "precipitation_probability": 85,
                "max_wind_speed": 24.8,
            },
            {
                "date": "Sun 2026-05-03",
                "condition": "overcast",
                "high": 19.0,
                "low": 9.8,
                "precipitation": 0.2,
                "precipitation_probability": 20,
                "max_wind_speed": 12.0,
            },
        ],
        "units": {
            "temperature": "°C",
            "wind_speed": "km/h",
            "precipitation": "mm",
            "humidity": "%",
            "precipitation_probability": "%",
        },
        "source": "Open-Meteo",
    }
    (geocoding_host, geocoding), (forecast_host, forecast) = _queries(aioclient_mock)
    assert geocoding_host == "geocoding-api.open-meteo.com"
    assert geocoding == {
        "name": "Paris",
        "count": "1",
        "language": "en",
        "format": "json",
    }
    assert forecast_host == "api.open-meteo.com"
    assert forecast["forecast_days"] == "3"
    assert forecast["timezone"] == "auto"
    # Metric is Open-Meteo's default: no unit is asked for.
    assert not {"temperature_unit", "wind_speed_unit", "precipitation_unit"} & set(
        forecast
    )


@pytest.mark.usefixtures("loaded_entry")
async def test_known_place_in_us_units_and_the_users_language(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """With US customary units, Open-Meteo is asked for °F, mph and inches."""
    hass.config.units = US_CUSTOMARY_SYSTEM
    aioclient_mock.get(
        GEOCODING_URL, params={"name": "Paris", "language": "fr"}, json=PARIS
    )
    us_units = {
        "temperature_unit": "fahrenheit",
        "wind_speed_unit": "mph",
        "precipitation_unit": "inch",
    }
    aioclient_mock.get(
        FORECAST_URL,
        params={**PARIS_AT, **us_units, "forecast_days": "2"},
        json=_forecast(us_units=True),
    )

    result = await call_tool(
        hass,
        llm_server,
        "Quel temps fait-il à Paris ?",
        PLACE,
        {"place": "Paris", "days": 2},
        language="fr-FR",
    )

    data = result["data"]
    assert data["current"]["temperature"] == 66.7
    assert data["current"]["wind_speed"] == 7.0
    assert data["units"]["temperature"] == "°F"
    assert data["units"]["wind_speed"] == "mph"
    assert data["units"]["precipitation"] == "inch"
    assert data["daily"][1]["precipitation"] == 0.248
    # What Open-Meteo does not know (null) is left out, not said as "None".
    assert data["daily"][2] == {
        "date": "Sun 2026-05-03",
        "high": 66.2,
        "low": 49.6,
        "precipitation": 0.008,
        "max_wind_speed": 7.5,
    }
    assert aioclient_mock.call_count == 2


@pytest.mark.usefixtures("loaded_entry")
async def test_unknown_place(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """A place nobody knows: the model hears which name was not found."""
    aioclient_mock.get(GEOCODING_URL, json=NOTHING)

    result = await call_tool(
        hass, llm_server, "Weather in Xyzzyville?", PLACE, {"place": "Xyzzyville"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == "UnknownPlace"
    assert "'Xyzzyville'" in result["data"]["error_text"]
    assert "weather_forecast" not in result["data"]["error_text"]
    # No forecast is asked for a place that was not found.
    assert aioclient_mock.call_count == 1


@pytest.mark.usefixtures("loaded_entry")
async def test_here_is_no_place_but_the_homes_weather_comes_with_the_error(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """The model asks Open-Meteo for "outside": it reads the home's weather.

    The error says whose weather it is, and that it is no other place's.
    """
    hass.states.async_set(
        "weather.home",
        "partlycloudy",
        {"friendly_name": "Home", "temperature": 14, "temperature_unit": "°C"},
    )
    async_expose_entity(hass, conversation.DOMAIN, "weather.home", should_expose=True)
    aioclient_mock.get(GEOCODING_URL, json=NOTHING)

    result = await call_tool(
        hass, llm_server, "What's it like outside?", PLACE, {"place": "outside"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == "UnknownPlace"
    assert (
        "home_weather is it, from Home; it is no other place's"
        in (result["data"]["error_text"])
    )
    assert result["data"]["home_weather"]["current"] == {
        "condition": "partly cloudy",
        "temperature": 14,
    }
    assert result["data"]["home_weather"]["units"]["temperature"] == "°C"


@pytest.mark.usefixtures("loaded_entry")
async def test_town_and_region(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """Springfield, Illinois: the town is looked up alone, the region picks one.

    A region none of the towns lies in finds nothing.
    """
    springfields = {
        "results": [
            {
                "id": 4409896,
                "name": "Springfield",
                "latitude": 37.21533,
                "longitude": -93.29824,
                "country_code": "US",
                "country": "United States",
                "admin1": "Missouri",
            },
            {
                "id": 4250542,
                "name": "Springfield",
                "latitude": 39.80172,
                "longitude": -89.64371,
                "country_code": "US",
                "country": "United States",
                "admin1": "Illinois",
            },
        ],
        "generationtime_ms": 1.1,
    }
    for unknown in ("Springfield, Illinois", "Springfield, Atlantis"):
        aioclient_mock.get(GEOCODING_URL, params={"name": unknown}, json=NOTHING)
    aioclient_mock.get(
        GEOCODING_URL, params={"name": "Springfield", "count": "10"}, json=springfields
    )
    aioclient_mock.get(
        FORECAST_URL,
        params={"latitude": "39.80172", "longitude": "-89.64371"},
        json=_forecast(),
    )

    result = await call_tool(
        hass,
        llm_server,
        "Weather in Springfield, Illinois?",
        PLACE,
        {"place": "Springfield,  Illinois"},
    )

    assert result["data"]["place"] == "Springfield, Illinois, United States"
    assert aioclient_mock.call_count == 3

    unmatched = await call_tool(
        hass,
        llm_server,
        "Weather in Springfield, Atlantis?",
        PLACE,
        {"place": "Springfield, Atlantis"},
    )

    assert unmatched["data"]["error"] == "UnknownPlace"


@pytest.mark.parametrize(
    ("geocoding", "forecast", "kind", "says"),
    [
        (
            {"status": HTTPStatus.SERVICE_UNAVAILABLE, "text": "upstream down"},
            None,
            "ServiceUnavailable",
            "Open-Meteo is not available right now (HTTP 503)",
        ),
        (
            {"json": PARIS},
            {"status": HTTPStatus.INTERNAL_SERVER_ERROR, "text": "oops"},
            "ServiceUnavailable",
            "(HTTP 500)",
        ),
        (
            {"exc": aiohttp.ClientConnectionError("Connection refused")},
            None,
            "ServiceUnavailable",
            "Open-Meteo could not be reached (Connection refused)",
        ),
        (
            {"exc": TimeoutError()},
            None,
            "Timeout",
            "Open-Meteo did not answer within 8 seconds",
        ),
        (
            {"json": PARIS},
            {
                "status": HTTPStatus.BAD_REQUEST,
                "json": {"error": True, "reason": "Latitude must be in range"},
            },
            "ServiceError",
            "refused the request (HTTP 400): Latitude must be in range",
        ),
        (
            {"json": PARIS},
            {"json": {"latitude": 48.86, "longitude": 2.34}},
            "BadResponse",
            "sent a forecast that could not be read",
        ),
    ],
    ids=["down", "forecast_down", "unreachable", "timeout", "refused", "garbled"],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_service_failures(
    hass: HomeAssistant,
    llm_server: LLMServer,
    aioclient_mock: AiohttpClientMocker,
    caplog: pytest.LogCaptureFixture,
    geocoding: dict[str, Any],
    forecast: dict[str, Any] | None,
    kind: str,
    says: str,
) -> None:
    """Open-Meteo down, slow or garbled: the model reads what went wrong."""
    aioclient_mock.get(GEOCODING_URL, **geocoding)
    if forecast is not None:
        aioclient_mock.get(FORECAST_URL, **forecast)

    result = await call_tool(
        hass, llm_server, "Weather in Paris?", PLACE, {"place": "Paris"}
    )

    assert result["error"] is True
    assert result["data"]["error"] == kind
    assert says in result["data"]["error_text"]
    if kind not in {"ServiceError", "BadResponse"}:
        assert "Open-Meteo" in caplog.text


@pytest.mark.usefixtures("loaded_entry")
async def test_answers_are_cached_for_ten_minutes(
    hass: HomeAssistant,
    llm_server: LLMServer,
    aioclient_mock: AiohttpClientMocker,
    freezer: FrozenDateTimeFactory,
) -> None:
    """Asked again within 10 minutes, the same answer comes without a request."""
    aioclient_mock.get(GEOCODING_URL, json=PARIS)
    aioclient_mock.get(FORECAST_URL, json=_forecast())
    question = "What's the weather in Paris?"

    first = await call_tool(hass, llm_server, question, PLACE, {"place": "Paris"})
    freezer.tick(timedelta(minutes=9))
    again = await call_tool(hass, llm_server, question, PLACE, {"place": " paris "})

    assert again == first
    assert aioclient_mock.call_count == 2

    freezer.tick(timedelta(minutes=2))
    later = await call_tool(hass, llm_server, question, PLACE, {"place": "Paris"})

    assert later == first
    assert aioclient_mock.call_count == 4


@pytest.mark.usefixtures("loaded_entry")
async def test_failures_are_not_cached(
    hass: HomeAssistant, llm_server: LLMServer, aioclient_mock: AiohttpClientMocker
) -> None:
    """After the service failed, the next question asks it again."""
    aioclient_mock.get(GEOCODING_URL, status=HTTPStatus.BAD_GATEWAY)
    failed = await call_tool(hass, llm_server, "Paris?", PLACE, {"place": "Paris"})
    aioclient_mock.clear_requests()
    aioclient_mock.get(GEOCODING_URL, json=PARIS)
    aioclient_mock.get(FORECAST_URL, json=_forecast())

    answered = await call_tool(hass, llm_server, "Paris?", PLACE, {"place": "Paris"})

    assert failed["error"] is True
    assert answered["data"]["place"] == "Paris, Île-de-France, France"
