"""What a turn's stages read of their agent: here, whether it guides its model."""

import pytest

from homeassistant.const import CONF_MODEL
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.agent.stage import Learned, Stage
from custom_components.chatterbox.agent.turn import Conversations
from custom_components.chatterbox.const import CONF_GUIDE, CONF_MAX_ITERATIONS
from custom_components.chatterbox.context.estimator import TokenEstimator
from custom_components.chatterbox.server.profile import Guide
from tests.helpers.common import AGENT_ENTITY_ID, AGENT_ID, MODELS, set_up
from tests.helpers.llm_server import LLMServer


def _stage(hass: HomeAssistant, entry: MockConfigEntry) -> Stage:
    """Return the stage a turn of the entry's agent gets."""
    return Stage(
        hass,
        AGENT_ENTITY_ID,
        entry,
        entry.subentries[AGENT_ID],
        entry.runtime_data.client,
        Learned(TokenEstimator()),
        Conversations(),
    )


@pytest.mark.parametrize(
    ("agent_data", "guide"),
    [
        # llama.cpp says the 3B has 3.2 billion parameters.
        (
            {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 10},
            Guide(on=True, reason="server_reports_3.2B"),
        ),
        # The server tells nothing of the other: its name says 8B.
        (
            {CONF_MODEL: MODELS[0], CONF_MAX_ITERATIONS: 10},
            Guide(on=False, reason="name_says_8B"),
        ),
        (
            {CONF_MODEL: MODELS[1], CONF_MAX_ITERATIONS: 10, CONF_GUIDE: "off"},
            Guide(on=False, reason="set_off"),
        ),
    ],
)
async def test_the_stage_says_whether_to_guide_the_model(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: LLMServer,
    guide: Guide,
) -> None:
    """The agent's option, the size its server reported, its model's name."""
    llm_server.model_meta = {MODELS[1]: {"n_params": 3_212_749_824}}
    await set_up(hass, config_entry)

    assert _stage(hass, config_entry).guide == guide
