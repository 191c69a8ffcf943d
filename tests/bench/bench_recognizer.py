"""What asking Home Assistant's sentences costs a turn, at 50 and 1,000 entities.

Run it apart from scripts/bench, which it does not slow down:

    .venv/bin/python -m pytest tests/bench/bench_recognizer.py -p no:cacheprovider -q -s

A pytest module for the test harness's real Home Assistant; its name keeps it
out of the test suite. Every figure is the time of one call to
tools/intents.py's async_recognize, as a turn makes it: the first call in a
home (the language's sentences, loaded and compiled in the executor, and the
lists of names built on the event loop), the first after the home changed (the
lists built again), then warm calls with words not said before, and one said
again (the default agent's own cache).
"""

import asyncio
from collections.abc import Iterator
from itertools import cycle, islice
import statistics
import sys
import time

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from custom_components.chatterbox.tools.intents import async_recognize

from .home import add_plugs, async_build_home

SIZES = (50, 1000)
WARM_CALLS = 60
CONTEXT = llm.LLMContext(
    platform="chatterbox",
    context=None,
    language="en",
    assistant=conversation.DOMAIN,
    device_id=None,
)


def _sentences(hass: HomeAssistant) -> Iterator[str]:
    """Yield questions, commands and small talk, none said twice."""
    names = cycle(s.name for s in hass.states.async_all(("input_boolean", "switch")))
    for number in range(10**6):
        name = next(names)
        yield from (
            f"Is the {name} on?",
            f"Turn off the {name}",
            f"Tell me a story about {number} dragons",
        )


async def _ms(hass: HomeAssistant, text: str) -> float:
    """Return how long one call took, in milliseconds."""
    started = time.perf_counter()
    await async_recognize(hass, text, CONTEXT)
    return (time.perf_counter() - started) * 1000


async def _held_ms(hass: HomeAssistant, text: str) -> float:
    """Return the longest the call held the event loop, in milliseconds.

    A ticker that yields to the loop again and again sees each stretch in
    which the call's parts on the loop held it. It competes with the executor
    for the interpreter, so the call's own time is taken without it.
    """
    done = asyncio.Event()
    hold = 0.0

    async def tick() -> None:
        nonlocal hold
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0)
            now = time.perf_counter()
            hold, last = max(hold, now - last), now

    ticker = asyncio.create_task(tick())
    await async_recognize(hass, text, CONTEXT)
    done.set()
    await ticker
    return hold * 1000


async def test_recognizer_cost(hass: HomeAssistant) -> None:
    """Time the recognizer in a home of 50 entities, then of 1,000."""
    asyncio.get_running_loop().set_debug(False)
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, conversation.DOMAIN, {})
    await async_build_home(hass, SIZES[0])
    lines = [
        "| Exposed entities | Call | ms | longest hold of the loop, ms |",
        "| ---: | --- | ---: | ---: |",
    ]
    for size in SIZES:
        add_plugs(hass, size)
        await hass.async_block_till_done()
        said = _sentences(hass)
        first = (
            "first of the language: sentences loaded and compiled"
            if size == SIZES[0]
            else "first after the home changed: names listed again"
        )
        # The loop's hold of a first call is seen on one of its own: a home
        # changed once more, names listed again.
        took = await _ms(hass, next(said))
        add_plugs(hass, size + 1)
        await hass.async_block_till_done()
        held = await _held_ms(hass, next(said))
        lines.append(f"| {size} | {first} | {took:.2f} | {held:.2f} |")
        warm = [await _ms(hass, text) for text in islice(said, WARM_CALLS)]
        held = max([await _held_ms(hass, text) for text in islice(said, 10)])
        lines.append(
            f"| {size} | warm, new words (median of {WARM_CALLS}; slowest) | "
            f"{statistics.median(warm):.2f}; {max(warm):.2f} | {held:.2f} |"
        )
        again = "Is the Kitchen light on?"
        await async_recognize(hass, again, CONTEXT)
        took = await _ms(hass, again)
        held = await _held_ms(hass, again)
        lines.append(f"| {size} | the same words again | {took:.2f} | {held:.2f} |")
        assert len(hass.states.async_all()) >= size
    lines += [
        "",
        (
            "The loop's hold of a first call is taken on the home changed once more "
            "(names listed again): a language loads once. Warm, the hold is the "
            "interpreter shared with the executor's matching, not work on the loop."
        ),
    ]
    sys.stdout.write("\n" + "\n".join(lines) + "\n")
