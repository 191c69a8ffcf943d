"""The capable-model corpus plays every story in both tool modes."""

import pytest

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from tests.helpers.capable import MODES, Story
from tests.helpers.capable_home import build_home


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> str:
    """Return the tool mode: calls as the server's own, or written as text."""
    return str(request.param)


@pytest.fixture
def agent_data(mode: str) -> dict[str, object]:
    """Return the agent a capable model runs behind, in the tool mode."""
    return dict(MODES[mode])


@pytest.fixture
async def home(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, story: Story
) -> list[str]:
    """Build the home in the story's language; return its devices' ids."""
    return await build_home(hass, story.language)
