"""Tests for making a streamed answer fit to be spoken."""

from itertools import cycle
from typing import Any

from hypothesis import example, given, strategies as st
import pytest

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.chatterbox.speech import SpeechFilter, is_pictograph
from tests.helpers.common import ask
from tests.helpers.llm_server import LLMServer, Text
from tests.helpers.stream import chunked, speak

MARKDOWN_ANSWER = """## Kitchen status 🏠

Here's what I found:

- **Ceiling light**: on (80 %)
- *Fan*: off
- Temperature: 21.5 °C

1. Turn off the light
2. Open the window!

See [the dashboard](http://homeassistant.local:8123/lovelace/0) or \
https://www.home-assistant.io/docs. Have a nice day! 😊"""

SPOKEN_ANSWER = """Kitchen status.

Here's what I found:

Ceiling light: on (80 %).
Fan: off.
Temperature: 21.5 °C.

Turn off the light.
Open the window!

See the dashboard or a link. Have a nice day!"""


def test_a_markdown_answer_becomes_clean_sentences() -> None:
    """The model answers in markdown; what is spoken is plain sentences."""
    assert speak([MARKDOWN_ANSWER]) == SPOKEN_ANSWER


def test_the_answer_is_the_same_at_every_cut() -> None:
    """Wherever the stream is cut, the spoken answer is the same."""
    for cut in range(1, len(MARKDOWN_ANSWER)):
        chunks = [MARKDOWN_ANSWER[:cut], MARKDOWN_ANSWER[cut:]]
        assert speak(chunks) == SPOKEN_ANSWER, cut
    assert speak(MARKDOWN_ANSWER) == SPOKEN_ANSWER


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("**bold** and __bold__", "bold and bold"),
        ("*it* and _it_, ***both***", "it and it, both"),
        ("snake_case and my_long_name stay", "snake_case and my_long_name stay"),
        ("2 * 3 = 6 and 5*3, 5**2", "2 * 3 = 6 and 5*3, 5**2"),
        ("a lone ** goes", "a lone goes"),
        ("~~gone~~ in ~5 minutes", "gone in ~5 minutes"),
        ("\\*not emphasis\\* \\n", "*not emphasis* \\n"),
        ("**Note:** it works", "Note: it works"),
        ("ends with a backslash \\", "ends with a backslash \\"),
    ],
)
def test_emphasis_goes_and_the_words_stay(written: str, spoken: str) -> None:
    """Emphasis markers go; asterisks and underscores inside words stay."""
    assert speak([written]) == spoken
    assert speak(written) == spoken


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("# Title\nText", "Title.\nText"),
        ("### Done!\n", "Done!\n"),
        ("- a\n  - nested\n+ plus\n* star\n", "a.\nnested.\nplus.\nstar.\n"),
        ("10. ten\n3) three.", "ten.\nthree."),
        ("> quoted *text*", "quoted text"),
        ("-5 degrees, #1 and 3.5 hours\n+1", "-5 degrees, #1 and 3.5 hours\n+1"),
        ("Lists:\n---\n* * *\n___\nEnd", "Lists:\nEnd"),
        ("#hashtag and ####### seven", "#hashtag and ####### seven"),
        ("- \n-", "\n-"),
    ],
)
def test_headings_and_list_items_become_sentences(written: str, spoken: str) -> None:
    """Markers at the start of a line go; each item ends as a sentence."""
    assert speak([written]) == spoken
    assert speak(written) == spoken


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        (
            "Run this:\n```bash\nls -la  *.txt\n```\nThen `ha core restart` now.",
            "Run this:\nls -la  *.txt\nThen ha core restart now.",
        ),
        ("~~~\ncode\n~~~~\nafter", "code\nafter"),
        ("`__init__` and ``a `b` c``", "__init__ and a b c"),
        ("```\n``\n  ```", "``\n"),
        ("```python", ""),
    ],
)
def test_code_loses_its_fences_and_backticks(written: str, spoken: str) -> None:
    """Fence lines go, the code stays; inline code keeps its text."""
    assert speak([written]) == spoken
    assert speak(written) == spoken


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("[docs](https://x.io/a_(b)) and ![a cat](cat.png)", "docs and a cat"),
        ("Go to https://example.com/path?q=1.", "Go to a link."),
        ("(see http://x.com/a_b)", "(see a link)"),
        ("<https://x.com> and www.example.org!", "a link and a link!"),
        ("**https://x.com/** is it", "a link is it"),
        ("[1] and [not a link] (really) a]b", "[1] and [not a link] (really) a]b"),
        (
            "the http header, https and www and a <b> tag",
            "the http header, https and www and a <b> tag",
        ),
        ("wow! http:// a", "wow! http:// a"),
        ("[a [b](u)", "[a b"),
        ("[broken](http://x.com\nnext", "broken\nnext"),
    ],
)
def test_links_keep_their_text_and_urls_become_a_link(
    written: str, spoken: str
) -> None:
    """A link is read as its text; a bare URL is "a link"."""
    assert speak([written]) == spoken
    assert speak(written) == spoken


def test_long_bracketed_text_is_not_held_as_a_link() -> None:
    """Text in brackets is released once it is too long to be a link's text."""
    speech = SpeechFilter()
    note = "[" + "x" * 120

    assert speech.feed(note) == note
    assert speech.finish() == ""


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("Done ✅", "Done"),
        ("🎉 Party", "Party"),
        ("Lights on 💡.", "Lights on."),
        (
            "Flags 🇫🇷, family 👨\u200d👩\u200d👧, keycap 1️⃣, ❤️ love",
            "Flags, family, keycap 1, love",
        ),
        ("a 🙂 b ⏰ c ▶️ d", "a b c d"),
        # Dingbat digits are digits to Unicode, yet pictographs: found by
        # test_fuzz_stream.
        ("A❶ and 0❷", "A and 0"),
    ],
)
def test_emoji_go_with_their_spaces(written: str, spoken: str) -> None:
    """Emoji, with their modifiers and joiners, leave no stray spaces."""
    assert speak([written]) == spoken
    assert speak(written) == spoken


def test_pictographs_and_ordinary_symbols() -> None:
    """Pictographs are recognised; letters, units and currency are not."""
    assert all(map(is_pictograph, "💡😊🏠✅❤\ufe0f\u200d\u20e3🇫⏰▶"))
    assert not any(map(is_pictograph, "aé°€%→©"))


def test_tables_become_sentences() -> None:
    """Each row becomes its cells, joined with commas; the divider goes."""
    table = "| Room | State |\n|---|:--:|\n| Kitchen | on |\n| | off |\n|--|"

    assert speak([table]) == "Room, State.\nKitchen, on.\noff.\n"
    assert speak(table) == "Room, State.\nKitchen, on.\noff.\n"


def test_spaces_are_collapsed_and_trimmed() -> None:
    """Spaces left by markup or typing do not reach the speech."""
    assert speak(["  Hello \t  world  \n\n  Bye  "]) == "Hello world\n\nBye"


def test_ordinary_text_is_released_as_it_comes() -> None:
    """Text without markers is written at once, chunk by chunk."""
    speech = SpeechFilter()

    assert speech.feed("The kitchen") == "The kitchen"
    assert speech.feed(" light is on.") == " light is on."
    assert speech.finish() == ""


def test_markers_are_held_only_until_they_are_decided() -> None:
    """Only what could still be a marker waits for the next chunk."""
    speech = SpeechFilter()

    assert speech.feed("**Kit") == "Kit"
    assert speech.feed("chen**") == "chen"
    assert speech.feed(" is on. See [the docs") == " is on. See"
    assert speech.feed("](https://x.y) or https://ex") == " the docs or"
    assert speech.feed("ample.com now\n1") == " a link now\n"
    assert speech.feed("2. Step") == "Step"
    assert speech.finish() == "."


WORDS = ["the", "kitchen", "light", "is", "on", "http", "https", "www", "wow", "h"]


@given(
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
    separators=st.lists(st.sampled_from([" ", ", ", ". ", "? ", "' "]), min_size=1),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6),
)
def test_prose_waits_for_at_most_a_url_start(
    words: list[str], separators: list[str], sizes: list[int]
) -> None:
    """Plain prose is spoken as written, held back by a few characters at most."""
    text = "".join(
        word + separator for word, separator in zip(words, cycle(separators))
    ).rstrip()
    speech = SpeechFilter()
    written = ""
    fed = 0
    for chunk in chunked(text, sizes):
        fed += len(chunk)
        written += speech.feed(chunk)
        assert text.startswith(written)
        # "https:/" could still begin a URL; a space waits for the next word.
        assert fed - len(written) <= len("https:/ ")
    assert written + speech.finish() == text


MARKDOWN_TOKENS = [
    *"*_~`\n#-1.|[]()<>!\\ :",
    "**",
    "```",
    "- ",
    "1. ",
    "| ",
    "---",
    "](",
    "http://a.b/c",
    "https://",
    "www.",
    "word",
    "snake_case",
    "💡",
    "❤️",
    "👨\u200d👩\u200d👧",
]


@given(
    tokens=st.lists(st.sampled_from(MARKDOWN_TOKENS), max_size=40),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6),
)
@example(tokens=["[", "\\", "](", "]", ")", "~"], sizes=[1])
def test_any_chunking_speaks_the_same(tokens: list[str], sizes: list[int]) -> None:
    """Random chunkings of the same markdown always give the same speech."""
    text = "".join(tokens)
    whole = speak([text])

    assert speak(chunked(text, sizes)) == whole
    assert speak(text) == whole
    if "`" not in text:
        # Only code keeps what it shows.
        assert not any(map(is_pictograph, whole))


MARKDOWN = (
    "## Tonight\n\n"
    "Here is **what I found** 😊:\n\n"
    "- The *kitchen* light is on\n"
    "- The door is locked\n\n"
    "More at https://example.com/status."
)


async def test_a_markdown_answer_is_spoken_as_plain_sentences(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm_server: LLMServer
) -> None:
    """The speech filter cleans what a voice would read out literally."""
    llm_server.reply(Text(MARKDOWN, piece_size=3))

    result = await ask(hass, "What's the status?")

    spoken: str = result.response.speech["plain"]["speech"]
    for literal in ("#", "**", "*", "😊", "- ", "https://"):
        assert literal not in spoken, spoken
    assert "what I found" in spoken
    assert "The kitchen light is on." in spoken
    assert "a link" in spoken
    body: dict[str, Any] = llm_server.last_chat_request
    assert "spoken aloud" in body["messages"][0]["content"]


@pytest.mark.parametrize(
    ("language", "spoken"),
    [
        # No article that a case would change: "unter Link", "für Link".
        ("de", "Siehe Link."),
        ("nb", "Siehe en lenke."),
        ("sv", "Siehe en länk."),
        ("pt-BR", "Siehe um link."),
        ("fi", "Siehe a link."),
    ],
)
def test_a_url_is_said_in_the_answers_language(language: str, spoken: str) -> None:
    """The words for a dropped URL are the language's; English in any other."""
    speech = SpeechFilter(language)

    said = speech.feed("Siehe https://example.com/docs.") + speech.finish()

    assert said == spoken
