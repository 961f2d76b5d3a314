"""Streaming scan of one input: bytes in, confirmed hits out, in bounded memory.

The raw text goes through the hyperscan noise skipper, one pass a chunk, which
reports the lines that might match anything; only those lines (and, for multi-line
patterns, the window that ends at them) are cleaned and confirmed with RE2. Lines of noise
never reach Python. Memory holds one chunk and a few tail lines.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections import deque
from collections.abc import Iterator
from typing import Protocol

from rootcause.core.matching.index import INNER_ERROR_NEXT, CompiledIndex
from rootcause.core.matching.scan_confirm import MAX_CONTEXT, MAX_CONTEXTS, ConfirmedHits, Groups
from rootcause.core.matching.scan_errorish import LEXICAL_KEEP, ErrorishLines, looks_errorish
from rootcause.core.matching.scan_result import MAX_LINE, Hit, ScanResult
from rootcause.core.matching.scan_wrap import HAND_WRAP, MAX_WRAPPED, WRAP_WIDTHS, WrapRepair
from rootcause.core.normalize import CleanLine, strip_framing

__all__ = [
    "CHUNK_LIMIT",
    "HAND_WRAP",
    "LEXICAL_KEEP",
    "MAX_CONTEXT",
    "MAX_CONTEXTS",
    "MAX_LINE",
    "MAX_WRAPPED",
    "OVERLAP_LIMIT",
    "WRAP_WIDTHS",
    "Hit",
    "ScanResult",
    "SourceScanner",
    "TriageTap",
    "count_newlines",
    "iter_text_chunks",
]

CHUNK_LIMIT = 4 << 20
SMALL_INPUT = 1 << 20  # a paste, not a program's log: the wrap repair, the cut-paste pass and typed punctuation
# What a person's copy or keyboard puts where a program printed an ASCII space, colon or quote: a no-break space (a
# web page's rendering), an ideographic space and a full-width colon (a Chinese input method), curly quotes (an
# editor's or an issue title's: ``cannot import name ‘X’ from ‘torch._C’``, pytorch#88166). A program's log seldom
# holds them, so only a small input is looked at; GCC's messages do quote with curly quotes, and the canon's patterns
# that name one accept the straight quote too.
_TYPED_PUNCTUATION = (
    (b"\xc2\xa0", b" "),
    (b"\xe3\x80\x80", b" "),
    (b"\xef\xbc\x9a", b": "),
    (b"\xe2\x80\x98", b"'"),
    (b"\xe2\x80\x99", b"'"),
    (b"\xe2\x80\x9c", b'"'),
    (b"\xe2\x80\x9d", b'"'),
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*\x07")  # as normalize.ANSI_RE
OVERLAP_LIMIT = 256 << 10  # at most this much of a chunk is carried into the next scan
LATE_LIMIT = 1 << 16  # matches reported out of order, per chunk (hyperscan reports in order of end offset)


class TriageTap(Protocol):
    """Where the lines that hold a triage keyword go (`triage.engine.SourceFeed`): the scan finds them with
    the same hyperscan pass as the canon's patterns, so an input is read once for both."""

    def feed(self, data: bytes) -> None: ...

    def feed_lines(
        self, buf: bytes, spans: list[tuple[int, int, int]] | None, size: int, lines: int | None = None
    ) -> None: ...

    def hold(self) -> None: ...

    def release(self) -> None: ...

    @property
    def holding(self) -> bool: ...

    @property
    def held_ranks(self) -> set[int]: ...


class SourceScanner(ConfirmedHits, ErrorishLines, WrapRepair):
    """Scans one input (a file, stdin, a pasted text). Feed bytes, then finish().

    Error-looking lines (``scan_errorish``) and the wrap repair and truncated matching of small inputs
    (``scan_wrap``) are its mixins, in sibling modules."""

    def __init__(
        self, index: CompiledIndex, *, max_hits: int = 20_000, tap: TriageTap | None = None, defer_tap: bool = False
    ) -> None:
        """``defer_tap``: the input may hold one rank only (one unnamed input), so the tap holds the lines that
        hold its keywords (a few, with their context) unread, and reads them only from the first sign of a
        second rank: a line this scan handled, or one of the held lines, framed with another rank than an
        earlier one. Held lines past the tap's limit (a log full of keywords) make it read them there. The input
        is read once either way, and a single-rank log never pays for the triage's reading of its lines."""
        self.index = index
        self._tap = tap
        self._tap_on = not defer_tap
        if tap is not None and defer_tap:
            tap.hold()
        self._ranks: set[int] = set()
        self._single_hit_lines: set[int] = set()  # lines a one-line pattern matched (at most max_hits)
        self.result = ScanResult()
        self._carry = b""
        self._cr_held = False  # a CR that ended the last piece fed, held until the next shows whether an LF follows
        # the last lines before the current one, raw (bytes) or cleaned (str): windows read them
        self._tail: deque[bytes | str] = deque(maxlen=max(index.max_window, 2))
        self._errorish_head: list[tuple[int, str, str, int | None]] = []
        self._max_hits = max_hits
        self._scratch = index.take_scratch()  # given back when finished
        self._small: list[str] | None = []  # all lines, while the input is small (wrap repair)
        self._overlap = b""  # the previous chunk's last lines, for windows across chunks
        self._errorish_raw: deque[tuple[int, bytes]] = deque(maxlen=2 * LEXICAL_KEEP)
        self._errorish_pending: list[tuple[bytes, list[int], int, int]] = []  # (chunk, offsets, lo, base)
        self._contexts = 0
        self._singles: dict[bytes, tuple[str, CleanLine, Groups]] = {}

    # -- feeding ----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        self.result.bytes += len(data)
        if self._cr_held:  # the previous piece ended between a CR and, maybe, its LF
            self._cr_held = False
            data = data if data[:1] == b"\n" else b"\r" + data
        if self.result.bytes <= SMALL_INPUT:
            for typed, printed in _TYPED_PUNCTUATION:
                if typed in data:
                    data = bytes(data).replace(typed, printed)
        if b"\r" in data:  # a Windows paste: CRLF line ends would hide multi-line windows from the prefilter
            data = bytes(data).replace(b"\r\n", b"\n")
            if data.endswith(b"\r"):
                data, self._cr_held = data[:-1], True
        cut = data.rfind(b"\n")
        if cut < 0:
            self._carry = self._carry + data if self._carry else data
            if len(self._carry) > CHUNK_LIMIT:  # one enormous line: scan what we have
                self._scan(self._carry + b"\n", added_newline=True)
                self._carry = b""
            return
        carry, self._carry = self._carry, data[cut + 1 :]
        self._scan(memoryview(data)[: cut + 1], carry=carry)  # whole lines, joined with the carry once

    def finish(self) -> ScanResult:
        if self._cr_held:
            self._cr_held = False
            self._carry = bytes(self._carry) + b"\r"
        self.result.open_end = bool(self._carry) and self._small is not None
        if self._carry:
            self._scan(self._carry + b"\n", added_newline=True)
            self._carry = b""
        if self._small is not None:
            self._repair_wrapped(self._small)
            self._match_truncated(self._small)
            self._drop_raised_elsewhere(self._small)
        self.result.errorish = self._errorish_lines()
        self.index.give_back_scratch(self._scratch)
        self._scratch = None  # another scan may take it now; a scanner fed after finishing confirms with RE2 sets
        return self.result

    # -- scanning ---------------------------------------------------------------------------
    def _scan(self, chunk: bytes | memoryview, added_newline: bool = False, carry: bytes = b"") -> None:
        """Scan whole lines: ``carry`` (the start of the first line, from the previous feed) then ``chunk``."""
        base = self.result.lines
        if self._small is not None:
            if self.result.bytes <= SMALL_INPUT:
                self._small.extend((carry + bytes(chunk)).decode("utf-8", "replace").splitlines())
            else:
                self._small = None
        if self.index.hs_db is None:
            whole = carry + bytes(chunk)
            self._scan_lines(whole, base)
            self.result.lines = base + whole.count(b"\n")
            if self._tap is not None:  # the triage's own prefilter (Python re without hyperscan)
                self._to_tap(whole, 0, None, len(whole) - int(added_newline), None)
        else:
            self.result.lines = self._scan_hyperscan(carry, chunk, base, added_newline)

    def _scan_hyperscan(self, carry: bytes, chunk: bytes | memoryview, base: int, added_newline: bool = False) -> int:
        """Skip noise in C; stop in Python only on lines that may match. Returns the line count after the chunk.

        One hyperscan pass over the chunk (after the previous chunk's last `max_window - 1` lines, so a multi-line
        window that began there is seen) reports every candidate; matches that end in the carried-over lines were
        handled with the previous chunk. The lines to handle (and those that hold a triage keyword) are collected,
        then numbered in one forward sweep, so each newline of the input is counted once.
        """
        overlap = self._overlap
        data = b"".join((overlap, carry, chunk))  # the one copy of the input
        lo = len(overlap)
        errorish: list[int] = []
        errorish_id = self.index.special_ids["errorish"]
        triage_lo = self.index.special_ids["triage"]
        tap = self._tap
        keyword_ends: list[int] = []
        # the lines where a canon pattern's scanned form ends, [start, stop at its newline, whether a multi-line
        # pattern may end there], one item a line: a long line on which a pattern matches at every byte (hostile
        # input) adds one item, not one per match
        halts: list[list[int]] = []
        late: list[tuple[int, bool]] = []  # matches reported after a later line's (kept apart, merged after the scan)
        size = len(data)
        n_scanned = self.index.n_scanned
        window_of = self.index.window_of

        def on_match(pattern_id: int, _from: int, end: int, _flags: int, _ctx: object) -> bool:
            if end <= lo:
                return False  # ends on a line handled with the previous chunk
            if pattern_id >= triage_lo:
                if tap is not None and (not keyword_ends or keyword_ends[-1] != end):
                    keyword_ends.append(end)
                return False
            if pattern_id == errorish_id:
                if not errorish or errorish[-1] != end:
                    errorish.append(end)  # remembered only: the lexical stage reads a few of them
                return False
            multi = pattern_id < n_scanned and window_of(pattern_id) > 1
            last = halts[-1] if halts else None
            if last is not None and last[0] < end <= last[1] + 1:  # on the line already recorded
                if multi:
                    last[2] = 1
            elif last is None or end > last[1] + 1:  # the first candidate on a new line
                start = data.rfind(b"\n", lo, end - 1) + 1 or lo
                stop = data.find(b"\n", end - 1)
                halts.append([start, size if stop < 0 else stop, int(multi)])
            elif len(late) < LATE_LIMIT:
                late.append((end, multi))
            return False

        self.index.hs_db.scan(data, match_event_handler=on_match, scratch=self._scratch)
        merged = self._merged_lines(data, lo, halts, late)
        keyword_lines = self._keyword_lines(data, lo, keyword_ends) if tap is not None else {}
        line_no = self._handle_halts(data, lo, base, merged, keyword_lines)
        self._keep_errorish_offsets(data, errorish, lo, base)
        if tap is not None:
            spans = [(a - lo, b - lo, n) for a, (b, n) in sorted(keyword_lines.items())]  # in input order
            self._to_tap(data, lo, spans, len(data) - lo - int(added_newline), line_no - base)
        self._overlap = self._last_lines(data)
        return line_no

    @staticmethod
    def _merged_lines(
        data: bytes, lo: int, halts: list[list[int]], late: list[tuple[int, bool]]
    ) -> list[tuple[int, int, bool]]:
        """The lines to handle, in input order, with those of matches reported out of order merged in."""
        lines = {start: (stop, bool(multi)) for start, stop, multi in halts}
        for end, multi in late:
            start = data.rfind(b"\n", lo, end - 1) + 1 or lo
            stop = data.find(b"\n", end - 1)
            known = lines.get(start)
            lines[start] = (len(data) if stop < 0 else stop, multi or (known is not None and known[1]))
        return [(start, stop, multi) for start, (stop, multi) in sorted(lines.items())]

    def _handle_halts(
        self, data: bytes, lo: int, base: int, halts: list[tuple[int, int, bool]], keyword_lines: dict[int, list[int]]
    ) -> int:
        """Handle the halted lines in order and number the keyword lines, in one forward count of newlines."""
        cursor, line_no = lo, base  # complete lines before `cursor`
        pos = lo  # first byte not yet handled or remembered
        marks = sorted({*keyword_lines, *(start for start, _, _ in halts)})
        todo = iter(halts)
        halt = next(todo, None)
        for start in marks:
            line_no += count_newlines(data, cursor, start)
            cursor = start
            if start in keyword_lines:
                keyword_lines[start][1] = line_no + 1
            if halt is not None and halt[0] == start:
                _, stop, multi = halt
                if multi:
                    if start > pos:
                        self._remember_lines(data, pos, start)
                    self._handle_line(data[start:stop].decode("utf-8", "replace"), line_no + 1)
                    pos = stop + 1
                else:  # read alone; it stays in the raw lines a later window reads
                    self._handle_single(data[start:stop], line_no + 1)
                halt = next(todo, None)
        if pos < len(data):
            self._remember_lines(data, pos, len(data))
        return line_no + count_newlines(data, cursor, len(data))

    @staticmethod
    def _keyword_lines(data: bytes, lo: int, ends: list[int]) -> dict[int, list[int]]:
        """The chunk's lines that hold a triage keyword: start -> [stop, line number (filled in later)]."""
        lines: dict[int, list[int]] = {}
        for end in ends:
            start = data.rfind(b"\n", lo, end - 1) + 1 or lo
            if start not in lines:
                stop = data.find(b"\n", end - 1)
                lines[start] = [len(data) if stop < 0 else stop, 0]
        return lines

    # -- the triage tap: eager, or deferred until a second rank shows -------------------------
    def _to_tap(
        self, data: bytes, lo: int, spans: list[tuple[int, int, int]] | None, size: int, lines: int | None
    ) -> None:
        """data[lo:] (whole lines) to the tap; spans are relative to ``lo``."""
        tap = self._tap
        if tap is None:
            return
        tap.feed_lines(data[lo:] if lo else data, spans, size, lines)
        if self._tap_on:
            return
        if not tap.holding:  # it held as much as it may, and reads from here on
            self._tap_on = True
            return
        self._ranks |= tap.held_ranks
        if len(self._ranks) >= 2:
            self._switch_tap_on()

    def _note_rank(self, rank: int | None) -> None:
        """A rank seen on a line this scan handled; the second distinct one switches the deferred tap on."""
        if rank is None or self._tap_on or self._tap is None or rank in self._ranks:
            return
        self._ranks.add(rank)
        if len(self._ranks) >= 2:
            self._switch_tap_on()

    def _switch_tap_on(self) -> None:
        """The tap reads what it held, and every line from now on."""
        assert self._tap is not None
        self._tap_on = True
        self._tap.release()

    def _window_start(self, data: bytes, pos: int) -> int:
        """Start of the line `max_window - 1` lines before `pos` (or of the buffer)."""
        start = pos
        for _ in range(self.index.max_window - 1):
            if start <= 0:
                return 0
            start = data.rfind(b"\n", 0, start - 1) + 1
        return start

    def _last_lines(self, data: bytes) -> bytes:
        if self.index.max_window <= 1:
            return b""
        start = self._window_start(data, len(data))
        return data[max(start, len(data) - OVERLAP_LIMIT) :]

    def _family(self, pattern: int) -> bool:
        return self.index.entries[self.index.patterns[pattern].entry_id].family

    def _scan_lines(self, chunk: bytes, base: int) -> None:
        for n, raw_bytes in enumerate(chunk.split(b"\n")[:-1], start=base + 1):
            self._handle_line(raw_bytes.decode("utf-8", "replace"), n)

    def _remember_lines(self, chunk: bytes, start: int, stop: int) -> None:
        """Keep the last few skipped lines (raw) as context for multi-line windows."""
        if self.index.max_window <= 1:
            return
        first = self._window_start(chunk, stop) if stop - start > 0 else stop
        first = max(first, start)
        for piece in chunk[first:stop].split(b"\n"):
            self._tail.append(piece)
        if chunk[stop - 1 : stop] == b"\n":
            self._tail.pop()  # the empty piece after the final newline

    def _window_text(self, window: int) -> str:
        """The last `window` lines, cleaned, joined with newlines."""
        return "\n".join(self._window_lines(window))

    # -- one line ---------------------------------------------------------------------------
    def _handle_line(self, raw: str, line_no: int) -> None:
        """A line on which a multi-line pattern may end (the scan says so), read with the widest window of lines
        before it; every line, without hyperscan."""
        clean = strip_framing(raw[:MAX_LINE])
        self._tail.append(clean.text)
        matched = self._match_clean(clean, raw, line_no)
        if not matched and self.index.hs_db is None and (looks_errorish(clean.text) or self._after_inner_error_head()):
            encoded = raw.encode("utf-8", "replace")
            self._keep_errorish_raw(line_no, encoded, 0)
        self._note_versions(clean.text)

    def _after_inner_error_head(self) -> bool:
        """Whether the line before the current one ends in INNER_ERROR_NEXT (ERRORISH_REGEX's multi-line branch,
        which hyperscan reads and a one-line test cannot)."""
        before = self._tail[-2] if len(self._tail) > 1 else ""
        before = before.decode("utf-8", "replace") if isinstance(before, bytes) else before  # a raw line kept
        return before.rstrip().endswith(INNER_ERROR_NEXT)

    def _match_clean(self, clean: CleanLine, raw: str, line_no: int) -> bool:
        index = self.index
        if index.hs_db is None or self._scratch is None:
            return self._match_windows(clean, raw, line_no)
        groups = self._confirmed_groups(self._window_lines(index.max_window), clean)
        for window, text, confirmed in groups:
            self._record_hits(confirmed, window, text, clean, raw, line_no)
        return bool(groups)

    def _window_lines(self, window: int) -> list[str]:
        """The last `window` lines, cleaned (in place: later lines' windows read them again)."""
        tail = self._tail
        first = max(0, len(tail) - window)
        for i in range(first, len(tail)):
            line = tail[i]
            if isinstance(line, bytes):  # cleaned once, in place: every wider window reads it again
                tail[i] = strip_framing(line[:MAX_LINE].decode("utf-8", "replace")).text
        return list(itertools.islice(tail, first, None))  # type: ignore[arg-type]

    def _match_windows(self, clean: CleanLine, raw: str, line_no: int) -> bool:
        """Without hyperscan: each window's text through the RE2 set of its window size."""
        matched = False
        for window in self.index.windows:
            text = clean.text if window == 1 else self._window_text(window)
            found = self.index.candidates(text, window, self._scratch)
            matched = self._confirm_hits(found, window, text, clean, raw, line_no) or matched
        return matched

    def _confirm_hits(self, found: list[int], window: int, text: str, clean: CleanLine, raw: str, line_no: int) -> bool:
        """Confirm a window's candidates with RE2 on its text; a confirmed one is a hit."""
        confirmed = self._confirmed(found, text)
        self._record_hits(confirmed, window, text, clean, raw, line_no)
        return bool(confirmed)


def count_newlines(data: bytes, start: int, end: int) -> int:
    """Newlines in data[start:end]: every byte of an input is counted once, by this."""
    return data.count(b"\n", start, end)


def iter_text_chunks(text: str, size: int = 1 << 20) -> Iterator[bytes]:
    """A pasted text as chunks of bytes. What a paste's copy adds is taken off first: a terminal's colour codes (at
    a line's start or end they hide it from anchored patterns) and the margin of a paste indented whole (a
    markdown code block); a log file keeps its lines as they are (its findings quote them)."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if text[:1] in (" ", "\t") and len(text) <= size:
        text = textwrap.dedent(text)
    data = text.encode("utf-8", "replace")
    for i in range(0, len(data), size):
        yield data[i : i + size]
