"""What one worker does with a batch of rank logs: scan, diagnose, and turn the result into rows.

A batch is first scanned as one buffer by the hyperscan database: the rank logs in which no
pattern, no error-looking line and no version line occurs (most of a healthy fleet) are done
then, without a single line reaching Python. Each remaining log is diagnosed on its own, exactly as
``rootcause diagnose`` diagnoses that file alone, so the fleet's findings equal the per-file ones.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from rootcause.adapters.fleet.payload import IndexPayload, index_from_payload
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.fleet.layout import Layout
from rootcause.core.fleet.rows import Row, finding_rows, job_row
from rootcause.core.matching.index import CompiledIndex, hyperscan
from rootcause.core.matching.scan import ScanResult

DEFAULT_GROUP_BUDGET = 256 << 20  # bytes of one job's logs that its triage reads, at most
READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class LogText:
    """One rank log as an engine hands it over: its path, its bytes, when it was written."""

    path: str
    data: bytes
    mtime_ms: int | None = None


def now_ms() -> int:
    return int(time.time() * 1000)


def mtime_of(path: str) -> int | None:
    """The file's modification time when the path is local; None for object-store URLs."""
    try:
        return int(os.stat(path).st_mtime * 1000)
    except (OSError, ValueError):
        return None


def logs_with_candidates(index: CompiledIndex, datas: Sequence[bytes]) -> set[int]:
    """Which of the logs hold anything the hyperscan database halts on: one scan over the batch."""
    if index.hs_db is None or index.hs_scratch is None:
        return set(range(len(datas)))
    ends: list[int] = []
    pieces: list[bytes] = []
    offset = 0
    for data in datas:
        piece = data if data.endswith(b"\n") else data + b"\n"
        pieces.append(piece)
        offset += len(piece)
        ends.append(offset)
    buf = b"".join(pieces)
    view = memoryview(buf)
    scratch = index.hs_scratch.clone()
    marked: set[int] = set()
    start = 0
    found: list[int] = []
    triage_keywords = index.special_ids["triage"]  # the first of triage's keyword ids, which come last

    def on_match(pattern_id: int, _from: int, to: int, _flags: int, _ctx: object) -> bool:
        if pattern_id >= triage_keywords:  # ordinary log lines hold them: no reason to diagnose
            return False
        found.append(to)
        return True  # halt: the rest of this log need not be scanned

    while start < len(buf):
        found.clear()
        with contextlib.suppress(hyperscan.ScanTerminated):
            index.hs_db.scan(view[start:], match_event_handler=on_match, scratch=scratch)
        if not found:
            break
        n = bisect.bisect_left(ends, start + max(found[0], 1))
        marked.add(n)
        start = ends[n]
    return marked


class FleetScanner:
    """Holds the index (loaded once per process) and turns batches of logs into finding rows."""

    def __init__(self, payload: IndexPayload, layout: Layout, scanned_at: int) -> None:
        self.index = index_from_payload(payload)
        self.layout = layout
        self.scanned_at = scanned_at
        self.logs = 0
        self.bytes = 0
        self.diagnosed = 0

    def scan_batch(self, logs: Sequence[LogText]) -> list[Row]:
        rows: list[Row] = []
        self.logs += len(logs)
        self.bytes += sum(len(log.data) for log in logs)
        for n in sorted(logs_with_candidates(self.index, [log.data for log in logs])):
            rows.extend(self.scan_one(logs[n]))
        return rows

    def scan_one(self, log: LogText) -> list[Row]:
        self.diagnosed += 1
        place = self.layout.place(log.path)
        scans: list[ScanResult] = []
        d = diagnose_sources(
            [SourceInput(log.path, iter((log.data,)), place.rank)],
            self.index,
            scanned=lambda _name, result: scans.append(result),
        )
        unknown = [(line_no, clean) for line_no, _raw, clean, _rank in scans[0].errorish] if scans else []
        seen_at = log.mtime_ms if log.mtime_ms is not None else self.scanned_at
        return finding_rows(d, place, log.path, seen_at, unknown)


def read_head(path: str, limit: int) -> Iterator[bytes]:
    """The first ``limit`` bytes of a file, in chunks (gzip-compressed files are decompressed)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    left = limit
    with opener(path, "rb") as fh:
        while left > 0:
            chunk = fh.read(min(READ_CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk


def triage_job(
    job: str, members: Iterable[tuple[str, int | None]], budget: int = DEFAULT_GROUP_BUDGET, scanned_at: int = 0
) -> Row:
    """The multi-rank verdict of one job, reading at most ``budget`` bytes of its logs.

    Triage keeps a few lines per rank, not the logs, so its memory grows with the ranks; the budget
    bounds the reading: each rank gets an equal share, read from its start, and a job whose logs
    are larger is marked truncated.
    """
    from rootcause.core.triage.engine import Triage, wants_second_read

    ordered = sorted(members, key=lambda m: (m[1] is None, m[1] or 0, m[0]))
    share = max(budget // max(len(ordered), 1), 64 << 10)
    t = Triage()
    read = 0
    truncated = False
    latest = 0
    for path, rank in ordered:
        size = 0
        with contextlib.suppress(OSError):
            size = os.path.getsize(path)
        truncated |= size > share
        latest = max(latest, mtime_of(path) or 0)
        counted = _counting(read_head(path, share))
        t.add(path, counted, rank)
        read += counted.total
    report = t.report()
    if wants_second_read(report):  # the ranks of every line's prefix, from the same heads (triage_runner)
        again = t.again()
        for path, rank in ordered:
            again.add(path, read_head(path, share), rank, presence=True)
        report = again.report()
    return job_row(job, report, len(ordered), read, truncated, latest or scanned_at)


class _counting:
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self.total = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            self.total += len(chunk)
            yield chunk
