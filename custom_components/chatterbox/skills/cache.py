"""Remember answers of web services for a while, within a bound."""

from datetime import datetime, timedelta

from homeassistant.util import dt as dt_util


class TimedCache[K, V]:
    """Values that expire after a fixed time; the oldest go first when full."""

    def __init__(self, ttl: timedelta, max_entries: int) -> None:
        """Keep each value for ttl, and at most max_entries of them."""
        self.ttl = ttl
        self.max_entries = max_entries
        self._values: dict[K, tuple[datetime, V]] = {}

    def get(self, key: K) -> V | None:
        """Return the value under key while it is fresh, else None."""
        if (stored := self._values.get(key)) is None:
            return None
        stored_at, value = stored
        if dt_util.utcnow() - stored_at >= self.ttl:
            del self._values[key]
            return None
        return value

    def put(self, key: K, value: V) -> None:
        """Store a value, dropping expired ones and then the oldest over the bound."""
        now = dt_util.utcnow()
        self._values = {
            k: (at, v) for k, (at, v) in self._values.items() if now - at < self.ttl
        }
        self._values.pop(key, None)
        self._values[key] = (now, value)
        while len(self._values) > self.max_entries:
            del self._values[next(iter(self._values))]
