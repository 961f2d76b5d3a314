"""The public Python API against deadends-dev's, per message, in one process after the first call.

    pip install --no-deps --target /tmp/deadends deadends-dev==0.9.0
    python bench/api_vs_peer.py --peer /tmp/deadends [--every N] [--block N] [--json OUT]

Messages: the canon's examples. Each message goes to ``rootcause.diagnose(text)`` and to deadends-dev's
``generator.lookup.lookup(text)`` as an interleaved pair (so a busy neighbour slows both alike); the times
are CPU time of this thread (``time.thread_time``), since the box is shared. Both libraries are called
once before timing (rootcause loads its index, deadends-dev its canons); rootcause's public call then
holds its index and only checks the canon folders' stamps on each call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import rootcause
from rootcause.adapters.loading import load_entries


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", type=Path, required=True, help="where deadends-dev was installed (pip --target)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--every", type=int, default=1, help="every Nth example only (a quicker run)")
    ap.add_argument(
        "--block",
        type=int,
        default=1,
        help="messages per turn: each library takes N calls in a row, then the other (1: interleaved pairs)",
    )
    args = ap.parse_args()
    sys.path.insert(0, str(args.peer))
    from generator.lookup import lookup  # deadends-dev

    messages = [ex.text for e in load_entries() for ex in e.examples][:: args.every]
    rootcause.diagnose(messages[0])
    lookup(messages[0])
    ours: list[float] = []
    theirs: list[float] = []
    for start in range(0, len(messages), args.block):
        turn = messages[start : start + args.block]
        for text in turn:
            t0 = time.thread_time()
            rootcause.diagnose(text)
            ours.append((time.thread_time() - t0) * 1000)
        for text in turn:
            t0 = time.thread_time()
            lookup(text)
            theirs.append((time.thread_time() - t0) * 1000)
    out = {
        "messages": len(messages),
        "block": args.block,
        "rootcause_ms": {"median": statistics.median(ours), "p99": pct(ours, 0.99)},
        "deadends_ms": {"median": statistics.median(theirs), "p99": pct(theirs, 0.99)},
    }
    out["speedup_median"] = out["deadends_ms"]["median"] / out["rootcause_ms"]["median"]
    print(f"{len(messages)} messages, {args.block} per turn, CPU ms per call (median / p99)")
    print(f"rootcause.diagnose   {out['rootcause_ms']['median']:.3f} / {out['rootcause_ms']['p99']:.2f}")
    print(f"deadends-dev lookup  {out['deadends_ms']['median']:.3f} / {out['deadends_ms']['p99']:.2f}")
    print(f"median ratio: rootcause {out['speedup_median']:.0f}x faster")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
