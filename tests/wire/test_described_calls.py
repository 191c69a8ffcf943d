"""Tests of reading the calls an answer describes instead of making them."""

import json

from hypothesis import given, strategies as st
import pytest

from custom_components.chatterbox.tools.names import tool_resolver
from custom_components.chatterbox.wire.text_calls.described import described_calls

TARGET = frozenset({"name", "area", "floor", "domain", "device_class"})
PARAMETERS = {
    "intent__HassTurnOn": TARGET,
    "intent__HassTurnOff": TARGET,
    "homeassistant__GetLiveContext": frozenset(),
    "chatterbox__calculate": frozenset({"expression"}),
}
RESOLVE = tool_resolver(PARAMETERS)


def read(answer: str) -> list[tuple[str, dict[str, object]]]:
    """Return the calls an answer describes, with their arguments read."""
    return [
        (name, json.loads(arguments))
        for name, arguments in described_calls(answer, RESOLVE, PARAMETERS)
    ]


def test_a_tool_named_before_its_json_arguments_is_that_call() -> None:
    """Call X with the arguments {…}: the object is the call's arguments."""
    answer = (
        "To turn on the kitchen light, call the intent__HassTurnOn tool with "
        'the arguments {"name": "Kitchen light", "domain": ["light"]}'
    )

    assert read(answer) == [
        ("intent__HassTurnOn", {"name": "Kitchen light", "domain": ["light"]})
    ]


def test_two_objects_after_one_name_are_two_calls() -> None:
    """One tool, two sets of arguments: both lights are meant."""
    answer = (
        'Call HassTurnOn with {"name": "Kitchen light"} and {"name": "Bedroom light"}.'
    )

    assert read(answer) == [
        ("intent__HassTurnOn", {"name": "Kitchen light"}),
        ("intent__HassTurnOn", {"name": "Bedroom light"}),
    ]


def test_parameters_named_before_quoted_values_are_the_arguments() -> None:
    """With the name "…" and the domain "…": any words between, any quotes."""
    answer = (
        "Um die Tür zu öffnen, rufe intent__HassTurnOff mit name „Haustür“ "
        'und domain "lock" auf.'
    )

    assert read(answer) == [
        ("intent__HassTurnOff", {"name": "Haustür", "domain": "lock"})
    ]


def test_each_tool_named_takes_the_arguments_up_to_the_next() -> None:
    """Two sentences, two tools: each call keeps its own arguments."""
    answer = (
        'To turn off the lamp, use intent__HassTurnOff with the name "Lamp".\n'
        "For the temperature, use homeassistant__GetLiveContext."
    )

    assert read(answer) == [
        ("intent__HassTurnOff", {"name": "Lamp"}),
        ("homeassistant__GetLiveContext", {}),
    ]


def test_a_call_object_anywhere_in_the_answer_is_a_call() -> None:
    """You can use this command: {"name": …, "arguments": …}."""
    answer = (
        "You can use the following command:\n"
        '{"name": "intent__HassTurnOff", "arguments": {"name": "Living room"}}\n'
        '<tool_response>\n{"status": "off"}\n</tool_response>'
    )

    assert read(answer) == [("intent__HassTurnOff", {"name": "Living room"})]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("The kitchen light is on.", id="no-tool"),
        pytest.param("I can calculate that: 391.", id="a-word-a-tool-ends-in"),
        pytest.param(
            "Call HassTurnOn to switch something on.", id="no-arguments-it-needs"
        ),
        pytest.param(
            'Call HassTurnOn with {"colour": "red"}.', id="not-its-parameters"
        ),
        pytest.param(
            '{"name": "HassLightSet", "arguments": {"name": "Lamp"}}',
            id="a-tool-not-offered",
        ),
    ],
)
def test_an_answer_that_describes_no_offered_call_gives_none(answer: str) -> None:
    """Only an offered tool with arguments it takes is a call."""
    assert read(answer) == []


@given(st.text(alphabet='{}[]"“„ nameHassTurnOn_:,\n', max_size=3_000))
def test_any_answer_is_read_without_error(answer: str) -> None:
    """Whatever the model writes, the reader returns calls it can name."""
    for name, arguments in described_calls(answer, RESOLVE, PARAMETERS):
        assert name in PARAMETERS
        assert isinstance(json.loads(arguments), dict)


def test_only_the_start_of_an_answer_is_read() -> None:
    """A call described after a long answer is not looked for: input is bounded."""
    call = 'Call HassTurnOn with the name "Lamp".'

    assert read(call) == [("intent__HassTurnOn", {"name": "Lamp"})]
    assert read("{" * 2_000 + call) == []
