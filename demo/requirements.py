"""Print the pinned requirements of the integrations the demo home loads.

Home Assistant installs an integration's requirements when it first loads it.
scripts/demo installs them up front instead, with Home Assistant's own
constraints, so that the demo starts the same way every time.
"""

import json
from pathlib import Path

import homeassistant.components

# The top-level keys of demo/configuration.yaml, and what Home Assistant loads
# besides them (onboarding's analytics, the entity platforms its services know).
DEMO_DOMAINS = (
    "assist_pipeline",
    "config",
    "conversation",
    "frontend",
    "generic_thermostat",
    "logger",
    "template",
    "ai_task",
    "analytics",
    "camera",
    "image_processing",
    "infrared",
    "radio_frequency",
    "stream",
)
CHATTERBOX = Path(__file__).parents[1] / "custom_components" / "chatterbox"


def manifest(domain: str) -> dict[str, list[str]]:
    """Read a core integration's manifest, or Chatterbox's."""
    if domain == "chatterbox":
        path = CHATTERBOX / "manifest.json"
    else:
        path = Path(homeassistant.components.__file__).parent / domain / "manifest.json"
    return json.loads(path.read_text())


def requirements() -> list[str]:
    """Walk the dependencies, after-dependencies included, and collect pins."""
    todo = [*DEMO_DOMAINS, "chatterbox"]
    seen: set[str] = set()
    pins: set[str] = set()
    while todo:
        domain = todo.pop()
        if domain in seen:
            continue
        seen.add(domain)
        data = manifest(domain)
        pins.update(data.get("requirements", []))
        todo += data.get("dependencies", []) + data.get("after_dependencies", [])
    return sorted(pins)


if __name__ == "__main__":
    print(*requirements(), sep="\n")
