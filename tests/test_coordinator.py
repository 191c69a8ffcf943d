"""A server that goes away: the agents go unavailable, and come back with it."""

from datetime import timedelta
import time

from freezegun.api import FrozenDateTimeFactory
import pytest

from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.chatterbox.const import DOMAIN
from tests.helpers.common import AGENT_ENTITY_ID, ask
from tests.helpers.faults import count_logged, server_goes_away
from tests.helpers.llm_server import LLMServer, Text

UNAVAILABLE_LOG = "is unavailable"
RECOVERED_LOG = "data recovered"


async def _tick(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, **by: float
) -> None:
    """Let time pass, and the checks that come due run.

    A second more than asked: the coordinator spreads its checks by up to one.
    """
    freezer.tick(timedelta(**by, seconds=1))
    async_fire_time_changed(hass)
    # A check resolves the address in a thread, which block_till_done does not
    # wait for, and the frozen clock stops asyncio.sleep: wait in a thread.
    for _ in range(5):
        await hass.async_block_till_done()
        await hass.async_add_executor_job(time.sleep, 0.02)


@pytest.mark.usefixtures("loaded_entry")
async def test_the_agent_goes_unavailable_and_comes_back(
    hass: HomeAssistant,
    llm_server: LLMServer,
    caplog: pytest.LogCaptureFixture,
    freezer: FrozenDateTimeFactory,
) -> None:
    """Unreachable: unavailable, logged once; back: available, logged once."""
    port = await server_goes_away(hass, llm_server)

    assert hass.states.get(AGENT_ENTITY_ID).state == STATE_UNAVAILABLE
    # Another turn tries the server again, which still refuses.
    failed_requests = count_logged(caplog, "Request to")
    result = await ask(hass, "Are you there?")
    assert result.response.speech["plain"]["speech"] == (
        "I can't reach the language model server right now"
    )
    assert count_logged(caplog, "Request to") == failed_requests + 1
    # The checks every minute keep failing, quietly.
    for _ in range(3):
        await _tick(hass, freezer, minutes=1)
    assert hass.states.get(AGENT_ENTITY_ID).state == STATE_UNAVAILABLE

    await llm_server.start(port)
    await _tick(hass, freezer, minutes=1)

    assert hass.states.get(AGENT_ENTITY_ID).state != STATE_UNAVAILABLE
    assert count_logged(caplog, UNAVAILABLE_LOG) == 1
    assert count_logged(caplog, RECOVERED_LOG) == 1
    assert "Error fetching" not in caplog.text
    llm_server.reply(Text("Yes, I'm back."))
    result = await ask(hass, "Are you there?")
    assert result.response.speech["plain"]["speech"] == "Yes, I'm back."
    # Once back, nothing is polled.
    models_asked = len(llm_server.requests)
    await _tick(hass, freezer, minutes=10)
    assert len(llm_server.requests) == models_asked


@pytest.mark.usefixtures("loaded_entry")
async def test_a_day_without_the_server_raises_a_repair(
    hass: HomeAssistant, llm_server: LLMServer, freezer: FrozenDateTimeFactory
) -> None:
    """After 24 hours unreachable a repair says so; it goes when the server is back."""
    url = llm_server.url
    port = await server_goes_away(hass, llm_server)
    issues = ir.async_get(hass)

    await _tick(hass, freezer, hours=23)
    assert not [i for i in issues.issues.values() if i.domain == DOMAIN]

    await _tick(hass, freezer, hours=1, minutes=1)
    (issue,) = [i for i in issues.issues.values() if i.domain == DOMAIN]
    assert issue.translation_key == "server_unreachable"
    assert issue.translation_placeholders["url"] == url

    await llm_server.start(port)
    await _tick(hass, freezer, minutes=1)
    assert not [i for i in issues.issues.values() if i.domain == DOMAIN]
