"""The home's weather, as the exposed weather entities have it.

Both weather tools read it: weather_forecast (weather.py) for the weather at
home, and weather_at_place (open_meteo.py) for a place Open-Meteo does not
know, which small models pass for "outside" or "here".
"""

from typing import Any, Final

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.components.weather.const import DOMAIN as WEATHER_DOMAIN
from homeassistant.core import HomeAssistant, State

from .readable import compass, condition
from .skill import compact

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
