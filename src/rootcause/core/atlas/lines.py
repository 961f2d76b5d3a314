"""Which lines of an input the located tier reads.

The scan keeps the error-looking lines of every input (the lexical stage's, at most 200 of them). A small
input (a paste, a short log: `SMALL_INPUT` bytes in all) is also kept whole while it is scanned, so that the
located tier reads its other message lines too: a library's warning or log line ("... is deprecated", "You
are using ...") seldom looks like an error. Frame lines, traceback headers, code echoes and lines of few
words are left out. The error-looking lines come first, so the tier's line cap keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from rootcause.core.matching.lexical import is_boilerplate
from rootcause.core.normalize import strip_framing

SMALL_INPUT = 1 << 20  # bytes of input kept whole (all inputs together)
MAX_MESSAGE_LINES = 2000  # lines of a kept input looked at
MIN_CHARS = 16  # shorter lines say too little to locate
_CODE = re.compile(
    r"^\s*(?:[-=]*>?\s*\d+\s|\^|~|[|│]|#\d+\s|at [\w$.<>]+\(|\.\.\.)"  # numbered source, carets, tables, gdb, Java
    r"|^\s+(?:[\w.\[\]'\"]+(?:\s*,\s*[\w.*]+)*\s*[-+*/|]?=[^=]|(?:return|raise|from|import|if|elif|for|while|with|def"
    r"|class|assert|yield|await|del)\b|[\w.]+\()"  # an indented code echo: an assignment, a statement, a call
)
_WORDS = re.compile(r"[A-Za-z]{2,}")


def looks_like_code(raw: str) -> bool:
    """A line of source that a traceback or a compiler echoes (`    raise ValueError(f"...")`), a caret line, a
    numbered listing: it holds a message's text, but the library whose line it is did not print it."""
    return _CODE.match(raw) is not None


class SmallInputTap:
    """Holds an input's bytes while it is scanned, up to SMALL_INPUT across every input of a diagnosis."""

    def __init__(self) -> None:
        self.room = SMALL_INPUT
        self.held: dict[str, list[bytes]] = {}

    def wrap(self, name: str, chunks: Iterable[bytes]) -> Iterator[bytes]:
        parts: list[bytes] | None = []
        size = 0
        for chunk in chunks:
            if parts is not None:
                size += len(chunk)
                if size <= self.room:
                    parts.append(bytes(chunk))
                else:
                    parts = None  # too large: only its error-looking lines are read
            yield chunk
        if parts is not None:
            self.room -= size
            self.held[name] = parts

    def all_message_lines(self) -> list[tuple[str, int, str, str]]:
        """(input, line number, raw, cleaned) of every held input's message lines, in input order."""
        return [(name, *line) for name in list(self.held) for line in self.message_lines(name)]

    def message_lines(self, name: str) -> list[tuple[int, str, str]]:
        """(line number, raw, cleaned) of the lines of a held input that may be a library's message."""
        parts = self.held.pop(name, None)
        if parts is None:
            return []
        out: list[tuple[int, str, str]] = []
        for n, line in enumerate(b"".join(parts).split(b"\n")[:MAX_MESSAGE_LINES], 1):
            raw = line.decode("utf-8", "replace").rstrip("\r")
            if len(raw) < MIN_CHARS or looks_like_code(raw):
                continue
            clean = strip_framing(raw[:4096]).text.strip()
            if len(clean) >= MIN_CHARS and len(_WORDS.findall(clean)) >= 3 and not is_boilerplate(clean):
                out.append((n, raw, clean))
        return out
