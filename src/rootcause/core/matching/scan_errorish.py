"""The scan's error-looking lines that no pattern explains, kept for the lexical stage: the first
``LEXICAL_KEEP`` of the input at once, the last ones read from the latest chunks at the end.

A mixin of ``scan.SourceScanner``, whose state it reads; its methods resolve on the scanner's class
like the scanner's own, so the scan loop pays nothing for the split.
"""

from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING, Any

from rootcause.core.matching.index import ERRORISH_REGEX, CompiledIndex
from rootcause.core.normalize import strip_framing

LEXICAL_KEEP = 100  # error-looking lines kept for the lexical stage, first and last

_ERRORISH = re.compile(ERRORISH_REGEX)


def looks_errorish(text: str) -> bool:
    return _ERRORISH.search(text) is not None


class ErrorishLines:
    """The error-looking lines of one scan (the state is set up by ``SourceScanner.__init__``)."""

    index: CompiledIndex
    _scratch: Any
    _single_hit_lines: set[int]
    _errorish_head: list[tuple[int, str, str, int | None]]
    _errorish_raw: deque[tuple[int, bytes]]
    _errorish_pending: list[tuple[bytes, list[int], int, int]]

    if TYPE_CHECKING:

        def _note_rank(self, rank: int | None) -> None: ...

        def _family(self, pattern: int) -> bool: ...

    def _keep_errorish_offsets(self, data: bytes, offsets: list[int], lo: int, base: int) -> None:
        """Remember the lines of error-looking text: the first few of the input at once; for the
        last few, only the latest chunks that hold them are kept, and read at the end."""
        if not offsets:
            return
        if len(self._errorish_head) < LEXICAL_KEEP:
            self._read_errorish(data, offsets, lo, base)
            return
        self._errorish_pending.append((data, offsets, lo, base))
        held = 0
        for n in range(len(self._errorish_pending) - 1, -1, -1):
            held += len(self._errorish_pending[n][1])
            if held >= LEXICAL_KEEP:
                del self._errorish_pending[:n]  # older chunks cannot hold any of the last lines
                break

    def _read_errorish(self, data: bytes, offsets: list[int], lo: int, base: int) -> None:
        cursor, line_no, last_start = lo, base, -1
        for off in offsets:
            start = data.rfind(b"\n", lo, off - 1) + 1 or lo
            if start == last_start:
                continue
            last_start = start
            line_no += data.count(b"\n", cursor, start)
            cursor = start
            self._keep_errorish_raw(line_no + 1, data, start)

    def _keep_errorish_raw(self, line_no: int, data: bytes, start: int) -> None:
        stop = data.find(b"\n", start)
        raw = data[start : stop if stop >= 0 else len(data)][:2000]
        if len(self._errorish_head) < LEXICAL_KEEP:
            item = self._errorish_item(line_no, raw)
            if item is not None:
                self._errorish_head.append(item)
                self._note_rank(item[3])
        else:
            self._errorish_raw.append((line_no, raw))  # cleaned at the end, if still kept

    def _errorish_item(self, line_no: int, raw: bytes) -> tuple[int, str, str, int | None] | None:
        if line_no in self._single_hit_lines:
            return None  # a single-line pattern matched it: a pattern line, no need to scan it again
        text = raw.decode("utf-8", "replace")
        clean = strip_framing(text)
        if not all(self._family(p) for p in self.index.candidates(clean.text, 1, self._scratch)):
            return None  # a pattern line, handled elsewhere (a family entry's line stays open to the lexical stage)
        return (line_no, text, clean.text[:2000], clean.rank)

    def _errorish_lines(self) -> list[tuple[int, str, str, int | None]]:
        """The first and the last error-looking lines that no pattern explains."""
        for data, offsets, lo, base in self._errorish_pending:
            self._read_errorish(data, offsets, lo, base)
        self._errorish_pending.clear()
        tail = []
        for n, raw in self._errorish_raw:
            item = self._errorish_item(n, raw)
            if item is not None:
                tail.append(item)
                self._note_rank(item[3])
        return self._errorish_head + sorted(tail)[-LEXICAL_KEEP:]
