"""Single-message latency against canon size (1k, 10k, 100k entries), in-process,
next to the naive approach (Python `re` over each entry's regex in turn).

    python bench/latency.py --sizes 1000 10000 100000

Large canons are synthesised from the real entries: each copy's patterns get a unique
literal prefix, so they never match the real messages (as most entries of a big canon
do not match a given message), while the real entries still do.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import time
from pathlib import Path

from rootcause.adapters.loading import load_entries
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry

_WORD = re.compile(r"(?<![\\<\w])([A-Za-z]{4,})")


def _tagged(regex: str, tag: str) -> str:
    """The same pattern with a unique literal spliced into each of its words: same shape, other text. Tagging only
    the first word left a copy whose first word sits in an optional group or an alternation (``(?:\\[TensorRT-LLM\\]
    )?CUDA ...``) matching the real message."""
    return _WORD.sub(lambda m: m.group(1)[:2] + tag + m.group(1)[2:], regex)


def synthesise(real: list[Entry], n: int) -> list[Entry]:
    out = list(real)
    i = 0
    while len(out) < n:
        base = real[i % len(real)]
        tag = f"synth{i}"
        patterns = [p.model_copy(update={"regex": _tagged(p.regex, tag)}) for p in base.patterns]
        out.append(base.model_copy(update={"id": f"{base.domain}/{base.slug}-{tag}", "patterns": patterns}))
        i += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--messages", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    real = load_entries()
    messages = [ex.text for e in real for ex in e.examples][: args.messages]
    rows = []
    for size in args.sizes:
        entries = synthesise(real, size)
        t0, c0 = time.perf_counter(), time.process_time()
        index = CompiledIndex(entries)
        build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the process's peak so far
        c1 = time.process_time()
        # the first call builds what the index builds when first needed: a line no entry claims asks for all of it
        diagnose_text("RuntimeError: a message that no entry of any canon describes, cut sho", index)
        first_cpu = time.process_time() - c1
        claimed = {f.id for msg in messages for f in diagnose_text(msg, index).findings if "-synth" in f.id}
        if claimed:  # a copy that matches a real message measures another canon than the one described
            raise SystemExit(f"synthesised entries match real messages: {sorted(claimed)[:5]}")
        lat = []
        for msg in messages:  # CPU time of this thread: the box is shared, and wall time counts the neighbours
            t = time.thread_time()
            diagnose_text(msg, index)
            lat.append(time.thread_time() - t)
        naive = [
            (re.compile(p.regex.replace("(?P<", "(?P<")), e.id) for e in entries for p in e.patterns if p.window == 1
        ]
        naive_lat = []
        for msg in messages[:50]:
            t = time.thread_time()
            hits = []
            for line in msg.splitlines():
                for rx, eid in naive:
                    if rx.search(line):
                        hits.append(eid)
            naive_lat.append(time.thread_time() - t)
        row = {
            "entries": size,
            "build_s": round(build, 2),
            "build_cpu_s": round(build_cpu, 2),
            "peak_rss_mib": round(peak_mib),
            "first_call_cpu_s": round(first_cpu, 2),
            "median_ms": statistics.median(lat) * 1000,
            "p99_ms": sorted(lat)[int(len(lat) * 0.99) - 1] * 1000,
            "naive_median_ms": statistics.median(naive_lat) * 1000,
        }
        row["speedup"] = row["naive_median_ms"] / row["median_ms"]
        rows.append(row)
        print(json.dumps(row))
        del index, naive, entries  # the next size's peak memory is its own
    print(
        "| entries | index build CPU s (wall) | peak RSS MiB | first call CPU s | median ms | p99 ms | naive `re` median ms"
        " | speed-up |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r['entries']:,} | {r['build_cpu_s']} ({r['build_s']}) | {r['peak_rss_mib']:,} | {r['first_call_cpu_s']}"
            f" | {r['median_ms']:.3f} | {r['p99_ms']:.3f} | {r['naive_median_ms']:.2f} | {r['speedup']:.0f}× |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
