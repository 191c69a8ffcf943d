"""Weather in words: conditions, bearings, and forecast times in local time."""

from homeassistant.util import dt as dt_util

from custom_components.chatterbox.skills.readable import (
    compass,
    condition,
    local_time,
)


def test_weather_words() -> None:
    """Conditions in words, bearings as compass points; the rest as it is."""
    assert condition("partlycloudy") == "partly cloudy"
    assert condition("volcanic-ash") == "volcanic-ash"
    assert condition(None) is None
    assert [compass(b) for b in (0, 44, 180, 350, "NE", None)] == [
        "N",
        "NE",
        "S",
        "N",
        "NE",
        None,
    ]


def test_forecast_times() -> None:
    """Times without a zone are Home Assistant's local time; garbage is None."""
    naive = local_time("2026-05-01T14:00:00")
    assert naive is not None
    assert naive.tzinfo == dt_util.get_default_time_zone()
    assert naive.hour == 14
    utc = local_time("2026-05-01T12:00:00+00:00")
    assert utc == dt_util.as_local(dt_util.parse_datetime("2026-05-01T12:00:00+00:00"))
    assert local_time("soon") is None
