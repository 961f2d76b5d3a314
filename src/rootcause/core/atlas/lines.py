"""Which lines of an input the located tier reads.

The scan keeps the error-looking lines of every input (the lexical stage's, at most 200 of them). A small
input (a paste, a short log: `SMALL_INPUT` bytes in all) is also kept whole while it is scanned, so that the
located tier reads its other message lines too: a library's warning or log line ("... is deprecated", "You
are using ...") seldom looks like an error. Frame lines, traceback headers, code echoes and lines of few
words are left out. The error-looking lines come first, so the tier's line cap keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rootcause.core.matching.lexical import is_boilerplate
from rootcause.core.normalize import strip_framing

if TYPE_CHECKING:
    from rootcause.core.atlas.locate import AtlasIndex
    from rootcause.core.atlas.located import Located

SMALL_INPUT = 1 << 20  # bytes of input kept whole (all inputs together)
MAX_MESSAGE_LINES = 2000  # lines of a kept input looked at
MIN_CHARS = 16  # shorter lines say too little to locate
_CODE = re.compile(
    r"^\s*(?:[-=]*>?\s*\d+\s|\^|~|[|│]|#\d+\s|at [\w$.<>]+\(|\.\.\.)"  # numbered source, carets, tables, gdb, Java
    r"|^\s+(?:[\w.\[\]'\"]+(?:\s*,\s*[\w.*]+)*\s*[-+*/|]?=[^=]|(?:return|raise|from|import|if|elif|for|while|with|def"
    r"|class|assert|yield|await|del)\b|[\w.]+\()"  # an indented code echo: an assignment, a statement, a call
)
_WORDS = re.compile(r"[A-Za-z]{2,}")
_INSTALLED_PATH = re.compile(rb"(?:site|dist)-packages[/\\]+([A-Za-z_][A-Za-z0-9_]*)")


def looks_like_code(raw: str) -> bool:
    """A line of source that a traceback or a compiler echoes (`    raise ValueError(f"...")`), a caret line, a
    numbered listing: it holds a message's text, but the library whose line it is did not print it."""
    return _CODE.match(raw) is not None


class SmallInputTap:
    """Holds an input's bytes while it is scanned, up to SMALL_INPUT across every input of a diagnosis."""

    def __init__(self) -> None:
        self.room = SMALL_INPUT
        self.held: dict[str, list[bytes]] = {}
        # packages whose installed files the held inputs name (`.../site-packages/diffusers/...` in a frame)
        self.mentioned: set[str] = set()

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
        data = b"".join(parts)
        self.mentioned.update(m.group(1).decode("ascii") for m in _INSTALLED_PATH.finditer(data))
        for n, line in enumerate(data.split(b"\n")[:MAX_MESSAGE_LINES], 1):
            raw = line.decode("utf-8", "replace").rstrip("\r")
            if len(raw) < MIN_CHARS or looks_like_code(raw):
                continue
            clean = strip_framing(raw[:4096]).text.strip()
            if len(clean) >= MIN_CHARS and len(_WORDS.findall(clean)) >= 3 and not is_boilerplate(clean):
                out.append((n, raw, clean))
        return out


class _Claimed(Protocol):
    """What the located tier reads of a diagnosis's groups: the entry (is it a catch-all?) and its hit lines."""

    @property
    def entry(self) -> Any: ...

    @property
    def hits(self) -> Sequence[tuple[str, Any]]: ...


def unclaimed_lines(
    groups: Iterable[_Claimed],
    lexical_lines: Sequence[tuple[int, str, int, str, str, int | None]],
    message_lines: Sequence[tuple[str, int, str, str]],
) -> list[tuple[str, int, str, str]]:
    """(input, line number, raw, cleaned) of the lines that no entry claims (a catch-all's line is not claimed: that
    the message is printed by a known line says more than "an exception"): the error-looking ones, then the other
    message lines of small inputs; frame lines, headers and echoed source left out."""
    claimed_lines = {(src, hit.line) for g in groups if not g.entry.catch_all for src, hit in g.hits}
    claimed_texts = {hit.clean for g in groups if not g.entry.catch_all for _, hit in g.hits}
    candidates = [(source, line_no, raw, clean) for _, source, line_no, raw, clean, _ in lexical_lines]
    seen = {(source, line_no) for source, line_no, _, _ in candidates}
    candidates += [line for line in message_lines if (line[0], line[1]) not in seen]
    return [
        (source, line_no, raw, clean)
        for source, line_no, raw, clean in candidates
        if (source, line_no) not in claimed_lines
        and clean not in claimed_texts
        and not is_boilerplate(clean)
        and not looks_like_code(raw)
    ]


def locate_lines(
    atlas: AtlasIndex | Callable[[], AtlasIndex | None],
    lines: list[tuple[str, int, str, str]],
    env: dict[str, str],
    mentioned: Iterable[str] = (),
) -> list[Located]:
    """The located tier over those lines; the atlas is loaded only when such a line exists. `mentioned`: packages
    whose installed files the input names (a tie-break between packages printing the same string)."""
    if not lines:
        return []
    index = atlas() if callable(atlas) else atlas
    return [] if index is None else index.locate(lines, env, mentioned)
