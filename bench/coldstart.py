"""Cold-start time of `rootcause diagnose` on a one-line input, next to `python -c pass`.

python bench/coldstart.py --runs 20
python bench/coldstart.py --runs 20 --atlas /tmp/atlas.sqlite   # the located tier on, its index cached

With --atlas, two more inputs: the same claimed line (the atlas is never loaded), and a line no entry
claims (the atlas's cached index is loaded to locate it), each against `--no-atlas` on the same input.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

UNCLAIMED = (
    "ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install accelerate`\n"
)
MESSAGE = "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms\n"


def measure(cmd: list[str], runs: int, stdin: str = "") -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, input=stdin, capture_output=True, text=True)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--atlas", type=Path, help="an atlas file: time the located tier's cold start too")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "rootcause.adapters.cli.main", "diagnose", "-f", "json"]
    measure(cli, 2, MESSAGE)  # the first run builds the index cache
    bare = statistics.median(measure([sys.executable, "-c", "pass"], args.runs))
    warm = statistics.median(measure(cli, args.runs, MESSAGE))
    row = {"python_c_pass_s": bare, "rootcause_diagnose_s": warm, "overhead_s": warm - bare}
    print("| command | median s |\n|---|---|")
    print(f"| python -c pass | {bare:.3f} |\n| rootcause diagnose (one line, index cached) | {warm:.3f} |")
    print(f"| difference | {warm - bare:.3f} |")
    if args.atlas:
        on = [*cli, "--atlas", str(args.atlas)]
        off = [*cli, "--no-atlas"]
        measure(on, 2, UNCLAIMED)  # the first run builds the atlas's cache
        for name, text in (("claimed line", MESSAGE), ("unclaimed line", UNCLAIMED)):
            without, with_atlas = [], []
            for _ in range(args.runs):  # interleaved, so that the box's load falls on both alike
                without += measure(off, 1, text)
                with_atlas += measure(on, 1, text)
            a, b = statistics.median(without), statistics.median(with_atlas)
            row[f"{name} --no-atlas"], row[f"{name} --atlas"] = a, b
            print(f"| {name}, --no-atlas | {a:.3f} |\n| {name}, atlas cached | {b:.3f} |\n| difference | {b - a:.3f} |")
    if args.json:
        args.json.write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
