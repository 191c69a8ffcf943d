"""The dataset loader and scorer, on a small home of our own (no model needed)."""

from pathlib import Path

import pytest

from .cases import Case
from .dataset import (
    DatasetCase,
    Expected,
    categories,
    describe,
    flat,
    load_dataset,
    resolved,
    unexpected_changes,
)
from .report import CaseRecord, TurnRecord, table

# A cottage of our own, in the leaderboard's format: a porch lamp, a shed
# door, a rain sensor, and two case files.
FIXTURES = """\
areas:
  - name: Porch
    id: porch
  - name: Shed
    id: shed
devices:
  - name: Porch Lamp
    id: porch_lamp
    area: porch
    info:
      manufacturer: Acme
  - name: Shed Door
    id: shed_door
    area: shed
entities:
  - name: Porch Lamp
    id: light.porch_lamp
    area: porch
    device: porch_lamp
    state: "off"
    attributes:
      supported_color_modes:
        - light.ColorMode.BRIGHTNESS
      color_mode: brightness
  - name: Shed Door
    id: cover.shed_door
    device: shed_door
    state: closed
    attributes:
      device_class: cover.CoverDeviceClass.DOOR
      supported_features:
        - cover.CoverEntityFeature.OPEN
        - cover.CoverEntityFeature.CLOSE
  - name: Rain
    id: binary_sensor.rain
    state: false
"""
LAMP = """\
category: porch
tests:
  - sentences:
      - Light up the porch
      - Porch lamp on, please
    setup:
      light.porch_lamp:
        state: "off"
        attributes:
          brightness: 0
    expect_changes:
      light.porch_lamp:
        state: "on"
        attributes:
          brightness: 0
"""
DOOR = """\
category: shed
tests:
  - sentences:
      - Open the shed
    expect_changes:
      cover.shed_door:
        state: open
    ignore_changes:
      cover.shed_door:
        - current_position
"""


@pytest.fixture
def cottage(tmp_path: Path) -> Path:
    """Write the cottage as a dataset folder of one home."""
    home = tmp_path / "cottage"
    home.mkdir()
    (home / "_fixtures.yaml").write_text(FIXTURES, "utf-8")
    (home / "lamp.yaml").write_text(LAMP, "utf-8")
    (home / "door.yaml").write_text(DOOR, "utf-8")
    return tmp_path


def test_a_home_is_read_with_its_areas_devices_entities_and_cases(
    cottage: Path,
) -> None:
    """Every sentence is a case of its own; enums written by name are values."""
    (home,) = load_dataset(cottage)

    assert home.name == "cottage"
    assert [area.name for area in home.areas] == ["Porch", "Shed"]
    assert [(d.id, d.area) for d in home.devices] == [
        ("porch_lamp", "porch"),
        ("shed_door", "shed"),
    ]
    lamp, door, rain = home.entities
    assert lamp.attributes["supported_color_modes"] == ["brightness"]
    assert door.attributes == {"device_class": "door", "supported_features": 3}
    assert (door.area, door.device) == (None, "shed_door")
    assert rain.state == "off"  # YAML's false, as Home Assistant writes it
    assert [(c.id, c.category, c.sentence) for c in home.cases] == [
        ("cottage/door-1.1", "shed", "Open the shed"),
        ("cottage/lamp-1.1", "porch", "Light up the porch"),
        ("cottage/lamp-1.2", "porch", "Porch lamp on, please"),
    ]
    light_up = home.cases[1]
    assert light_up.setup == {"light.porch_lamp": Expected("off", {"brightness": 0})}
    assert home.cases[0].ignore == {"cover.shed_door": frozenset({"current_position"})}
    assert categories([home]) == ["shed", "porch"]


def test_a_folder_without_homes_is_refused(tmp_path: Path) -> None:
    """A path that is no dataset says so, rather than scoring nothing."""
    with pytest.raises(ValueError, match="no home folder"):
        load_dataset(tmp_path)


def test_a_case_about_an_entity_the_home_lacks_is_refused(cottage: Path) -> None:
    """A typo in a case file names the file and the entity."""
    (cottage / "cottage" / "lamp.yaml").write_text(
        LAMP.replace(
            'light.porch_lamp:\n        state: "on"',
            'light.porch:\n        state: "on"',
        ),
        "utf-8",
    )
    with pytest.raises(ValueError, match=r"lamp.yaml: test 1 .*light.porch'"):
        load_dataset(cottage)


def test_a_list_of_strings_that_are_no_enums_stays_a_list() -> None:
    """Only names of Home Assistant enums are read as enums."""
    assert resolved({"effect_list": ["Rainbow", "Fire"], "brightness": 100}) == {
        "effect_list": ["Rainbow", "Fire"],
        "brightness": 100,
    }


LAMP_ON = DatasetCase(
    "cottage/lamp-1.1",
    "cottage",
    "porch",
    "Light up the porch",
    expect={"light.porch_lamp": Expected("on", {"brightness": 0})},
)
BEFORE = {
    "light.porch_lamp": flat("off", {"brightness": 0, "color_mode": "brightness"}),
    "cover.shed_door": flat("closed", {"current_position": 0, "is_closed": True}),
}


def test_the_expected_change_alone_passes() -> None:
    """The lamp went on, nothing else changed: no unexpected change."""
    after = {
        **BEFORE,
        "light.porch_lamp": {**BEFORE["light.porch_lamp"], "state": "on"},
    }

    assert unexpected_changes(BEFORE, after, LAMP_ON) == {}


def test_a_change_nobody_asked_for_fails() -> None:
    """The lamp went on, and the shed door opened too: the door counts."""
    after = {
        "light.porch_lamp": {**BEFORE["light.porch_lamp"], "state": "on"},
        "cover.shed_door": flat("open", {"current_position": 100, "is_closed": False}),
    }

    diffs = unexpected_changes(BEFORE, after, LAMP_ON)

    # is_closed follows from the state, and is not counted on its own.
    assert diffs == {
        "cover.shed_door": {
            "expected": {"state": "closed", "current_position": 0},
            "got": {"state": "open", "current_position": 100},
        }
    }
    assert describe(diffs) == [
        "cover.shed_door state is 'open', not 'closed'",
        "cover.shed_door current_position is 100, not 0",
    ]


def test_an_expected_change_that_did_not_happen_fails() -> None:
    """Nothing happened: the lamp is still off."""
    diffs = unexpected_changes(BEFORE, BEFORE, LAMP_ON)

    assert describe(diffs) == ["light.porch_lamp state is 'off', not 'on'"]


def test_an_ignored_attribute_and_equal_values_are_no_change() -> None:
    """A position the case ignores moves freely; 1 and "1" are the same value."""
    case = DatasetCase(
        "c/door-1.1",
        "c",
        "shed",
        "Open the shed",
        expect={"cover.shed_door": Expected("open")},
        ignore={"cover.shed_door": frozenset({"current_position"})},
    )
    after = {
        "light.porch_lamp": {**BEFORE["light.porch_lamp"], "brightness": "0"},
        "cover.shed_door": flat("open", {"current_position": 37}),
    }

    assert unexpected_changes(BEFORE, after, case) == {}


def test_an_entity_that_appears_or_goes_counts() -> None:
    """The home must keep its entities, and gain none."""
    after = {"light.porch_lamp": {**BEFORE["light.porch_lamp"], "state": "on"}}
    after["switch.new"] = flat("on", {})

    assert describe(unexpected_changes(BEFORE, after, LAMP_ON)) == [
        "cover.shed_door is gone",
        "switch.new is new",
    ]


def test_the_table_gives_the_share_passed_per_category_and_the_yes_turns() -> None:
    """As the leaderboard gives it: passed of tried, in percent too."""
    lamp = Case("cottage/lamp-1.1", "porch", ("Light up the porch",))
    door = Case("cottage/door-1.1", "shed", ("Open the shed",))
    turn = TurnRecord(2.0, 2, 100, 50)
    records = [
        CaseRecord("agent", lamp, 0, [], ["It is on."], [], [turn]),
        CaseRecord(
            "agent",
            door,
            0,
            ["no"],
            ["Do you want me to open?", "Done"],
            [],
            [turn] * 2,
        ),
    ]

    text = table(["agent"], records, dataset=True)

    assert "| Share passed | 50 % |" in text
    assert "| … porch | 1/1 (100 %) |" in text
    assert "| … shed | 0/1 (0 %) |" in text
    assert '| Cases with a "yes" said to a question for one | 1 |' in text
