"""Confirming a line's candidates and recording its hits; a line read alone, whose outcome is kept for its repeats.

A mixin of ``scan.SourceScanner``, whose state it reads; its methods resolve on the scanner's class like the
scanner's own, so the scan loop pays nothing for the split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rootcause.core.matching.index import CompiledIndex
from rootcause.core.matching.scan_result import MAX_LINE, Hit, ScanResult
from rootcause.core.normalize import CleanLine, strip_framing
from rootcause.core.versions import versions_in_line

MAX_CONTEXT = 8 << 10  # the most of a multi-line match's window a hit keeps
MAX_CONTEXTS = 256  # hits that keep their window, per input
SINGLES_HELD = 1024  # distinct lines read alone whose outcome a scan keeps for their repeats ...
SINGLE_HELD_BYTES = 2048  # ... each at most this long (a few MiB in all)

Confirmed = list[tuple[int, dict[str, str]]]  # (pattern, its captures)
Groups = list[tuple[int, str, Confirmed]]  # (window size, the window's text, what it confirmed)


class ConfirmedHits:
    """The confirmation of one scan's candidates (the state is set up by ``SourceScanner.__init__``)."""

    index: CompiledIndex
    result: ScanResult
    _scratch: Any
    _max_hits: int
    _contexts: int
    _single_hit_lines: set[int]
    _singles: dict[bytes, tuple[str, CleanLine, Groups]]

    if TYPE_CHECKING:

        def _note_rank(self, rank: int | None) -> None: ...

        def _family(self, pattern: int) -> bool: ...

    def _handle_single(self, raw_bytes: bytes, line_no: int) -> None:
        """A line on which no multi-line pattern may end, read alone. A log repeats its lines (a warning each step):
        what a line's text gave is kept, and its repeats only record their hits."""
        held = self._singles.get(raw_bytes)
        if held is None:
            raw = raw_bytes.decode("utf-8", "replace")
            clean = strip_framing(raw[:MAX_LINE])
            held = (raw, clean, self._confirmed_groups([clean.text], clean))
            self._note_versions(clean.text)
            if len(raw_bytes) <= SINGLE_HELD_BYTES:
                if len(self._singles) >= SINGLES_HELD:
                    self._singles.clear()
                self._singles[raw_bytes] = held
        raw, clean, groups = held
        for window, text, confirmed in groups:
            self._record_hits(confirmed, window, text, clean, raw, line_no)

    def _note_versions(self, text: str) -> None:
        for name, version in versions_in_line(text).items():
            self.result.env.setdefault(name, version)

    def _confirmed_groups(self, lines: list[str], clean: CleanLine) -> Groups:
        """The patterns confirmed on the last of ``lines`` (cleaned, the line itself last), per window size: one scan
        of the widest window's text, as a window's text is its last lines, so a pattern that may match a window ends
        past its first byte in the widest one; each candidate is confirmed on its window's own text."""
        index = self.index
        encoded = [line.encode("utf-8", "replace") for line in lines]
        ends = index.candidate_ends(b"\n".join(encoded), self._scratch)
        if not ends:
            return []
        starts = [0] * len(lines)  # each line's first byte in the widest text
        for i in range(1, len(lines)):
            starts[i] = starts[i - 1] + len(encoded[i - 1]) + 1
        by_window: dict[int, list[int]] = {}  # the candidates of each window size, in pattern order
        window_of = index.window_of
        for p in sorted(ends):
            by_window.setdefault(window_of(p), []).append(p)
        groups: Groups = []
        for window in index.windows:
            candidates = by_window.get(window)
            if candidates is None:
                continue
            first_line = max(0, len(lines) - window)
            start = starts[first_line]
            ids = [p for p in candidates if ends[p] >= start]
            if ids:
                text = clean.text if window == 1 else "\n".join(lines[first_line:])
                confirmed = self._confirmed(ids, text)
                if confirmed:
                    groups.append((window, text, confirmed))
        return groups

    def _confirmed(self, found: list[int], text: str) -> Confirmed:
        confirm = self.index.confirm
        return [(p, params) for p in found if (params := confirm(p, text)) is not None]

    def _record_hits(
        self,
        confirmed: Confirmed,
        window: int,
        text: str,
        clean: CleanLine,
        raw: str,
        line_no: int,
    ) -> None:
        for p, params in confirmed:
            if len(self.result.hits) >= self._max_hits:
                self.result.truncated_hits += 1
                continue
            first = line_no - (text.count("\n") if window > 1 else 0)
            context = ""
            if window > 1 and self._contexts < MAX_CONTEXTS:  # bounded: hostile logs repeat tracebacks
                context, self._contexts = text[-MAX_CONTEXT:], self._contexts + 1
            self.result.hits.append(
                Hit(p, line_no, first, raw[:2000], clean.text[:2000], dict(params), clean.rank, context)
            )
            self._note_rank(clean.rank)
            if window == 1 and not self._family(p):
                self._single_hit_lines.add(line_no)
