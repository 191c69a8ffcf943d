"""Turn Home Assistant's weather values into words a model can say aloud."""

from datetime import date, datetime, timedelta
import math
from typing import Any, Final

from homeassistant.util import dt as dt_util

# Home Assistant's weather conditions, as a person would say them.
CONDITIONS: Final = {
    "clear-night": "clear",
    "cloudy": "cloudy",
    "exceptional": "exceptional weather",
    "fog": "fog",
    "hail": "hail",
    "lightning": "thunderstorms",
    "lightning-rainy": "thunderstorms with rain",
    "partlycloudy": "partly cloudy",
    "pouring": "heavy rain",
    "rainy": "rain",
    "snowy": "snow",
    "snowy-rainy": "sleet",
    "sunny": "sunny",
    "windy": "windy",
    "windy-variant": "windy and cloudy",
}
_COMPASS: Final = (
    "N NNE NE ENE E ESE SE SSE S SSW SW WSW W WNW NW NNW".split()  # noqa: SIM905
)


def condition(value: Any) -> str | None:
    """Return a weather condition in words."""
    if value is None:
        return None
    return CONDITIONS.get(str(value), str(value))


def compass(bearing: Any) -> Any:
    """Return a wind bearing in degrees as a compass point; text stays as it is."""
    if (
        isinstance(bearing, bool)
        or not isinstance(bearing, int | float)
        or (isinstance(bearing, float) and not math.isfinite(bearing))
    ):
        return bearing
    return _COMPASS[round(bearing % 360 / 22.5) % 16]


def local_time(value: Any) -> datetime | None:
    """Read a forecast's ISO time, in Home Assistant's time zone."""
    try:
        if (moment := dt_util.parse_datetime(str(value))) is None:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt_util.get_default_time_zone())
        return dt_util.as_local(moment)
    except ValueError, OverflowError:
        # Well formed yet no date (month 13), or out of range in the local zone.
        return None


def day_label(day: date, today: date) -> str:
    """Return a day as the model should name it: Fri 2026-05-01.

    Today and tomorrow say so ("tomorrow, Sat 2026-05-02"): asked about
    tomorrow with the forecast in hand, small models ask for the date again
    and again to work out which day that is, rather than answer.
    """
    label = day.strftime("%a %Y-%m-%d")
    if day == today:
        return f"today, {label}"
    if day == today + timedelta(days=1):
        return f"tomorrow, {label}"
    return label


def hour_label(moment: datetime) -> str:
    """Return an hour as the model should name it: Fri 14:00."""
    return moment.strftime("%a %H:%M")
