"""Streaming scan of one input: bytes in, confirmed hits out, in bounded memory.

The raw text goes through the hyperscan noise skipper, which halts at the first
line that might match anything; only that line (and, for multi-line patterns,
the window that ends at it) is cleaned and confirmed with RE2. Lines of noise
never reach Python. Memory holds one chunk and a few tail lines.
"""

from __future__ import annotations

import contextlib
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rootcause.core.matching.index import ERRORISH_REGEX, CompiledIndex, hyperscan
from rootcause.core.normalize import CleanLine, strip_framing
from rootcause.core.versions import Environment, versions_in_line

CHUNK_LIMIT = 4 << 20
WRAP_WIDTHS = frozenset({80, 100, 120, 132, 150, 160, 200, 240})
LEXICAL_KEEP = 100  # error-looking lines kept for the lexical stage, first and last
MAX_LINE = 64 << 10  # longer lines are cut for matching (hostile input)


@dataclass(slots=True)
class Hit:
    pattern: int
    line: int  # 1-based line number of the last line of the match
    first_line: int
    raw: str
    clean: str
    params: dict[str, str]
    rank: int | None


@dataclass
class ScanResult:
    lines: int = 0
    bytes: int = 0
    hits: list[Hit] = field(default_factory=list)
    errorish: list[tuple[int, str, str, int | None]] = field(default_factory=list)
    env: Environment = field(default_factory=dict)
    truncated_hits: int = 0


class _Halt(Exception):
    pass


class SourceScanner:
    """Scans one input (a file, stdin, a pasted text). Feed bytes, then finish()."""

    def __init__(self, index: CompiledIndex, *, max_hits: int = 20_000) -> None:
        self.index = index
        self.result = ScanResult()
        self._carry = b""
        self._tail: deque[str] = deque(maxlen=max(index.max_window, 2))
        self._errorish_head: list[tuple[int, str, str, int | None]] = []
        self._errorish_tail: deque[tuple[int, str, str, int | None]] = deque(maxlen=LEXICAL_KEEP)
        self._max_hits = max_hits
        self._scratch = None if index.hs_scratch is None else index.hs_scratch.clone()
        self._small: list[str] | None = []  # all lines, while the input is small (wrap repair)

    # -- feeding ----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        self.result.bytes += len(data)
        buf = self._carry + data if self._carry else data
        cut = buf.rfind(b"\n")
        if cut < 0:
            self._carry = buf
            if len(self._carry) > CHUNK_LIMIT:  # one enormous line: scan what we have
                self._scan(self._carry + b"\n")
                self._carry = b""
            return
        self._carry = buf[cut + 1 :]
        self._scan(buf[: cut + 1])

    def finish(self) -> ScanResult:
        if self._carry:
            self._scan(self._carry + b"\n")
            self._carry = b""
        if self._small is not None:
            self._repair_wrapped(self._small)
        self.result.errorish = self._errorish_head + list(self._errorish_tail)
        return self.result

    # -- scanning ---------------------------------------------------------------------------
    def _scan(self, chunk: bytes) -> None:
        base = self.result.lines
        n_lines = chunk.count(b"\n")
        if self._small is not None:
            if self.result.bytes <= (1 << 20):
                self._small.extend(chunk.decode("utf-8", "replace").splitlines())
            else:
                self._small = None
        if self.index.hs_db is None:
            self._scan_lines(chunk, base)
        else:
            self._scan_hyperscan(chunk, base)
        self.result.lines = base + n_lines

    def _scan_hyperscan(self, chunk: bytes, base: int) -> None:
        view = memoryview(chunk)
        pos = 0
        line_no = base  # number of complete lines before `pos`
        found: list[int] = []
        errorish: list[int] = []  # offsets (relative to `pos`) of error-looking text
        errorish_id = self.index.special_ids["errorish"]

        def on_match(pattern_id: int, _from: int, to: int, _flags: int, _ctx: object) -> bool:
            if pattern_id == errorish_id:
                errorish.append(pos + to)  # only remembered: the lexical stage reads a few of them
                return False
            found.append(to)
            return True  # halt: handle this line in Python, then resume after it

        size = len(chunk)
        if base > 0:
            # windows that began in the previous chunk may end in this one's first lines
            pos, line_no = self._handle_forced(chunk, pos, line_no, self.index.max_window - 1)
        while pos < size:
            found.clear()
            with contextlib.suppress(hyperscan.ScanTerminated):
                self.index.hs_db.scan(view[pos:], match_event_handler=on_match, scratch=self._scratch)
            if not found:
                break
            end = pos + found[0]
            errorish_before = [off for off in errorish if off < end]
            del errorish[:]
            self._collect_errorish(chunk, errorish_before, base)
            probe = end - 1 if end > pos else pos
            if chunk[probe : probe + 1] == b"\n" and probe > pos:
                probe -= 1
            start = chunk.rfind(b"\n", 0, probe + 1) + 1 if probe >= 0 else 0
            start = max(start, pos)
            stop = chunk.find(b"\n", probe)
            stop = size if stop < 0 else stop
            skipped_to = chunk.count(b"\n", pos, start)
            line_no += skipped_to
            if skipped_to:
                self._remember_lines(chunk, pos, start)
            raw = chunk[start:stop].decode("utf-8", "replace")
            self._handle_line(raw, line_no + 1)
            line_no += 1
            pos = stop + 1
            # a multi-line window may start on this line and end on a later one, which the
            # resumed scan cannot see (its first line is behind it): look at those lines here
            pos, line_no = self._handle_forced(chunk, pos, line_no, self.index.max_window - 1)
        self._collect_errorish(chunk, errorish, base)
        if pos < size:
            self._remember_lines(chunk, pos, size)

    def _handle_forced(self, chunk: bytes, pos: int, line_no: int, count: int) -> tuple[int, int]:
        """Handle the next `count` lines in Python, whatever the skipper says."""
        size = len(chunk)
        for _ in range(count):
            if pos >= size:
                break
            stop = chunk.find(b"\n", pos)
            stop = size if stop < 0 else stop
            self._handle_line(chunk[pos:stop].decode("utf-8", "replace"), line_no + 1, forced=True)
            line_no += 1
            pos = stop + 1
        return pos, line_no

    def _collect_errorish(self, chunk: bytes, offsets: list[int], base: int) -> None:
        """Turn offsets of error-looking text into kept lines: the first few of the input and the
        last few (only the tail of a chunk's offsets can still be among the last)."""
        if len(self._errorish_head) >= LEXICAL_KEEP:
            offsets = offsets[-4 * LEXICAL_KEEP :]
        cursor, line_no = 0, base  # newlines counted so far, incrementally (offsets ascend)
        last_start = -1
        for off in offsets:
            start = chunk.rfind(b"\n", 0, max(off - 1, 0)) + 1 if off > 0 else 0
            if start == last_start:
                continue
            last_start = start
            line_no += chunk.count(b"\n", cursor, start)
            cursor = start
            stop = chunk.find(b"\n", start)
            raw = chunk[start : stop if stop >= 0 else len(chunk)].decode("utf-8", "replace")
            clean = strip_framing(raw[:MAX_LINE])
            if self.index.candidates(clean.text, 1):
                continue  # a pattern line, handled elsewhere
            self._keep_errorish((line_no + 1, raw[:2000], clean.text[:2000], clean.rank))

    def _keep_errorish(self, item: tuple[int, str, str, int | None]) -> None:
        if len(self._errorish_head) < LEXICAL_KEEP:
            self._errorish_head.append(item)
        else:
            self._errorish_tail.append(item)

    def _scan_lines(self, chunk: bytes, base: int) -> None:
        for n, raw_bytes in enumerate(chunk.split(b"\n")[:-1], start=base + 1):
            self._handle_line(raw_bytes.decode("utf-8", "replace"), n)

    def _remember_lines(self, chunk: bytes, start: int, stop: int) -> None:
        """Keep the last few skipped lines as context for multi-line windows."""
        want = self._tail.maxlen or 2
        cursor = stop
        lines: list[str] = []
        while len(lines) < want and cursor > start:
            prev = chunk.rfind(b"\n", start, cursor - 1)
            piece = chunk[(prev + 1 if prev >= start else start) : cursor].rstrip(b"\n")
            lines.append(piece.decode("utf-8", "replace"))
            cursor = prev + 1 if prev >= start else start
            if prev < start:
                break
        for line in reversed(lines):
            self._tail.append(strip_framing(line[:MAX_LINE]).text)

    # -- one line ---------------------------------------------------------------------------
    def _handle_line(self, raw: str, line_no: int, *, forced: bool = False) -> None:
        clean = strip_framing(raw[:MAX_LINE])
        self._tail.append(clean.text)
        matched = self._match_clean(clean, raw, line_no)
        if not matched and (forced or self.index.hs_db is None) and _looks_errorish(clean.text):
            self._keep_errorish((line_no, raw[:2000], clean.text[:2000], clean.rank))
        env = versions_in_line(clean.text)
        for name, version in env.items():
            self.result.env.setdefault(name, version)

    def _match_clean(self, clean: CleanLine, raw: str, line_no: int) -> bool:
        matched = False
        index = self.index
        for window in index.windows:
            text = clean.text if window == 1 else "\n".join(list(self._tail)[-window:])
            for p in index.candidates(text, window):
                params = index.confirm(p, text)
                if params is None:
                    continue
                matched = True
                if len(self.result.hits) >= self._max_hits:
                    self.result.truncated_hits += 1
                    continue
                first = line_no - (text.count("\n") if window > 1 else 0)
                self.result.hits.append(Hit(p, line_no, first, raw[:2000], clean.text[:2000], params, clean.rank))
        return matched

    def _repair_wrapped(self, lines: list[str]) -> None:
        """Terminals wrap long lines at a fixed width; rejoin and match them (small inputs)."""
        for i in range(len(lines) - 1):
            width = len(lines[i].rstrip("\r"))
            if width not in WRAP_WIDTHS:
                continue
            joined = strip_framing(lines[i].rstrip("\r") + lines[i + 1])
            seen = {(h.pattern, h.line) for h in self.result.hits}
            for p in self.index.candidates(joined.text, 1):
                if (p, i + 1) in seen or (p, i + 2) in seen:
                    continue
                params = self.index.confirm(p, joined.text)
                if params is not None:
                    self.result.hits.append(
                        Hit(p, i + 2, i + 1, lines[i] + lines[i + 1], joined.text, params, joined.rank)
                    )


_ERRORISH = re.compile(ERRORISH_REGEX)


def _looks_errorish(text: str) -> bool:
    return _ERRORISH.search(text) is not None


def scan_source(index: CompiledIndex, chunks: Iterable[bytes]) -> ScanResult:
    scanner = SourceScanner(index)
    for chunk in chunks:
        scanner.feed(chunk)
    return scanner.finish()


def iter_text_chunks(text: str, size: int = 1 << 20) -> Iterator[bytes]:
    data = text.encode("utf-8", "replace")
    for i in range(0, len(data), size):
        yield data[i : i + size]
