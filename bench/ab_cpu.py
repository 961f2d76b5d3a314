"""CPU time of `rootcause diagnose -f json` for two source trees, as interleaved pairs on the same logs.

    python bench/ab_cpu.py --a /tmp/before/src --b src LOG [LOG ...] [--rounds 3]

Each round runs A then B (then B then A on the next round) on every log, in a fresh process with
``PYTHONPATH`` set to the tree, and reads the child's user+system CPU time and peak RSS from ``wait4``.
The index cache is warmed once per tree before timing. Prints the medians per log and tree, and B ÷ A.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path


def run(src: str, log: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, "-m", "rootcause.adapters.cli.main", "diagnose", "-f", "json", "--no-progress", log]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"ab_cpu: {src} on {log} exited {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the baseline's src folder")
    ap.add_argument("--b", required=True, help="the candidate's src folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    trees = {"A": args.a, "B": args.b}
    for src in trees.values():  # warm each tree's index cache (keyed by its canon and layout)
        run(src, args.logs[0])
    cpu: dict[tuple[str, str], list[float]] = {}
    rss: dict[tuple[str, str], list[float]] = {}
    for round_no in range(args.rounds):
        order = ["A", "B"] if round_no % 2 == 0 else ["B", "A"]
        for log in args.logs:
            for tree in order:
                seconds, peak = run(trees[tree], log)
                cpu.setdefault((tree, log), []).append(seconds)
                rss.setdefault((tree, log), []).append(peak)
    print("| log | A CPU s | B CPU s | B ÷ A | A peak MiB | B peak MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for log in args.logs:
        a, b = (statistics.median(cpu[(t, log)]) for t in ("A", "B"))
        ra, rb = (max(rss[(t, log)]) for t in ("A", "B"))
        print(f"| {Path(log).name} | {a:.2f} | {b:.2f} | {b / a:.2f} | {ra:.0f} | {rb:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
