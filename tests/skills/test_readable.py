"""The skills' small helpers: the answer cache and the weather words."""

from datetime import timedelta

from freezegun.api import FrozenDateTimeFactory

from homeassistant.util import dt as dt_util

from custom_components.chatterbox.skills.cache import TimedCache
from custom_components.chatterbox.skills.readable import (
    compass,
    condition,
    local_time,
)


def test_cache_expires_and_stays_bounded(freezer: FrozenDateTimeFactory) -> None:
    """Values expire after their time; over the bound, the oldest go first."""
    cache: TimedCache[str, int] = TimedCache(timedelta(minutes=10), max_entries=2)
    cache.put("paris", 1)
    freezer.tick(timedelta(minutes=5))
    cache.put("rome", 2)
    cache.put("oslo", 3)

    assert cache.get("paris") is None
    assert (cache.get("rome"), cache.get("oslo")) == (2, 3)

    freezer.tick(timedelta(minutes=10))
    assert cache.get("rome") is None
    cache.put("lima", 4)
    assert cache.get("lima") == 4
    assert cache.get("oslo") is None


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
