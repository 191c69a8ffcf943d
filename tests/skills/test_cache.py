"""The skills' answer cache: answers expire, and the cache stays bounded."""

from datetime import timedelta

from freezegun.api import FrozenDateTimeFactory

from custom_components.chatterbox.skills.cache import TimedCache


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
