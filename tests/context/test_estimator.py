"""The token estimate, and its calibration on the server's counts."""

import math

from custom_components.chatterbox.context.estimator import TokenEstimator
from tests.helpers.messages import (
    TOOLS,
    answer,
    call,
    forecast,
    result,
    server_tokens,
    system,
    user,
)


def test_estimate_counts_characters_and_messages() -> None:
    """Before any report, four characters make a token, plus each message."""
    estimator = TokenEstimator()
    messages = [system("x" * 100), user("y" * 200)]
    chars = TokenEstimator.measure(messages)

    assert estimator.estimate(messages) == math.ceil(chars / 4.0) + 2 * 4
    assert estimator.estimate(messages, TOOLS) > estimator.estimate(messages)
    assert estimator.estimate([]) == 0


def test_calibration_converges_on_the_server_count_in_three_turns() -> None:
    """Three reports of prompt_tokens bring the estimate within 15 %."""
    estimator = TokenEstimator()
    messages = [system(), user("What is the weather in Oslo?")]
    first_error = 0.0
    for turn in range(3):
        before = estimator.estimate(messages, TOOLS)
        actual = server_tokens(messages, TOOLS)
        if turn == 0:
            first_error = abs(before - actual) / actual
        estimator.calibrate(messages, TOOLS, actual)
        messages += [
            call(f"c{turn}", city="Oslo"),
            result(f"c{turn}", forecast(1500)),
            answer("Mostly cloudy, around 22 degrees."),
            user("And tomorrow?"),
        ]

    error = abs(estimator.estimate(messages, TOOLS) - server_tokens(messages, TOOLS))
    assert first_error > 0.15
    assert error / server_tokens(messages, TOOLS) < 0.15
    assert 3.0 < estimator.chars_per_token < 4.0


def test_calibration_is_clamped_and_ignores_empty_reports() -> None:
    """An absurd report moves the ratio only to its bounds; a zero one not at all."""
    estimator = TokenEstimator(smoothing=1.0)
    messages = [user("x" * 1000)]

    estimator.calibrate(messages, (), 0)
    assert estimator.chars_per_token == 4.0

    estimator.calibrate(messages, (), 10)
    assert estimator.chars_per_token == 8.0

    estimator.calibrate(messages, (), 100_000)
    assert estimator.chars_per_token == 1.5
