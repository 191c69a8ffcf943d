"""Guide a small model: the option, the size the server reports, the name's tag."""

import time

from hypothesis import given, strategies as st
import pytest

from custom_components.chatterbox.const import (
    GUIDE_AUTO,
    GUIDE_OFF,
    GUIDE_ON,
    SMALL_MODEL_PARAMETERS,
)
from custom_components.chatterbox.server.profile import (
    NAME_LIMIT,
    Guide,
    guide_for,
    size_from_text,
    size_in_name,
)

B = 1_000_000_000


@pytest.mark.parametrize(
    ("setting", "parameters", "guide"),
    [
        # The user's choice wins over any size.
        (GUIDE_ON, 70 * B, Guide(on=True, reason="set_on")),
        (GUIDE_OFF, 1_543_714_304, Guide(on=False, reason="set_off")),
        # On Auto, the count the server reports wins over the name.
        (GUIDE_AUTO, 1_543_714_304, Guide(on=True, reason="server_reports_1.5B")),
        (GUIDE_AUTO, 494_032_768, Guide(on=True, reason="server_reports_494M")),
        (GUIDE_AUTO, 999_600_000, Guide(on=True, reason="server_reports_1B")),
        (GUIDE_AUTO, 8_030_261_248, Guide(on=False, reason="server_reports_8B")),
        # A "4B" model counts as 4B, whatever its exact count.
        (GUIDE_AUTO, 4_022_468_096, Guide(on=True, reason="server_reports_4B")),
        (GUIDE_AUTO, 4_300_000_000, Guide(on=False, reason="server_reports_4.3B")),
        # A count that is no count says nothing: the name decides.
        (GUIDE_AUTO, 0, Guide(on=False, reason="name_says_8B")),
        (GUIDE_AUTO, None, Guide(on=False, reason="name_says_8B")),
        # An unknown setting is Auto.
        ("sometimes", 3 * B, Guide(on=True, reason="server_reports_3B")),
    ],
)
def test_the_setting_then_the_reported_size_then_the_name(
    setting: str, parameters: int | None, guide: Guide
) -> None:
    """On and Off are the user's; Auto reads the server's count, then the name."""
    assert guide_for(setting, "qwen3:8b", parameters) == guide


@pytest.mark.parametrize(
    ("model", "guide"),
    [
        ("qwen2.5-1.5b-instruct", Guide(on=True, reason="name_says_1.5B")),
        ("llama3.2:3b", Guide(on=True, reason="name_says_3B")),
        (
            "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
            Guide(on=True, reason="name_says_1.5B"),
        ),
        ("gemma-3-270m", Guide(on=True, reason="name_says_270M")),
        ("Qwen3-4B", Guide(on=True, reason="name_says_4B")),
        ("llama3.1:8b-instruct-q4_K_M", Guide(on=False, reason="name_says_8B")),
        # A mixture counts all its experts, not the ones active per token.
        ("mixtral:8x7b", Guide(on=False, reason="name_says_56B")),
        ("Qwen3-30B-A3B-Instruct", Guide(on=False, reason="name_says_30B")),
        # Not sizes: a context length, an active size alone, bits, a version.
        ("phi-3-mini-4k-instruct", Guide(on=False, reason="size_unknown")),
        ("some-a3b", Guide(on=False, reason="size_unknown")),
        ("model-4bit-4.0bpw", Guide(on=False, reason="size_unknown")),
        ("qwen2.5b", Guide(on=False, reason="size_unknown")),
        ("gpt-4o", Guide(on=False, reason="size_unknown")),
        ("", Guide(on=False, reason="size_unknown")),
    ],
)
def test_auto_reads_a_size_tag_in_the_name(model: str, guide: Guide) -> None:
    """Only a whole <number>b or <number>m token is a size; unknown means off."""
    assert guide_for(GUIDE_AUTO, model, None) == guide


def test_the_largest_tag_counts() -> None:
    """A 7B with a 1M context is a 7B: the guess leans to a capable model."""
    assert size_in_name("Qwen2.5-7B-Instruct-1M") == 7 * B
    assert size_in_name("org/TinyLlama-1.1B/tinyllama-1.1b.gguf") == 1_100_000_000


def test_the_threshold_is_four_billion() -> None:
    """The 0.5B-3B models need the aids; 7B and up do not."""
    assert SMALL_MODEL_PARAMETERS == 4 * B
    assert guide_for(GUIDE_AUTO, "x", SMALL_MODEL_PARAMETERS).on
    assert not guide_for(GUIDE_AUTO, "x", 7 * B).on


@pytest.mark.parametrize(
    ("text", "parameters"),
    [
        ("8.0B", 8 * B),
        ("494.03M", 494_030_000),
        (" 1.5B ", 1_500_000_000),
        ("8x7B", 56 * B),
        ("big", None),
        ("8.0B parameters", None),
        ("", None),
    ],
)
def test_a_size_as_ollama_writes_it(text: str, parameters: int | None) -> None:
    """Ollama's details say the size in words: "8.0B", "494.03M"."""
    assert size_from_text(text) == parameters


def test_a_hostile_name_reads_in_linear_time() -> None:
    """A megabyte of near-tags from the server is read only up to the limit."""
    hostile = "1.1" * 400_000 + "-1b"
    started = time.perf_counter()
    assert size_in_name(hostile) is None
    assert size_in_name("-9" * 100_000) is None
    assert time.perf_counter() - started < 0.5
    # A tag past the limit is not read.
    assert size_in_name("x" * NAME_LIMIT + "-1b") is None
    assert size_in_name("x" * (NAME_LIMIT - 4) + "-1b") == B


@given(st.text(alphabet="0123456789.xbmkBMa-_:/ ", max_size=300))
def test_any_name_reads_as_a_size_or_none(name: str) -> None:
    """Whatever a server calls its model, reading it never fails."""
    for size in (size_in_name(name), size_from_text(name)):
        assert size is None or size > 0
    assert isinstance(guide_for(GUIDE_AUTO, name, None), Guide)
