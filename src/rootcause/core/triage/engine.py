"""The triage engine: inputs in (chunk iterators, like `SourceInput.chunks`), a `TriageReport` out.

    t = Triage()
    for source in sources:
        t.add(source.name, source.chunks, source.rank)   # or: feed = t.open(...); feed.feed(chunk); feed.close()
    report = t.report()

Memory is bounded by the number of ranks, not by the size of the logs: lines are read one
chunk at a time, and only a few evidence lines per rank and kind are kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rootcause.core.normalize import strip_framing
from rootcause.core.triage.lines import LineStream, Prefilter
from rootcause.core.triage.model import TriageReport
from rootcause.core.triage.state import Accumulator

# Reading lines needs the three above; concluding (resolve, the rules, the report), Flight Recorder dumps, the
# second read's presence scan and the links to findings are imported where they are used: a single-rank
# `diagnose` feeds a triage and never asks for its report.
if TYPE_CHECKING:
    from rootcause.core.findings import Finding, SourceInput
    from rootcause.core.triage.flight import Dump
    from rootcause.core.triage.presence import PresenceScan

_PREFILTER: Prefilter | None = None
HOLD_LIMIT = 16 << 20  # bytes of candidate lines (and their context) a held feed keeps before it goes live


def _prefilter() -> Prefilter:
    global _PREFILTER
    if _PREFILTER is None:
        _PREFILTER = Prefilter()
    return _PREFILTER


class SourceFeed:
    """One input being read: feed its bytes in order, then close it."""

    def __init__(self, acc: Accumulator, idx: int, presence: bool = False) -> None:
        self._acc = acc
        self._idx = idx
        self._stream = LineStream(_prefilter())
        self._presence: PresenceScan | None = None
        if presence:
            from rootcause.core.triage.presence import PresenceScan

            self._presence = PresenceScan()
        self.closed = False
        self._held: list[tuple[int, str, bytes]] | None = None
        self.held_bytes = 0
        self.held_ranks: set[int] = set()

    def hold(self) -> None:
        """Keep the candidate lines instead of reading them, until `release()`: the caller does not know yet
        whether the input holds more than one rank. What is kept is the few lines that hold a keyword (with
        their context), not the input, at most HOLD_LIMIT bytes of them (then it releases itself);
        `held_ranks` says which ranks their prefixes name."""
        if self._held is None and not self.closed:
            self._held = []

    def release(self) -> None:
        """Read the held lines, in order, and every line from now on."""
        held, self._held = self._held, None
        for line_no, raw, context in held or ():
            self._acc.line(self._idx, line_no, raw, context)
        self.held_bytes = 0

    @property
    def holding(self) -> bool:
        return self._held is not None

    def _take(self, line_no: int, raw: str, context: bytes) -> None:
        if self._held is None:
            self._acc.line(self._idx, line_no, raw, context)
            return
        self._held.append((line_no, raw, context))
        self.held_bytes += len(raw) + len(context) + 64
        rank = strip_framing(raw).rank
        if rank is not None:
            self.held_ranks.add(rank)
        if self.held_bytes > HOLD_LIMIT:  # a log full of keywords: read them from here rather than hold more
            self.release()

    def feed(self, chunk: bytes) -> None:
        if self._presence is not None:
            self._presence.feed(chunk)
        for line_no, raw, context in self._stream.feed(chunk):
            self._take(line_no, raw, context)

    def feed_lines(
        self, buf: bytes, spans: list[tuple[int, int, int]] | None, size: int, lines: int | None = None
    ) -> None:
        """Whole lines, with the (start, stop, line number) of the lines that hold a keyword and the count of
        newlines, both from the caller's scan (None: found and counted here); ``size``: the input bytes
        they stand for (one less when the scanner added the last line's newline)."""
        if self._presence is not None:
            self._presence.feed(buf)
        for line_no, raw, context in self._stream.feed_lines(buf, spans, size, lines):
            self._take(line_no, raw, context)

    def close(self) -> None:
        if self.closed:
            return
        for line_no, raw, context in self._stream.finish():
            self._take(line_no, raw, context)
        if self._held is not None:  # never released: one rank only, so its lines say nothing to the triage
            self._held = None
            self._acc.close_source(self._idx, 0, 0)
        else:
            self._acc.close_source(self._idx, self._stream.lines, self._stream.bytes)
        if self._presence is not None:
            from rootcause.core.triage.presence import apply_presence

            apply_presence(self._acc, self._idx, self._presence.finish())
        self.closed = True


class Triage:
    """Accumulates any number of inputs (logs, and Flight Recorder dumps with `add_dump`), then concludes."""

    def __init__(self) -> None:
        self._acc = Accumulator()
        self._feeds: list[SourceFeed] = []
        self._dumps: dict[int, tuple[int, Dump]] = {}  # rank -> (source index, dump)

    @property
    def has_dumps(self) -> bool:
        return bool(self._dumps)

    def add_dump(self, name: str, data: bytes, rank: int | None = None) -> None:
        """One rank's Flight Recorder dump (pickle or JSON); `flight.DumpError` when it is not one."""
        from rootcause.core.triage.flight import DumpError, parse_dump

        dump = parse_dump(data, name, rank)
        if dump.rank in self._dumps:
            raise DumpError(f"{name}: a second Flight Recorder dump of rank {dump.rank}")
        idx = self._acc.open_source(name, None)
        self._acc.close_source(idx, sum(len(ops) for ops in dump.ops.values()), len(data))
        self._dumps[dump.rank] = (idx, dump)

    def open(self, name: str, rank: int | None = None, *, presence: bool = False) -> SourceFeed:
        """``presence``: also read which ranks every line's prefix names (`presence.py`), for a second read."""
        feed = SourceFeed(self._acc, self._acc.open_source(name, rank), presence)
        self._feeds.append(feed)
        return feed

    def add(self, name: str, chunks: Iterable[bytes], rank: int | None = None, *, presence: bool = False) -> None:
        feed = self.open(name, rank, presence=presence)
        for chunk in chunks:
            feed.feed(chunk)
        feed.close()

    def again(self) -> Triage:
        """A fresh triage holding the same Flight Recorder dumps, for a second read of the logs."""
        t = Triage()
        for rank, (idx, dump) in sorted(self._dumps.items()):
            src = self._acc.sources[idx]
            new = t._acc.open_source(src.name, None)
            t._acc.close_source(new, src.lines, src.bytes)
            t._dumps[rank] = (new, dump)
        return t

    def report(self) -> TriageReport:
        from rootcause.core.triage.conclude import conclude
        from rootcause.core.triage.flight import compare
        from rootcause.core.triage.report import build_report
        from rootcause.core.triage.resolve import resolve

        for feed in self._feeds:
            feed.close()
        res = resolve(self._acc)
        if self._dumps:
            res.flight = compare({r: d for r, (_, d) in self._dumps.items()}, res.world_size)
            res.flight_src = {r: idx for r, (idx, _) in self._dumps.items()}
        return build_report(res, conclude(res))


def wants_second_read(report: TriageReport) -> bool:
    """Whether reading the logs again for the ranks of every line's prefix may decide: the answer is `undecided`
    with no candidate (a rank that printed no line the prefilter keeps left no trace of having existed)."""
    return report.conclusion.kind == "undecided" and not report.conclusion.candidates


def triage_sources(sources: Iterable[SourceInput]) -> TriageReport:
    t = Triage()
    for source in sources:
        t.add(source.name, source.chunks, source.rank)
    return t.report()


def link_findings(report: TriageReport, findings: list[Finding]) -> None:
    """Attach the knowledge-base entries of a diagnosis of the same inputs (see `kb.link`)."""
    from rootcause.core.triage.kb import link, matches_from_findings

    link(report, matches_from_findings(findings))
