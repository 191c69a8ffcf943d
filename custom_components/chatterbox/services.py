"""The integration's actions."""

from typing import Final

import probatio

from homeassistant.components.conversation import DOMAIN as CONVERSATION_DOMAIN
from homeassistant.const import ATTR_DEVICE_ID, ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant, ServiceCall, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import config_validation as cv, entity_registry as er
from homeassistant.helpers.service import async_register_admin_service

from .const import DOMAIN
from .context.memory import async_get_memory_store

SERVICE_FORGET: Final = "forget"
ATTR_USER_ID: Final = "user_id"

FORGET_SCHEMA: Final = probatio.Schema(
    {
        probatio.Required(ATTR_ENTITY_ID): cv.entity_id,
        probatio.Optional(ATTR_DEVICE_ID): cv.string,
        probatio.Optional(ATTR_USER_ID): cv.string,
    }
)


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register chatterbox.forget."""

    async def async_forget(call: ServiceCall) -> None:
        """Forget what an agent remembers of a device, a user, or everyone."""
        entity_id: str = call.data[ATTR_ENTITY_ID]
        registry_entry = er.async_get(hass).async_get(entity_id)
        if (
            registry_entry is None
            or registry_entry.platform != DOMAIN
            or registry_entry.domain != CONVERSATION_DOMAIN
            or registry_entry.unique_id is None
        ):
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="not_an_agent",
                translation_placeholders={"entity_id": entity_id},
            )
        store = await async_get_memory_store(hass)
        store.forget(
            registry_entry.unique_id,
            device_id=call.data.get(ATTR_DEVICE_ID),
            user_id=call.data.get(ATTR_USER_ID),
        )

    # Any memory may be forgotten, so only an administrator (or an
    # automation, which acts for nobody) may call it.
    async_register_admin_service(
        hass, DOMAIN, SERVICE_FORGET, async_forget, schema=FORGET_SCHEMA
    )
