"""Whether the server answers: learned from real traffic, checked while it is down.

Nothing is polled while the server answers. A turn that cannot reach it marks
the agents unavailable (logged once); a light check then lists the models every
minute until the server answers again (logged once), and every turn meanwhile
tries the server itself, so the first one after it is back brings the agents
back. After a day without an answer, a repair issue says so.
"""

from datetime import datetime, timedelta
from typing import Final, override

import openai

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_URL
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed
from homeassistant.util import dt as dt_util

from .const import DOMAIN, LOGGER
from .server.client import (
    Failure,
    async_list_models,
    classify,
    describe,
    without_credentials,
)

CHECK_INTERVAL: Final = timedelta(minutes=1)
UNREACHABLE_REPAIR_AFTER: Final = timedelta(hours=24)


def unreachable_issue_id(entry_id: str) -> str:
    """Return the id of the repair issue about a server that stopped answering."""
    return f"server_unreachable_{entry_id}"


class ChatterboxCoordinator(DataUpdateCoordinator[list[str]]):
    """The server's model list, refreshed only while the server is unavailable."""

    config_entry: ConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: ConfigEntry,
        client: openai.AsyncOpenAI,
        models: list[str],
    ) -> None:
        """Start as available, with the models setup listed."""
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=entry.title,
            update_interval=None,
            always_update=False,
        )
        self.client = client
        self.data = models
        self.unavailable_since: datetime | None = None

    @override
    async def _async_update_data(self) -> list[str]:
        """List the models: the light check that tells the server is back."""
        try:
            models = await async_list_models(self.client)
        except openai.OpenAIError as err:
            if classify(err) is Failure.AUTH:
                raise ConfigEntryAuthFailed(
                    translation_domain=DOMAIN, translation_key="auth_failed"
                ) from None
            self._raise_repair_if_long()
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key="server_unavailable",
                translation_placeholders={
                    "url": without_credentials(self.config_entry.data[CONF_URL]),
                    "error": describe(err, self.config_entry.data.get("api_key")),
                },
            ) from None
        self._recovered()
        return models

    @callback
    def async_mark_unreachable(self, err: BaseException) -> None:
        """Take the agents offline after a request could not reach the server."""
        if not self.last_update_success:
            return
        LOGGER.warning(
            "%s is unavailable: %s",
            without_credentials(self.config_entry.data[CONF_URL]),
            describe(err, self.config_entry.data.get("api_key")),
        )
        self.last_update_success = False
        self.unavailable_since = dt_util.utcnow()
        self.update_interval = CHECK_INTERVAL
        self.async_update_listeners()
        if not self.hass.is_stopping:
            self._schedule_refresh()

    @callback
    def async_mark_reachable(self) -> None:
        """Bring the agents back after a turn reached the server while it was down.

        The turn is the proof: the check every minute need not confirm it.
        """
        if self.last_update_success:
            return
        LOGGER.info(
            "%s answers again", without_credentials(self.config_entry.data[CONF_URL])
        )
        self._recovered()
        self.async_set_updated_data(self.data)

    def _recovered(self) -> None:
        """Stop checking, and withdraw the repair about a silent server."""
        self.update_interval = None
        self.unavailable_since = None
        ir.async_delete_issue(
            self.hass, DOMAIN, unreachable_issue_id(self.config_entry.entry_id)
        )

    def _raise_repair_if_long(self) -> None:
        """Raise the repair once the server has not answered for a day."""
        since = self.unavailable_since
        if since is None or dt_util.utcnow() - since < UNREACHABLE_REPAIR_AFTER:
            return
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            unreachable_issue_id(self.config_entry.entry_id),
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key="server_unreachable",
            translation_placeholders={
                "url": without_credentials(self.config_entry.data[CONF_URL]),
                "since": since.isoformat(timespec="minutes"),
            },
        )
