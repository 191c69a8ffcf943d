"""What hassfest and the Marketplace would check, checked offline.

Neither can run here (both are docker actions), so the same rules are tested
against the files themselves, and the loader proves it accepts the manifest.
"""

import ast
import json
from pathlib import Path
import re
import struct
from typing import Any, get_type_hints

from awesomeversion import AwesomeVersion, AwesomeVersionStrategy
import pytest
import yaml

from homeassistant.const import __version__ as ha_version
from homeassistant.core import HomeAssistant
from homeassistant.loader import Manifest, async_get_custom_components

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "custom_components" / "chatterbox"
MANIFEST: dict[str, Any] = json.loads((PACKAGE / "manifest.json").read_text())
TRANSLATIONS: dict[str, Any] = json.loads(
    (PACKAGE / "translations" / "en.json").read_text()
)

QUALITY_RULES = {
    "bronze": """action-setup appropriate-polling brands common-modules config-flow
        config-flow-test-coverage dependency-transparency docs-actions docs-conditions
        docs-high-level-description docs-installation-instructions
        docs-removal-instructions docs-triggers entity-event-setup entity-unique-id
        has-entity-name runtime-data test-before-configure test-before-setup
        unique-config-entry""",
    "silver": """action-exceptions config-entry-unloading docs-configuration-parameters
        docs-installation-parameters entity-unavailable integration-owner
        log-when-unavailable parallel-updates reauthentication-flow test-coverage""",
    "gold": """devices diagnostics discovery discovery-update-info docs-data-update
        docs-examples docs-known-limitations docs-supported-devices
        docs-supported-functions docs-troubleshooting docs-use-cases dynamic-devices
        entity-category entity-device-class entity-disabled-by-default
        entity-translations exception-translations icon-translations
        reconfiguration-flow repair-issues stale-devices""",
    "platinum": "async-dependency inject-websession strict-typing",
}
ALL_RULES = {rule for rules in QUALITY_RULES.values() for rule in rules.split()}
IOT_CLASSES = {
    "assumed_state",
    "calculated",
    "cloud_polling",
    "cloud_push",
    "local_polling",
    "local_push",
}
# What the Marketplace reads from hacs.json, and the type it accepts for each
# (homeassistant.components.marketplace.utils.validate on 2026.11).
HACS_TYPES = {
    "content_in_root": bool,
    "filename": str,
    "hacs": str,
    "hide_default_branch": bool,
    "homeassistant": str,
    "name": str,
    "persistent_directory": str,
    "zip_release": bool,
}
VERSION_STRATEGIES = [
    AwesomeVersionStrategy.CALVER,
    AwesomeVersionStrategy.SEMVER,
    AwesomeVersionStrategy.SIMPLEVER,
    AwesomeVersionStrategy.BUILDVER,
    AwesomeVersionStrategy.PEP440,
]


def test_manifest_has_what_hassfest_and_the_marketplace_require() -> None:
    """The manifest carries every required key, with valid values."""
    assert MANIFEST["domain"] == PACKAGE.name == "chatterbox"
    assert MANIFEST["name"] == "Chatterbox"
    assert MANIFEST["codeowners"]
    for key in ("documentation", "issue_tracker"):
        assert MANIFEST[key].startswith("https://")
        assert not MANIFEST[key].startswith("https://www.home-assistant.io/")
    assert MANIFEST["iot_class"] in IOT_CLASSES
    assert MANIFEST["integration_type"] == "service"
    assert MANIFEST["config_flow"] is True
    assert (PACKAGE / "config_flow.py").is_file()
    assert MANIFEST["dependencies"] == ["ai_task", "conversation"]
    assert MANIFEST["after_dependencies"] == ["assist_pipeline", "intent", "weather"]
    assert AwesomeVersion(MANIFEST["version"], ensure_strategy=VERSION_STRATEGIES)


def test_manifest_requirement_installs_on_both_home_assistant_releases() -> None:
    """The openai requirement is a range that 2026.10's and 2026.11's pins meet."""
    assert MANIFEST["requirements"] == ["openai>=3.10.0"]


def test_manifest_has_no_unknown_keys_and_is_sorted() -> None:
    """Only keys the loader knows, in hassfest's order: domain, name, the rest A-Z."""
    assert set(MANIFEST) <= set(get_type_hints(Manifest))
    keys = list(MANIFEST)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])


def test_hacs_json_is_what_the_marketplace_accepts() -> None:
    """hacs.json names the integration and the oldest Home Assistant it supports."""
    hacs = json.loads((ROOT / "hacs.json").read_text())
    assert hacs == {"name": "Chatterbox", "homeassistant": "2026.10.0"}
    for key, value in hacs.items():
        assert isinstance(value, HACS_TYPES[key])
    assert AwesomeVersion(hacs["homeassistant"]) <= AwesomeVersion(ha_version)


def _translation_keys_in_code() -> set[str]:
    """Find every translation_key="…" literal in the integration's code."""
    keys: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.keyword)
                and node.arg == "translation_key"
                and isinstance(node.value, ast.Constant)
            ):
                keys.add(node.value.value)
    return keys


def test_every_translation_key_in_the_code_is_translated() -> None:
    """Each exception, repair and entity key the code uses has English text."""
    keys = _translation_keys_in_code()
    assert keys, "the code raises translated errors"
    translated = set(TRANSLATIONS["exceptions"]) | set(TRANSLATIONS["issues"])
    assert keys <= translated | _entity_translation_keys()


def _entity_translation_keys() -> set[str]:
    """Return the entity translation keys of every platform."""
    return {
        key for platform in TRANSLATIONS.get("entity", {}).values() for key in platform
    }


def test_translations_are_literal() -> None:
    """A custom integration's runtime does not resolve [%key:…] references."""
    text = (PACKAGE / "translations" / "en.json").read_text()
    assert "[%key:" not in text
    assert (
        not (PACKAGE / "strings.json").exists()
        or "[%key:" not in (PACKAGE / "strings.json").read_text()
    )


def test_icons_json_is_valid() -> None:
    """Every icon is an mdi: name under a known top-level key."""
    icons = json.loads((PACKAGE / "icons.json").read_text())
    assert set(icons) <= {"entity", "services", "exceptions", "issues"}
    for platform in icons.get("entity", {}).values():
        for entity in platform.values():
            assert re.fullmatch(r"mdi:[a-z0-9-]+", entity["default"])
            for icon in entity.get("state", {}).values():
                assert re.fullmatch(r"mdi:[a-z0-9-]+", icon)


def test_quality_scale_uses_real_rules_and_explains_exemptions() -> None:
    """Every rule id exists, every rule is listed, and every exemption says why."""
    rules = yaml.safe_load((PACKAGE / "quality_scale.yaml").read_text())["rules"]
    assert set(rules) == ALL_RULES
    for rule, value in rules.items():
        status = value if isinstance(value, str) else value["status"]
        assert status in {"done", "todo", "exempt"}, rule
        if status == "exempt":
            assert value["comment"].strip(), rule


def test_brand_icon_is_a_square_png() -> None:
    """The brand icon is a square PNG, at 256 px and 512 px for @2x."""
    for name, size in (("icon.png", 256), ("icon@2x.png", 512)):
        data = (PACKAGE / "brand" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])
        assert width == height == size


@pytest.mark.usefixtures("enable_custom_integrations")
async def test_loader_accepts_the_integration(hass: HomeAssistant) -> None:
    """Home Assistant's loader finds the integration and accepts its version."""
    integration = (await async_get_custom_components(hass))["chatterbox"]
    assert integration.name == "Chatterbox"
    assert str(integration.version) == MANIFEST["version"]
    assert integration.config_flow
