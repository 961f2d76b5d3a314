"""Streaming in bounded memory: state grows with the number of ranks, not with the size of the logs."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

from rootcause.core.triage.engine import Triage
from rootcause.core.triage.lines import CONTEXT, LineStream, Prefilter
from rootcause.core.triage.report import MAX_EVIDENCE
from rootcause.core.triage.state import MAX_GROUPS, MAX_PER_KIND

NOISE = [
    "[rank{r}]: step {n} | loss 2.{n:04d} | lr 3.0e-04 | grad_norm 0.9 | tokens/s 98000",
    "node-{h}:{p}:{p} [{d}] NCCL INFO Channel {c:02d}/32 : {r} -> {r2} via P2P/CUMEM/read",
    "I1202 13:05:{s:02d}.123456 {p} torch/distributed/elastic/agent/server/api.py:{n}] heartbeat",
]


def _noise_block(rank: int, lines: int = 2500) -> bytes:
    out = []
    for n in range(lines):
        tpl = NOISE[n % len(NOISE)]
        out.append(tpl.format(r=rank, r2=rank + 1, n=n, h=rank // 8, p=1000 + rank, d=rank % 8, c=n % 32, s=n % 60))
    return ("\n".join(out) + "\n").encode()


def noisy_log(rank: int, mb: int, errors: int) -> Iterator[bytes]:
    """About `mb` MiB of noise in chunks of 2,500 lines, with `errors` distinct error lines spread through it."""
    block = _noise_block(rank)
    chunks = max(1, (mb << 20) // len(block))
    per_chunk = -(-errors // chunks) if errors else 0
    made = 0
    for i in range(chunks):
        extra = []
        for _ in range(min(per_chunk, errors - made)):
            made += 1
            extra.append(f"[rank{rank}]: RuntimeError: distinct failure number {made} in module_{i}_{made % 9973}\n")
        yield block + "".join(extra).encode()


def test_line_numbers_and_candidates_match_a_naive_reader() -> None:
    data = b"".join(noisy_log(3, 1, errors=50))
    stream = LineStream(Prefilter())
    got = [(n, text) for n, text, _ in stream.feed(data[:70001])]
    got += [(n, text) for n, text, _ in stream.feed(data[70001:])]
    got += [(n, text) for n, text, _ in stream.finish()]
    expected = [(i, line) for i, line in enumerate(data.decode().splitlines(), 1) if "Error" in line]
    assert len(expected) == 50
    assert got == expected
    assert stream.lines == data.count(b"\n") and stream.bytes == len(data)


def test_context_is_whole_lines() -> None:
    stream = LineStream(Prefilter())
    text = "".join(f"2025-01-01 00:00:{i % 60:02d},000 - INFO - line {i}\n" for i in range(400)) + "KeyError: 'x'\n"
    [(_, _, context)] = list(stream.feed(text.encode()))
    assert len(context) <= CONTEXT
    assert context.endswith(b"line 399\n") and context.startswith(b"2025-01-01")


def test_memory_and_state_stay_bounded() -> None:
    """32 ranks x 2 MiB with 400 distinct errors each: caps hold, and traced memory stays far below the input size."""
    t = Triage()
    tracemalloc.start()
    try:
        for rank in range(32):
            t.add(f"rank{rank}.log", noisy_log(rank, 2, errors=400), rank)
        report = t.report()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(i.bytes for i in report.inputs) >= 60 << 20
    assert peak < 24 << 20, f"peak {peak / 2**20:.1f} MiB"
    assert len(report.timeline) <= MAX_GROUPS
    assert len(report.evidence) <= MAX_EVIDENCE
    assert all(len(r.timeouts) <= MAX_PER_KIND for r in report.ranks.values())
    assert report.truncated and any("dropped" in n for n in report.notes)
    assert report.conclusion.kind == "crash-first"  # every rank failed on its own; the earliest is named
    assert len(report.ranks) == 32


def test_prefilter_without_hyperscan_finds_the_same_lines() -> None:
    """Where hyperscan is missing (not x86-64), the Python `re` fallback selects the same lines."""
    data = b"".join(noisy_log(5, 1, errors=30)) + b"tail without newline: KeyError: 'x'"
    fast = Prefilter()
    slow = Prefilter()
    slow._db = None
    assert fast.line_spans(data) == slow.line_spans(data)
    assert fast.line_spans(data, 1000, 200000) == slow.line_spans(data, 1000, 200000)
    assert len(slow.line_spans(data)) == 31
