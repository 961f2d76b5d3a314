"""Cold-start time of `rootcause diagnose` on a one-line input, next to `python -c pass`: wall and CPU seconds.

python bench/coldstart.py --runs 20
python bench/coldstart.py --runs 20 --base /tmp/perf-base/src   # another tree's code, interleaved with this one's
python bench/coldstart.py --runs 20 --atlas /tmp/atlas.sqlite   # the located tier on, its index cached

Each command runs in a fresh interpreter with the index cached (two warm-up runs first), in a cache folder of
its own (so that no other process on the box replaces the cache between runs), with bytecode caching on (an
installed package has its .pyc files; PYTHONDONTWRITEBYTECODE would make every run compile every module). The
commands take turns, run by run, so that the box's load falls on each alike. CPU is the child's user + system
time (getrusage): on a loaded box it says more than the wall time.

With --base SRC (a folder holding the package `rootcause`, e.g. a tree made with `git archive HEAD src`), the
same diagnosis is timed with that code too. With --atlas, two more inputs: the same claimed line (the atlas is
never loaded), and a line no entry claims (the atlas's cached index is loaded to locate it), each against
`--no-atlas` on the same input.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rootcause

UNCLAIMED = (
    "ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install accelerate`\n"
)
MESSAGE = "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms\n"


class Command:
    """One command line with its environment, and its runs' wall and CPU seconds."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], stdin: str = "") -> None:
        self.name, self.argv, self.env, self.stdin = name, argv, env, stdin
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def run(self, keep: bool = True) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(self.argv, input=self.stdin, capture_output=True, text=True, env=self.env)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if keep:
            self.wall.append(wall)
            self.cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))

    def row(self) -> dict[str, float]:
        return {"wall_s": statistics.median(self.wall), "cpu_s": statistics.median(self.cpu)}


def _env(src: Path, cache: Path, pycache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [os.environ.get("PYTHONPATH", "")])])
    env["ROOTCAUSE_CACHE_DIR"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(pycache))
    return env


def _interleaved(commands: list[Command], runs: int) -> None:
    for command in commands:
        command.run(keep=False)  # the first run builds the index cache
        command.run(keep=False)
    for _ in range(runs):
        for command in commands:
            command.run()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--format", default="json", choices=["json", "text", "md"], help="diagnose's output format")
    ap.add_argument("--base", type=Path, help="a folder holding another version of the package: timed too")
    ap.add_argument("--atlas", type=Path, help="an atlas file: time the located tier's cold start too")
    args = ap.parse_args()
    here = Path(rootcause.__file__).resolve().parent.parent
    work = Path(tempfile.mkdtemp(prefix="coldstart-"))
    cli = [sys.executable, "-m", "rootcause.adapters.cli.main", "diagnose", "-f", args.format]
    env = _env(here, work / "cache", work / "pycache")
    commands = [
        Command("python -c pass", [sys.executable, "-c", "pass"], env),
        Command(f"rootcause diagnose -f {args.format} ({here})", cli, env, MESSAGE),
    ]
    if args.base:
        base_env = _env(args.base.resolve(), work / "cache-base", work / "pycache")
        commands.append(Command(f"rootcause diagnose -f {args.format} ({args.base})", cli, base_env, MESSAGE))
    load = os.getloadavg()
    _interleaved(commands, args.runs)
    rows = {c.name: c.row() for c in commands}
    bare = rows["python -c pass"]
    print(
        f"load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; medians of {args.runs} runs\n"
    )
    print("| command | wall s | CPU s | CPU above bare Python |\n|---|---:|---:|---:|")
    for name, row in rows.items():
        print(f"| {name} | {row['wall_s']:.3f} | {row['cpu_s']:.3f} | {row['cpu_s'] - bare['cpu_s']:.3f} |")
    if args.atlas:
        on = Command("claimed line, atlas cached", [*cli, "--atlas", str(args.atlas)], env, MESSAGE)
        off = Command("claimed line, --no-atlas", [*cli, "--no-atlas"], env, MESSAGE)
        on_u = Command("unclaimed line, atlas cached", [*cli, "--atlas", str(args.atlas)], env, UNCLAIMED)
        off_u = Command("unclaimed line, --no-atlas", [*cli, "--no-atlas"], env, UNCLAIMED)
        _interleaved([off, on, off_u, on_u], args.runs)
        for c in (off, on, off_u, on_u):
            rows[c.name] = c.row()
            print(f"| {c.name} | {rows[c.name]['wall_s']:.3f} | {rows[c.name]['cpu_s']:.3f} | |")
    if args.json:
        args.json.write_text(json.dumps({"load_average": load, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
