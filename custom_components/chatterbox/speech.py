"""Make a streamed answer fit to be spoken: no markdown, emoji or URLs.

Text-to-speech engines read markup literally ("asterisk asterisk"), spell out
URLs and name emoji. SpeechFilter removes them from the answer as it streams,
holding back only what could still be a marker, so that speech starts early.
What it writes stays readable in the chat dialog: plain sentences, one list
item or table row a line.

It is a little over 400 lines: one streaming state machine over every
markdown construct a model writes, which reads best in one place.
"""

import re
import string
from typing import Final

from .lang import words_of

# Ends of a sentence or clause: a list item that ends with one gets no period.
_END_PUNCTUATION: Final = frozenset(".!?:;…。\uff01\uff1f")
_CLOSING_PUNCTUATION: Final = frozenset(".,!?:;…)")
_ESCAPABLE: Final = frozenset(string.punctuation)
# The most characters of a link's text that are held back to see whether a
# "](" follows; longer bracketed text is left as it is.
_MAX_LINK_TEXT: Final = 100
_URL_STARTS: Final = ("https://", "http://", "www.")
_URL: Final = re.compile(r"(?:https?://|www\.)[^\s<>\"`\[\]]+", re.IGNORECASE)
_URL_TRAILING: Final = ".,;:!?'\"*_~"
_AUTOLINK: Final = re.compile(r"<(?:https?://|www\.)[^\s<>]*>", re.IGNORECASE)
_AUTOLINK_START: Final = re.compile(
    r"<(?:h(?:t(?:t(?:p(?:s)?)?)?)?|https?(?::(?:/(?:/[^\s<>]*)?)?)?"
    r"|w(?:w(?:w(?:\.[^\s<>]*)?)?)?)?\Z",
    re.IGNORECASE,
)
_HEADING: Final = re.compile(r"#{1,6}[ \t]")
_HEADING_START: Final = re.compile(r"#{1,6}\Z")
_BULLET: Final = re.compile(r"[-*+][ \t]")
_BULLET_START: Final = re.compile(r"[-*+]\Z")
_NUMBERED: Final = re.compile(r"\d{1,3}[.)][ \t]")
_NUMBERED_START: Final = re.compile(r"\d{1,3}[.)]?\Z")
_RULE: Final = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*(?:\n|\Z)")
_RULE_START: Final = re.compile(r"([-*_])(?:[ \t]*\1)*[ \t]*\Z")
# The most characters at the start of a line read for its markers.
_MAX_LINE_HEAD: Final = 256
_TABLE_DIVIDER: Final = re.compile(r"\|[-:| \t]*-[-:| \t]*(?:\n|\Z)")
_TABLE_DIVIDER_START: Final = re.compile(r"\|[-:| \t]*\Z")
_FENCE_START: Final = re.compile(r"(`{1,3}|~{1,3})\Z")
_CODE: Final = re.compile(r"[^`\n]+")
_URL_PART: Final = re.compile(r"[^()\n]+")
# Pictographs, their modifiers and the characters that join them into one
# emoji: variation selectors, zero width joiner, keycap, tags.
_PICTOGRAPH_RANGES: Final = (
    (0x1F000, 0x1FAFF),
    (0x2600, 0x27BF),
    (0x2B00, 0x2BFF),
    (0x231A, 0x231B),
    (0x23E9, 0x23F3),
    (0x23F8, 0x23FA),
    (0x25FB, 0x25FE),
    (0xFE00, 0xFE0F),
    (0xE0000, 0xE007F),
)
_PICTOGRAPHS: Final = frozenset(
    "\u200d\u20e3\u2139\u2328\u23cf\u24c2\u25aa\u25ab\u25b6\u25c0"
    "\u3030\u303d\u3297\u3299"
)
# Letters and digits, but no pictograph: some are digits to Unicode ("❶").
_WORD: Final = re.compile(
    r"[^\W_"
    + "".join(f"{chr(low)}-{chr(high)}" for low, high in _PICTOGRAPH_RANGES)
    + re.escape("".join(sorted(_PICTOGRAPHS)))
    + "]+"
)


def is_pictograph(char: str) -> bool:
    """Return whether a character is part of an emoji or another pictograph."""
    if char in _PICTOGRAPHS:
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _PICTOGRAPH_RANGES)


class SpeechFilter:
    """Remove what a text-to-speech engine would read literally, as text streams.

    - emphasis (**, __, *x*, _x_, ~~) goes; snake_case and 2 * 3 stay;
    - headings, bullets, numbered items and table rows become sentences: their
      marker goes, and the line ends with a period if it has no end
      punctuation; table cells are joined with commas, divider rows go;
    - fence lines and rules go, the code between fences stays as it is;
      inline code keeps its text without the backticks;
    - [text](url) becomes its text; bare URLs and <url> become "a link";
    - emoji and other pictographs go, with their modifiers and joiners;
    - spaces are collapsed, and trimmed at the start and end of lines.

    feed() returns the text that is decided; finish() the rest at the end.
    """

    def __init__(self, language: str = "en") -> None:
        """Start at the beginning of an answer, spoken in a language."""
        # What a dropped URL is said as (lang/words).
        self._link_words = words_of(language).link
        self._buffer = ""
        self._out: list[str] = []
        self._line_start = True
        self._fence = ""
        """The fence character while in a code block."""
        self._item = False
        """The line is a list item, heading or table row: it ends as a sentence."""
        self._table = False
        self._code = False
        self._link = False
        """In the text of a link whose URL is dropped."""
        self._url_depth = 0
        """In a link's URL: how many parentheses are open."""
        self._previous = "\n"
        """The last character read, for the word boundaries of markers."""
        self._space = False
        self._cell = False
        self._dropped = False
        """Something was dropped after the pending space."""
        self._last = ""
        """The last character written on this line; empty for an empty line."""

    def feed(self, text: str) -> str:
        """Read more of the answer; return the text that is decided."""
        self._buffer += text
        self._run(final=False)
        return self._take()

    def finish(self) -> str:
        """Return what is left at the end of the answer."""
        self._run(final=True)
        self._end_sentence()
        return self._take()

    def _take(self) -> str:
        """Return the text written so far, and forget it."""
        out = "".join(self._out)
        self._out.clear()
        return out

    def _run(self, *, final: bool) -> None:
        """Write as much of the buffer as can be decided."""
        while self._buffer:
            if self._fence:
                progressed = self._in_code_block(final=final)
            elif self._line_start:
                progressed = self._line_head(final=final)
            else:
                progressed = self._inline(final=final)
            if not progressed:
                return

    def _consume(self, length: int) -> str:
        """Take the first characters of the buffer."""
        taken, self._buffer = self._buffer[:length], self._buffer[length:]
        self._previous = taken[-1]
        return taken

    def _write(self, text: str) -> None:
        """Write text of a line, after the space or cell divider before it."""
        if self._last and (self._space or self._cell):
            if self._cell:
                self._out.append(", ")
            elif not (self._dropped and text[0] in _CLOSING_PUNCTUATION):
                # "on 💡." must not become "on ."
                self._out.append(" ")
        self._space = self._cell = self._dropped = False
        self._out.append(text)
        self._last = text[-1]

    def _end_sentence(self) -> None:
        """End an item's line with a period if it has no end punctuation."""
        if self._item and self._last and self._last not in _END_PUNCTUATION:
            self._out.append(".")
        self._space = self._cell = self._dropped = False
        self._item = self._table = self._code = self._link = False
        self._url_depth = 0
        self._last = ""

    def _newline(self) -> None:
        """End the line."""
        self._end_sentence()
        self._out.append(self._consume(1))
        self._line_start = True

    def _in_code_block(self, *, final: bool) -> bool:
        """Write a code block's lines as they are, and drop its closing fence."""
        buffer = self._buffer
        end = buffer.find("\n")
        line = buffer if end < 0 else buffer[:end]
        # A closing fence is a short line: a longer one is code, let through.
        if (
            self._line_start
            and len(line) <= _MAX_LINE_HEAD
            and not line.strip(f" \t{self._fence}")
        ):
            if end < 0 and not final:
                return False  # it may be the closing fence
            if line.count(self._fence) >= len("```"):
                self._consume(len(line) + (end >= 0))
                self._fence = ""
                return True
        self._out.append(self._consume(len(line) + (end >= 0)))
        self._line_start = end >= 0
        return True

    def _line_head(self, *, final: bool) -> bool:  # noqa: C901, PLR0911
        """Read the markers at the start of a line.

        Only the line's first _MAX_LINE_HEAD characters are read, and no more is
        held back: every marker is shorter, and a line of 100,000 dashes would
        otherwise be matched again with every chunk that lengthens it.
        """
        buffer = self._buffer[:_MAX_LINE_HEAD]
        final = final or len(self._buffer) > _MAX_LINE_HEAD
        if buffer[0] in " \t>":
            # Indentation and block quotes.
            self._consume(len(buffer) - len(buffer.lstrip(" \t>")))
            return True
        if buffer[0] == "\n":
            self._newline()
            return True
        if buffer.startswith(("```", "~~~")):
            if (end := buffer.find("\n")) < 0 and not final:
                return False
            self._fence = buffer[0]
            self._consume(len(buffer) if end < 0 else end + 1)
            return True
        if rule := _RULE.match(buffer):
            if rule.end() == len(buffer) and not final:
                return False  # the rule may go on
            self._consume(rule.end())
            self._line_start = rule.group().endswith("\n")
            return True
        if table_divider := _TABLE_DIVIDER.match(buffer):
            if table_divider.end() == len(buffer) and not final:
                return False
            self._consume(table_divider.end())
            self._line_start = table_divider.group().endswith("\n")
            return True
        if not final and any(
            pattern.match(buffer)
            for pattern in (
                _FENCE_START,
                _BULLET_START,
                _RULE_START,
                _TABLE_DIVIDER_START,
                _HEADING_START,
                _NUMBERED_START,
            )
        ):
            return False
        self._line_start = False
        if marker := (
            _HEADING.match(buffer) or _BULLET.match(buffer) or _NUMBERED.match(buffer)
        ):
            self._consume(marker.end())
            self._item = True
        elif buffer[0] == "|":
            self._consume(1)
            self._item = self._table = True
        return True

    def _inline(self, *, final: bool) -> bool:  # noqa: C901, PLR0911, PLR0912
        """Read the text of a line and its inline markers."""
        buffer = self._buffer
        char = buffer[0]
        if char == "\n":
            self._newline()
            return True
        if self._url_depth:
            self._skip_url()
            return True
        if char == "`":
            return self._backticks(final=final)
        if self._code and (code := _CODE.match(buffer)):
            self._write_words(self._consume(code.end()))
            return True
        if char in "*_~":
            return self._emphasis(final=final)
        if char == "\\":
            if len(buffer) == 1 and not final:
                return False
            escaped = buffer[1:2]
            self._write(self._consume(2 if escaped in _ESCAPABLE else 1)[-1])
            return True
        if char in "![":
            return self._link_start(final=final)
        if char == "]" and self._link:
            # The link's check saw the "(" after the bracket.
            self._consume(2)
            self._link = False
            self._url_depth = 1
            return True
        if char == "<":
            return self._autolink(final=final)
        if (
            char in "hHwW"
            and not self._previous.isalnum()
            and (verdict := self._url(final=final)) is not None
        ):
            return verdict
        if char in " \t":
            self._consume(1)
            self._space = bool(self._last)
            return True
        if char == "|" and self._table:
            self._consume(1)
            self._cell = bool(self._last)
            return True
        if is_pictograph(char):
            self._consume(1)
            self._dropped = self._space
            return True
        word = _WORD.match(buffer)
        self._write(self._consume(word.end() if word else 1))
        return True

    def _write_words(self, text: str) -> None:
        """Write text with its spaces collapsed."""
        for index, word in enumerate(re.split(r"[ \t]+", text)):
            if index:
                self._space = bool(self._last)
            if word:
                self._write(word)

    def _backticks(self, *, final: bool) -> bool:
        """Drop the backticks around inline code."""
        run = len(self._buffer) - len(self._buffer.lstrip("`"))
        if run == len(self._buffer) and not final:
            return False
        self._consume(run)
        self._code = not self._code
        return True

    def _emphasis(self, *, final: bool) -> bool:
        """Drop a run of emphasis markers; keep one that is not emphasis."""
        buffer = self._buffer
        run = len(buffer) - len(buffer.lstrip(buffer[0]))
        if run == len(buffer) and not final:
            return False
        before = self._previous
        after = buffer[run] if run < len(buffer) else "\n"
        if buffer[0] == "~":
            emphasis = run >= len("~~")
        elif before.isalnum() and after.isalnum():
            emphasis = False  # inside a word: snake_case, 2*3, 5**2
        else:
            # Flanking as in CommonMark; a lone 2 * 3 stays, a lone ** goes.
            emphasis = (
                run > 1
                or (not after.isspace() and not before.isalnum())
                or (not before.isspace() and not after.isalnum())
            )
        taken = self._consume(run)
        if emphasis:
            self._dropped = self._space
        else:
            self._write(taken)
        return True

    def _link_start(self, *, final: bool) -> bool:
        """Drop the brackets of a link, or of an image, whose URL follows."""
        buffer = self._buffer
        start = int(buffer[0] == "!")
        if start == len(buffer) and not final:
            return False
        if start and buffer[1:2] != "[":
            self._write(self._consume(1))
            return True
        link = _is_link(buffer, start)
        if link is None and not final:
            return False
        if link:
            self._consume(start + 1)
            self._link = True
        else:
            self._write(self._consume(1))
        return True

    def _skip_url(self) -> None:
        """Drop a link's URL, up to the parenthesis that closes it."""
        if part := _URL_PART.match(self._buffer):
            self._consume(part.end())
            return
        self._url_depth += 1 if self._consume(1) == "(" else -1

    def _autolink(self, *, final: bool) -> bool:
        """Say "a link" for <url>, and keep any other angle bracket."""
        buffer = self._buffer
        if autolink := _AUTOLINK.match(buffer):
            self._consume(autolink.end())
            self._write(self._link_words)
            return True
        if not final and _AUTOLINK_START.match(buffer):
            return False
        self._write(self._consume(1))
        return True

    def _url(self, *, final: bool) -> bool | None:
        """Say "a link" for a URL; None when the text is not one."""
        buffer = self._buffer
        url = _URL.match(buffer)
        if url is None:
            lowered = buffer.lower()
            could_be = any(start.startswith(lowered) for start in _URL_STARTS)
            return False if could_be and not final else None
        if url.end() == len(buffer) and not final:
            return False  # the URL may go on
        text = url.group().rstrip(_URL_TRAILING)
        while text.endswith(")") and text.count(")") > text.count("("):
            text = text[:-1].rstrip(_URL_TRAILING)
        self._consume(len(text))
        self._write(self._link_words)
        return True


def _is_link(text: str, start: int) -> bool | None:
    """Return whether the [ at start opens a link; None when it cannot tell yet.

    An escaped bracket (a backslash before it) is text, as the line reader takes
    it: else a bracket after it would be read as the link's end, and how the text
    was cut into chunks would change what is spoken.
    """
    end = min(len(text), start + 2 + _MAX_LINK_TEXT)
    index = start + 1
    while index < end:
        char = text[index]
        if char == "\\" and text[index + 1 : index + 2] in _ESCAPABLE:
            index += 2
            continue
        if char == "]":
            if index + 1 < len(text):
                return text[index + 1] == "("
            return None
        if char in "[\n":
            return False
        index += 1
    if len(text) > start + 1 + _MAX_LINK_TEXT:
        return False
    return None
