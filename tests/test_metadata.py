"""What hassfest and the Marketplace would check, checked offline.

Neither can run here (both are docker actions), so the same rules are tested
against the files themselves, and the loader proves it accepts the manifest.
"""

import ast
import importlib
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
from homeassistant.helpers import translation
from homeassistant.loader import Manifest, async_get_custom_components

from custom_components.chatterbox.const import DOMAIN
from custom_components.chatterbox.lang import LANGUAGES

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


def _leaves(tree: dict[str, Any], path: str = "") -> dict[str, str]:
    """Return every string of a translation file by its dotted key."""
    leaves: dict[str, str] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            leaves |= _leaves(value, f"{path}{key}.")
        else:
            leaves[f"{path}{key}"] = value
    return leaves


def _placeholders(text: str) -> set[str]:
    """Return the names of a translation's {placeholders}."""
    return set(re.findall(r"\{(\w+)\}", text))


# Every language Chatterbox speaks has a translations file beside English's.
SPOKEN_LANGUAGES = sorted(
    path.stem for path in (PACKAGE / "translations").glob("*.json") if path.stem != "en"
)


def test_chatterbox_speaks_the_eleven_languages_it_promises() -> None:
    """The README's list, the translations and lang/words agree.

    A language is one translations file and one module of words: nothing is
    half-added, and the README names every language there is.
    """
    assert SPOKEN_LANGUAGES == [
        "da", "de", "es", "fr", "it", "nb", "nl", "pl", "pt", "sv"
    ]  # fmt: skip
    assert {"en", *SPOKEN_LANGUAGES} == set(LANGUAGES)
    readme = (ROOT / "README.md").read_text()
    promise = readme.split("## Languages", 1)[1].strip().split("\n\n", 1)[0]
    assert [each.name for each in LANGUAGES.values() if each.name not in promise] == []


@pytest.mark.parametrize("language", SPOKEN_LANGUAGES)
def test_every_language_has_every_string(language: str) -> None:
    """Each language has every key of en.json, with the same placeholders.

    The settings screens are translated too, not only what the user hears.
    """
    english = _leaves(TRANSLATIONS)
    path = PACKAGE / "translations" / f"{language}.json"
    theirs = _leaves(json.loads(path.read_text()))

    assert theirs.keys() == english.keys()
    for key, text in theirs.items():
        assert _placeholders(text) == _placeholders(english[key]), key
        assert text.strip(), key


@pytest.mark.parametrize("language", SPOKEN_LANGUAGES)
async def test_home_assistant_shows_the_settings_in_the_users_language(
    hass: HomeAssistant, language: str
) -> None:
    """The agent's settings screen loads through Home Assistant in the language."""
    key = "config_subentries.conversation.step.init.data.confirm_sensitive"
    theirs = _leaves(
        json.loads((PACKAGE / "translations" / f"{language}.json").read_text())
    )

    shown = await translation.async_get_translations(
        hass, language, "config_subentries", [DOMAIN]
    )

    assert shown[f"component.{DOMAIN}.{key}"] == theirs[key]
    assert theirs[key] != _leaves(TRANSLATIONS)[key]


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


# Where each rule this integration meets is shown: a test, or a README section.
RULE_EVIDENCE = {
    "action-setup": ("test_services.py", "test_forget"),
    "appropriate-polling": (
        "test_coordinator.py",
        "test_the_agent_goes_unavailable_and_comes_back",
    ),
    "brands": ("test_metadata.py", "test_brand_icon_is_a_square_png"),
    "common-modules": ("test_metadata.py", "test_platforms_set_parallel_updates"),
    "config-flow": (
        "test_config_flow.py",
        "test_user_adds_a_server_and_gets_a_ready_agent",
    ),
    "config-flow-test-coverage": (
        "test_config_flow.py",
        "test_form_recovers_after_an_error",
    ),
    "dependency-transparency": (
        "test_metadata.py",
        "test_manifest_requirement_installs_on_both_home_assistant_releases",
    ),
    "docs-actions": ("README.md", "## Talking to an agent"),
    "docs-high-level-description": ("README.md", "# Chatterbox"),
    "docs-installation-instructions": ("README.md", "## Installation"),
    "docs-removal-instructions": ("README.md", "## Removal"),
    "entity-event-setup": (
        "test_sensor.py",
        "test_five_turns_add_up_to_what_the_server_counted",
    ),
    "entity-unique-id": ("test_sensor.py", "test_the_noisy_sensors_start_disabled"),
    "has-entity-name": (
        "test_sensor.py",
        "test_five_turns_add_up_to_what_the_server_counted",
    ),
    "runtime-data": ("test_metadata.py", "test_runtime_data_is_typed"),
    "test-before-configure": (
        "test_config_flow.py",
        "test_server_that_is_down_cannot_connect",
    ),
    "test-before-setup": ("test_init.py", "test_setup_failures_retry_or_stop"),
    "unique-config-entry": (
        "test_config_flow.py",
        "test_the_same_server_cannot_be_added_twice",
    ),
    "action-exceptions": (
        "scenarios/test_consumers.py",
        "test_server_error_through_the_action",
    ),
    "config-entry-unloading": ("test_init.py", "test_setup_lists_models_and_unloads"),
    "docs-configuration-parameters": ("README.md", "### Agents"),
    "docs-installation-parameters": ("README.md", "### Add a server"),
    "entity-unavailable": (
        "test_coordinator.py",
        "test_the_agent_goes_unavailable_and_comes_back",
    ),
    "integration-owner": (
        "test_metadata.py",
        "test_manifest_has_what_hassfest_and_the_marketplace_require",
    ),
    "log-when-unavailable": (
        "test_coordinator.py",
        "test_the_agent_goes_unavailable_and_comes_back",
    ),
    "parallel-updates": ("test_metadata.py", "test_platforms_set_parallel_updates"),
    "reauthentication-flow": ("test_config_flow.py", "test_reauth_takes_a_new_key"),
    "test-coverage": ("../scripts/coverage_gate.py", "main"),
    "devices": ("test_metadata.py", "test_platforms_set_parallel_updates"),
    "diagnostics": ("test_diagnostics.py", "test_diagnostics_hold_no_secret"),
    "docs-data-update": ("README.md", "### Data updates"),
    "docs-examples": ("README.md", "### Examples"),
    "docs-known-limitations": ("README.md", "### Known limitations"),
    "docs-supported-devices": ("README.md", "## Quick start, by server"),
    "docs-supported-functions": ("README.md", "### What it provides"),
    "docs-troubleshooting": ("README.md", "### Troubleshooting"),
    "docs-use-cases": ("README.md", "### Use cases"),
    "entity-category": ("test_sensor.py", "test_the_noisy_sensors_start_disabled"),
    "entity-device-class": (
        "test_sensor.py",
        "test_five_turns_add_up_to_what_the_server_counted",
    ),
    "entity-disabled-by-default": (
        "test_sensor.py",
        "test_the_noisy_sensors_start_disabled",
    ),
    "entity-translations": (
        "test_metadata.py",
        "test_every_translation_key_in_the_code_is_translated",
    ),
    "exception-translations": (
        "test_metadata.py",
        "test_user_facing_raises_are_translated",
    ),
    "icon-translations": ("test_metadata.py", "test_icons_json_is_valid"),
    "reconfiguration-flow": (
        "test_config_flow.py",
        "test_reconfigure_moves_the_entry_to_another_server",
    ),
    "repair-issues": (
        "test_repairs.py",
        "test_a_removed_model_is_replaced_through_the_repair",
    ),
    "async-dependency": (
        "test_metadata.py",
        "test_manifest_requirement_installs_on_both_home_assistant_releases",
    ),
    "inject-websession": (
        "test_metadata.py",
        "test_the_client_uses_home_assistants_http_pool",
    ),
    "strict-typing": ("test_metadata.py", "test_runtime_data_is_typed"),
}


def test_every_done_rule_has_its_evidence() -> None:
    """Each rule marked done names a test that exists, or a README section."""
    rules = yaml.safe_load((PACKAGE / "quality_scale.yaml").read_text())["rules"]
    done = {
        rule
        for rule, value in rules.items()
        if (value if isinstance(value, str) else value["status"]) == "done"
    }
    assert MANIFEST["quality_scale"] == "platinum"
    assert done == set(RULE_EVIDENCE)
    tests = Path(__file__).parent
    for rule, evidence in RULE_EVIDENCE.items():
        file, name = evidence
        if file == "README.md":
            readme = (tests.parent / "README.md").read_text()
            assert re.search(rf"^{re.escape(name)}$", readme, re.MULTILINE), rule
        else:
            source = (tests / file).read_text()
            assert re.search(rf"def {name}\b", source), rule


def test_platforms_set_parallel_updates() -> None:
    """Each entity platform says how many updates may run at once."""
    for platform in ("ai_task", "conversation", "sensor"):
        module = importlib.import_module(f"custom_components.chatterbox.{platform}")
        assert module.PARALLEL_UPDATES == 0, platform


def test_runtime_data_is_typed() -> None:
    """The entry type carries its runtime data's class, and the package is typed."""
    package = importlib.import_module("custom_components.chatterbox")
    assert package.ChatterboxConfigEntry.__value__.__args__ == (
        package.ChatterboxRuntime,
    )
    assert (PACKAGE / "py.typed").is_file()


def test_the_client_uses_home_assistants_http_pool() -> None:
    """The SDK client is built on Home Assistant's shared httpx client."""
    source = (PACKAGE / "server" / "client.py").read_text()
    assert 'http_client=cast("Any", get_async_client(hass))' in source


USER_FACING = {
    "HomeAssistantError",
    "ServiceValidationError",
    "ConfigEntryAuthFailed",
    "ConfigEntryError",
    "ConfigEntryNotReady",
    "UpdateFailed",
}


def test_user_facing_raises_are_translated() -> None:
    """Every user-facing error the code builds has a translation key."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in USER_FACING
            ):
                keys = {keyword.arg for keyword in node.keywords}
                assert "translation_key" in keys, f"{path.name}:{node.lineno}"


def test_the_readme_names_the_two_commands_a_newcomer_needs() -> None:
    """The demo and the test command, as CI runs it: a newcomer needs no more."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()

    assert "scripts/demo" in readme
    assert "`scripts/test`" in readme
    assert "scripts/test" in ci


def _readme_section(heading: str) -> str:
    """Return a README section's text, from its heading to the next of its level."""
    readme = (ROOT / "README.md").read_text()
    level = heading.split(" ", 1)[0] + " "
    start = readme.index(heading + "\n") + len(heading)
    ends = [
        index
        for index in (readme.find("\n" + level, start), readme.find("\n## ", start))
        if index != -1
    ]
    return readme[start : min(ends)]


def test_the_readme_option_tables_are_the_agent_form() -> None:
    """Each setting of the agent's form has its row, under its label, and no more.

    A renamed setting or a new one shows here before a user misses it.
    """
    form = TRANSLATIONS["config_subentries"]["conversation"]["step"]["init"]
    labels = {
        re.sub(r" \(.*\)$", "", label)
        for label in (
            *form["data"].values(),
            *form["sections"]["advanced"]["data"].values(),
        )
    }
    rows = {
        name.strip()
        for line in _readme_section("### Agents").splitlines()
        if line.startswith("| ") and not line.startswith(("| Option", "| ---"))
        for name in line.split("|")[1].split(",")
    }

    assert rows == labels


def test_the_readme_starts_each_server_kind_people_run() -> None:
    """A quick start per kind the issue names, each with the URL to type."""
    quick = _readme_section("## Quick start, by server")
    for kind, url in (
        ("Ollama", ":11434/v1"),
        ("llama.cpp", ":8080/v1"),
        ("vLLM", ":8000/v1"),
        ("OpenAI", "https://api.openai.com/v1"),
        ("OpenRouter", "https://openrouter.ai/api/v1"),
    ):
        assert f"**{kind}.**" in quick
        assert url in quick
