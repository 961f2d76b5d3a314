"""Fleet throughput: each engine against the in-process scanner on the same generated fleet, and
scaling from 1 to 2 workers. Prints one JSON line per run; bench/README.md records the figures.

    PYTHONPATH=src python bench/fleet_bench.py [--jobs 220] [--noise-lines 600] [--engines local,dask,spark,ray]

The fleet is generated once; each run (the in-process loop, then every engine with 1 and 2 workers:
Dask workers, Spark ``local[N]``, Ray CPUs) is a fresh Python process, so one engine's cluster, JVM or
imports never serve the next. For each run:

- ``s``: wall time of ``scan_fleet`` (engine start-up included: it is what a run costs), ``startup_s``
  the part spent starting the engine's local cluster (Dask ``LocalCluster``, Spark session and JVM,
  ``ray.init``), ``scan_s`` the rest;
- ``cpu_s``: CPU time of the run's whole process tree (the driver, JVM, Python workers, Ray's
  daemons), imports and index load included: the larger of the reaped children's ``getrusage``
  and a sampled sum over the tree (every 0.2 s, per process id, for processes that are not reaped);
- ``load``: the box's 1-minute load average, least and most seen during the run.

Per core = MB/s divided by the workers the engine used (the in-process loop and the local engine use one).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

BENCH = Path(__file__).resolve()
sys.path.insert(0, str(BENCH.parents[1] / "tests" / "fleet"))


def in_process(root: Path) -> dict:
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import diagnose_sources

    paths = sorted(root.glob("**/*.log"))
    index = load_index()
    started = time.perf_counter()
    for p in paths:
        diagnose_sources(open_sources([(str(p), p)]), index)
    return {"s": time.perf_counter() - started, "startup_s": 0.0, "logs": len(paths)}


def one_engine(root: Path, engine: str, workers: int, out: Path) -> dict:
    from rootcause.adapters.fleet import FleetOptions, scan_fleet

    started = time.perf_counter()
    run = scan_fleet([str(root / "**" / "*.log")], FleetOptions(engine=engine, workers=workers, triage=False), out)
    return {
        "s": time.perf_counter() - started,
        "startup_s": run.startup_seconds,
        "logs": run.logs,
        "diagnosed": run.diagnosed,
    }


def _tree_cpu(proc: psutil.Process, seen: dict[int, float]) -> None:
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return
    for p in members:
        try:
            t = p.cpu_times()
            key = p.pid * 1_000_003 + int(p.create_time() * 1000)  # pid reuse gets its own key
            seen[key] = max(seen.get(key, 0.0), t.user + t.system)
        except psutil.Error:
            continue


def measured(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    """Run one measurement in a child process; its JSON line plus the CPU time of its process tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    proc = psutil.Process(child.pid)
    seen: dict[int, float] = {}
    loads = [os.getloadavg()[0]]
    while child.poll() is None:
        _tree_cpu(proc, seen)
        loads.append(os.getloadavg()[0])
        time.sleep(0.2)
    out, _ = child.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {child.returncode}")
    reaped = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = json.loads(out.strip().splitlines()[-1])
    result.update(
        cpu_s=round(max(reaped, sum(seen.values())), 1),
        cpu_reaped_s=round(reaped, 1),
        cpu_sampled_s=round(sum(seen.values()), 1),
        load=[round(min(loads), 1), round(max(loads), 1)],
    )
    return result


def child_main(args: argparse.Namespace) -> None:
    root = Path(args.fleet)
    if args.run == "in-process":
        result = in_process(root)
    else:
        result = one_engine(root, args.run, int(args.workers), Path(args.out))
    print(json.dumps(result), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=220)
    ap.add_argument("--noise-lines", type=int, default=30)
    ap.add_argument(
        "--engines",
        default="local,dask,spark,ray",
        help="comma-separated; dask is Dask with its default start method (auto: fork from a CLI-like process), dask-fork,"
        " dask-spawn and dask-forkserver set ROOTCAUSE_DASK_START_METHOD; an engine named twice runs twice"
        " (local first and last brackets the others)",
    )
    ap.add_argument("--workers", default="1,2", help="worker counts for the cluster engines")
    ap.add_argument("--no-loop", action="store_true", help="skip the in-process loop (slow at 1 GiB)")
    ap.add_argument("--run", help=argparse.SUPPRESS)  # child mode: one measurement
    ap.add_argument("--fleet", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        child_main(args)
        return
    from fleetgen import make_fleet

    with tempfile.TemporaryDirectory() as tmp:
        fleet = make_fleet(Path(tmp) / "logs", jobs=args.jobs, noise_lines=args.noise_lines)
        mb = sum(p.stat().st_size for p in fleet.logs) / 1e6
        plan = [] if args.no_loop else [("in-process", 1)]
        for engine in args.engines.split(","):
            counts = (1,) if engine == "local" else tuple(int(w) for w in args.workers.split(","))
            plan += [(engine, w) for w in counts]
        rows = []
        for n, (engine, workers) in enumerate(plan):
            out = Path(tmp) / f"{engine}-{workers}-{n}.parquet"
            method = engine.removeprefix("dask-") if engine.startswith("dask-") else None
            env = dict(os.environ, ROOTCAUSE_DASK_START_METHOD=method) if method else None
            cmd = [
                sys.executable,
                str(BENCH),
                "--run",
                "dask" if method else engine,
                "--workers",
                str(workers),
                "--fleet",
                str(fleet.root),
                "--out",
                str(out),
            ]
            r = measured(cmd, env)
            secs = r["s"]
            row = {
                "engine": engine,
                "workers": workers,
                "logs": r["logs"],
                "MB": round(mb, 1),
                "s": round(secs, 2),
                "startup_s": round(r["startup_s"], 2),
                "scan_s": round(secs - r["startup_s"], 2),
                "diagnosed": r.get("diagnosed"),
                "MB/s": round(mb / secs, 2),
                "MB/s/core": round(mb / secs / workers, 2),
                "scan MB/s": round(mb / max(secs - r["startup_s"], 1e-9), 2),
                "cpu_s": r["cpu_s"],
                "cpu_reaped_s": r["cpu_reaped_s"],
                "cpu_sampled_s": r["cpu_sampled_s"],
                "load": r["load"],
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
        print_table(rows)


def print_table(rows: list[dict]) -> None:
    """The runs as a Markdown table, each engine's throughput against the mean of the local engine's runs."""
    local = [r["s"] for r in rows if r["engine"] == "local"]
    base = sum(local) / len(local) if local else None
    print("\n| engine | workers | wall s | of which start-up | CPU s | MB/s (wall) | ÷ local engine (throughput) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{base / r['s']:.2f}" if base else "–"
        print(
            f"| {r['engine']} | {r['workers']} | {r['s']:.2f} | {r['startup_s']:.2f} | {r['cpu_s']:.1f} | {r['MB/s']:.1f} | {ratio} |"
        )


if __name__ == "__main__":
    main()
