"""Bytes in, candidate lines out: a literal prefilter over whole chunks, then line numbers.

Only lines that contain one of `extract.KEYWORDS` are decoded and looked at; the rest of a
multi-GB log never reaches Python code. With hyperscan (x86-64) the prefilter runs at about
1 GB/s; elsewhere a Python `re` alternation of the same literals does the same job, slower.
Memory: one chunk plus the unfinished last line of the previous one.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from rootcause.core.triage.keywords import KEYWORDS

try:  # hyperscan ships x86-64 wheels only
    import hyperscan
except ImportError:  # pragma: no cover - exercised on other platforms
    hyperscan = None  # type: ignore[assignment]

MAX_LINE = 16 << 10  # longer lines are cut (hostile input)
CARRY_LIMIT = 4 << 20  # an unterminated line longer than this is processed as it stands
CONTEXT = 4096  # bytes before a candidate line searched for a timestamp when it has none


class Prefilter:
    """Offsets of keyword matches in a chunk."""

    def __init__(self, keywords: tuple[bytes, ...] = KEYWORDS) -> None:
        self._db: Any = None
        if hyperscan is not None:
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            exprs = [re.escape(k) for k in keywords]
            db.compile(expressions=exprs, ids=list(range(len(exprs))), flags=[0] * len(exprs))
            self._db = db
        # the prototype scratch space: each stream clones its own, so one prefilter serves every thread
        self._scratch: Any = None if self._db is None else hyperscan.Scratch(self._db)
        self._rx = re.compile(b"|".join(re.escape(k) for k in keywords))

    def new_scratch(self) -> Any:
        """A scratch space of the caller's own (None without hyperscan); a scan may not share one."""
        return None if self._scratch is None else self._scratch.clone()

    def line_spans(self, buf: bytes, lo: int = 0, hi: int | None = None, scratch: Any = None) -> list[tuple[int, int]]:
        """(start, stop) of every line of buf[lo:hi] that holds a keyword, in order, without the newline.
        ``scratch``: from `new_scratch`, reused across one stream's chunks; None clones one for this call."""
        hi = len(buf) if hi is None else hi
        spans: list[tuple[int, int]] = []
        if self._db is not None:
            ends: list[int] = []

            def on_match(_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                ends.append(to)

            with contextlib.suppress(hyperscan.ScanTerminated):
                if scratch is None:
                    scratch = self.new_scratch()
                self._db.scan(memoryview(buf)[lo:hi], match_event_handler=on_match, scratch=scratch)
            ends.sort()
            last_stop = -1
            for rel in ends:
                end = lo + rel
                if end <= last_stop:
                    continue
                start = buf.rfind(b"\n", lo, end - 1) + 1 or lo
                stop = buf.find(b"\n", end - 1, hi)
                stop = hi if stop < 0 else stop
                spans.append((max(start, lo), stop))
                last_stop = stop
            return spans
        pos = lo
        while pos < hi:
            m = self._rx.search(buf, pos, hi)
            if m is None:
                break
            start = max(buf.rfind(b"\n", lo, m.start()) + 1, lo)
            stop = buf.find(b"\n", m.end() - 1, hi)
            stop = hi if stop < 0 else stop
            spans.append((start, stop))
            pos = stop + 1
        return spans


class LineStream:
    """Feed chunks of one input; get (line number, text) of its candidate lines."""

    def __init__(self, prefilter: Prefilter) -> None:
        self.prefilter = prefilter
        self._scratch = prefilter.new_scratch()
        self.lines = 0
        self.bytes = 0
        self._carry = b""
        self._tail = b""  # the last CONTEXT + 1 bytes of complete lines already read

    def feed(self, data: bytes) -> Iterator[tuple[int, str, bytes]]:
        self.bytes += len(data)
        begin = 0
        if self._carry:  # finish the line cut at the end of the previous chunk
            nl = data.find(b"\n")
            if nl < 0:
                self._carry += data
                if len(self._carry) > CARRY_LIMIT:
                    carry, self._carry = self._carry + b"\n", b""
                    yield from self._lines(carry, 0, len(carry))
                return
            head, self._carry = self._carry + data[: nl + 1], b""
            yield from self._lines(head, 0, len(head))
            begin = nl + 1
        cut = data.rfind(b"\n", begin)
        if cut < 0:
            self._carry = data[begin:]
            return
        self._carry = data[cut + 1 :]
        yield from self._lines(data, begin, cut + 1)

    def feed_lines(
        self, buf: bytes, spans: list[tuple[int, int, int]] | None, size: int, lines: int | None = None
    ) -> Iterator[tuple[int, str, bytes]]:
        """Whole lines (buf ends with a newline) whose candidate lines another scanner already found: the
        main scanner's hyperscan database holds `extract.KEYWORDS` too, so `diagnose` reads the input once.
        ``spans``: (start, stop, line number) of each candidate line, and ``lines`` the newlines in buf, both
        counted by that scanner, so no newline is counted twice; with ``spans`` None this stream finds
        and counts them itself."""
        self.bytes += size
        if spans is None or lines is None:
            yield from self._lines(buf, 0, len(buf), None if spans is None else [(a, b) for a, b, _ in spans])
            return
        yield from self._numbered(buf, spans)
        self.lines += lines

    def finish(self) -> Iterator[tuple[int, str, bytes]]:
        if self._carry:
            carry, self._carry = self._carry + b"\n", b""
            yield from self._lines(carry, 0, len(carry))

    def _numbered(self, buf: bytes, spans: list[tuple[int, int, int]]) -> Iterator[tuple[int, str, bytes]]:
        """Candidate lines whose numbers the caller counted; buf holds whole lines."""
        tail = self._tail
        for start, stop, line_no in spans:
            raw = buf[start : min(stop, start + MAX_LINE)]
            yield line_no, raw.decode("utf-8", "replace"), self._context(buf, 0, start, tail)
        self._keep_tail(buf, 0, len(buf), tail)

    @staticmethod
    def _context(buf: bytes, lo: int, start: int, tail: bytes) -> bytes:
        """The whole lines in the CONTEXT bytes before buf[start] (reaching into the previous chunk's tail)."""
        if start - lo > CONTEXT:
            window = buf[start - CONTEXT - 1 : start]
        else:
            window = tail[max(0, len(tail) - (CONTEXT + 1 - (start - lo))) :] + buf[lo:start]
        if len(window) > CONTEXT:  # one byte more than the window: was its first line whole?
            cut = 1 if window[:1] == b"\n" else window.find(b"\n", 1) + 1
            window = window[cut:] if cut > 0 else b""
        return window

    def _keep_tail(self, buf: bytes, lo: int, hi: int, tail: bytes) -> None:
        if hi - lo > CONTEXT:
            self._tail = buf[hi - CONTEXT - 1 : hi]
        else:
            self._tail = (tail + buf[lo:hi])[-(CONTEXT + 1) :]

    def _lines(
        self, buf: bytes, lo: int, hi: int, spans: list[tuple[int, int]] | None = None
    ) -> Iterator[tuple[int, str, bytes]]:
        """Candidate lines of buf[lo:hi] (whole lines): (line number, text, the whole lines in the
        CONTEXT bytes before it)."""
        pos = lo
        line_no = self.lines
        tail = self._tail
        for start, stop in self.prefilter.line_spans(buf, lo, hi, self._scratch) if spans is None else spans:
            line_no += buf.count(b"\n", pos, start)
            pos = start
            raw = buf[start : min(stop, start + MAX_LINE)]
            yield line_no + 1, raw.decode("utf-8", "replace"), self._context(buf, lo, start, tail)
        self.lines = line_no + buf.count(b"\n", pos, hi)
        self._keep_tail(buf, lo, hi, tail)
