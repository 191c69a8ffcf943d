"""Fixtures shared by the tests: a real Home Assistant, a scripted LLM server."""

import pytest

# Import the integration before the hass fixture runs: the test plugin puts its
# own testing package under the name custom_components, and the loader must find
# ours instead.
import custom_components.chatterbox  # noqa: F401


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Let Home Assistant load custom integrations in every test."""
