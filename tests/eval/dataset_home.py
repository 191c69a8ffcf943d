"""A dataset's synthetic home, built inside the test harness's Home Assistant.

Each fixture entity becomes a real entity of a test-only integration
(`eval_home`), one platform per domain, with the fixture's entity_id, name,
area, device, state and attributes, exposed to Assist; the entities are those
of dataset_entities.py. A domain with no entity class there is skipped and
listed.
"""

from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import HANDLERS, ConfigEntry, ConfigFlow
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_integration,
    mock_platform,
)

from .dataset import Expected, Home, flat
from .dataset_entities import CLASSES, DOMAIN, HomeEntity


@dataclass
class BuiltHome:
    """A home as built: its entry, entities, and what it could not build."""

    entry: ConfigEntry
    entity_ids: tuple[str, ...]
    skipped: tuple[str, ...]
    areas: tuple[str, ...] = ()  # the area ids this home created
    entities: dict[str, HomeEntity] = field(default_factory=dict, repr=False)


class HomeFlow(ConfigFlow):
    """The integration's config flow, which Home Assistant asks for; never run."""


async def _async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    domains = list(hass.data[DOMAIN][entry.entry_id])
    await hass.config_entries.async_forward_entry_setups(entry, domains)
    return True


async def _async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    domains = list(hass.data[DOMAIN][entry.entry_id])
    return await hass.config_entries.async_unload_platforms(entry, domains)


async def _async_add(
    domain: str,
    hass: HomeAssistant,
    entry: ConfigEntry,
    add: AddConfigEntryEntitiesCallback,
) -> None:
    add(hass.data[DOMAIN][entry.entry_id][domain])


async def async_build_home(hass: HomeAssistant, home: Home) -> BuiltHome:
    """Build the home: areas, devices and entities, every entity exposed."""
    assert await async_setup_component(hass, "homeassistant", {})
    module = MockModule(
        DOMAIN,
        async_setup_entry=_async_setup_entry,
        async_unload_entry=_async_unload_entry,
    )
    # A custom integration may answer its setup True on every version; Home
    # Assistant 2026.11 wants None of a core one, where 2026.10 wants a boolean.
    mock_integration(hass, module, built_in=False)
    mock_platform(hass, f"{DOMAIN}.config_flow", built_in=False)
    HANDLERS[DOMAIN] = HomeFlow
    for domain in CLASSES:
        platform = MockPlatform(async_setup_entry=partial(_async_add, domain))
        mock_platform(hass, f"{DOMAIN}.{domain}", platform, built_in=False)
    entry = MockConfigEntry(domain=DOMAIN, title=home.name)
    entry.add_to_hass(hass)
    area_ids, created = _areas(hass, home)
    devices = _devices(hass, home, entry, area_ids)

    by_domain: dict[str, list[HomeEntity]] = {}
    built: dict[str, HomeEntity] = {}
    skipped = []
    for fixture in home.entities:
        kind = CLASSES.get(fixture.domain)
        if kind is None or fixture.entity_id in built:
            skipped.append(fixture.entity_id)
            continue
        device = devices.get(fixture.device or "")
        entity = kind(fixture, f"{entry.entry_id}-{fixture.entity_id}", device)
        built[fixture.entity_id] = entity
        by_domain.setdefault(fixture.domain, []).append(entity)
    hass.data.setdefault(DOMAIN, {})[entry.entry_id] = by_domain
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    registry = er.async_get(hass)
    device_areas = {d.id: area_ids.get(d.area or "") for d in home.devices}
    for fixture in home.entities:
        if (entity := built.get(fixture.entity_id)) is None:
            continue
        if entity.entity_id != fixture.entity_id or not entity.registry_entry:
            msg = f"{fixture.entity_id} was built as {entity.entity_id}"
            raise RuntimeError(msg)
        area_id = area_ids.get(fixture.area or "")
        if area_id is not None and area_id != device_areas.get(fixture.device or ""):
            # Home Assistant refuses an area of its own to an entity named as
            # its device: such an entity stays in its device's area.
            with suppress(ValueError):
                registry.async_update_entity(fixture.entity_id, area_id=area_id)
        async_expose_entity(
            hass, conversation.DOMAIN, fixture.entity_id, should_expose=True
        )
    return BuiltHome(entry, tuple(built), tuple(skipped), created, built)


def _areas(hass: HomeAssistant, home: Home) -> tuple[dict[str, str], tuple[str, ...]]:
    """Create the home's areas: registry ids by the fixture's, and those created."""
    areas = ar.async_get(hass)
    ids: dict[str, str] = {}
    created = []
    for area in home.areas:
        if (found := areas.async_get_area_by_name(area.name)) is None:
            found = areas.async_create(area.name)
            created.append(found.id)
        ids[area.id] = found.id
    return ids, tuple(created)


def _devices(
    hass: HomeAssistant, home: Home, entry: ConfigEntry, area_ids: Mapping[str, str]
) -> dict[str, str]:
    """Create the home's devices in their areas; return identifiers by fixture id."""
    devices = dr.async_get(hass)
    identifiers = {}
    for device in home.devices:
        info = {name: str(value) for name, value in device.info.items() if value}
        identifiers[device.id] = f"{entry.entry_id}-{device.id}"
        made = devices.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={(DOMAIN, identifiers[device.id])},
            name=device.name,
            manufacturer=info.get("manufacturer"),
            model=info.get("model"),
            sw_version=info.get("sw_version"),
        )
        devices.async_update_device(made.id, area_id=area_ids.get(device.area or ""))
    return identifiers


async def async_set_states(
    hass: HomeAssistant, built: BuiltHome, states: Mapping[str, Expected]
) -> None:
    """Put entities in states, as a case's setup writes them; skipped ones stay."""
    for entity_id, expected in states.items():
        if entity_id in built.skipped:
            continue
        entity = built.entities[entity_id]
        entity.put(expected.state, expected.attributes)
        entity.async_write_ha_state()
    await hass.async_block_till_done()


async def async_reset(hass: HomeAssistant, built: BuiltHome, home: Home) -> None:
    """Put every entity back in the fixture's starting state."""
    for fixture in home.entities:
        if (entity := built.entities.get(fixture.entity_id)) is not None:
            entity.restart(fixture)
            entity.async_write_ha_state()
    await hass.async_block_till_done()


def snapshot(hass: HomeAssistant, built: BuiltHome) -> dict[str, dict[str, Any]]:
    """Return each entity's state and attributes, flat, as the scorer reads them."""
    return {
        entity_id: flat(state.state, state.attributes)
        for entity_id in built.entity_ids
        if (state := hass.states.get(entity_id)) is not None
    }


async def async_remove_home(hass: HomeAssistant, built: BuiltHome) -> None:
    """Remove the entry, its devices and entities, and the areas it created."""
    await hass.config_entries.async_remove(built.entry.entry_id)
    await hass.async_block_till_done()
    hass.data[DOMAIN].pop(built.entry.entry_id, None)
    areas = ar.async_get(hass)
    for area_id in built.areas:
        if areas.async_get_area(area_id) is not None:
            areas.async_delete(area_id)
