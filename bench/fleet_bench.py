"""Fleet throughput: each engine against the in-process scanner on the same generated fleet, and
scaling from 1 to 2 workers. Prints one JSON line per run; bench/README.md records the figures.

    PYTHONPATH=src python bench/fleet_bench.py [--jobs 220] [--engines local,dask,spark,ray]

Per core = MB/s divided by the workers the engine used (the in-process scanner and the local
engine use one core). Engine start-up (cluster, JVM, actors) is included: it is what a run costs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fleet"))

from fleetgen import make_fleet

from rootcause.adapters.fleet import FleetOptions, scan_fleet


def in_process(paths: list[Path]) -> float:
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import diagnose_sources

    index = load_index()
    started = time.perf_counter()
    for p in paths:
        diagnose_sources(open_sources([(str(p), p)]), index)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=220)
    ap.add_argument("--noise-lines", type=int, default=30)
    ap.add_argument("--engines", default="local,dask,spark,ray")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fleet = make_fleet(Path(tmp) / "logs", jobs=args.jobs, noise_lines=args.noise_lines)
        mb = sum(p.stat().st_size for p in fleet.logs) / 1e6
        secs = in_process(fleet.logs)
        print(json.dumps({"engine": "in-process diagnose per file", "workers": 1, "logs": len(fleet.logs),
                          "MB": round(mb, 1), "s": round(secs, 2), "MB/s/core": round(mb / secs, 2)}), flush=True)
        for engine in args.engines.split(","):
            for workers in (1, 2) if engine != "local" else (1,):
                out = Path(tmp) / f"{engine}-{workers}.parquet"
                started = time.perf_counter()
                run = scan_fleet([str(fleet.root / "**" / "*.log")],
                                 FleetOptions(engine=engine, workers=workers, triage=False), out)
                secs = time.perf_counter() - started
                print(json.dumps({"engine": engine, "workers": workers, "logs": run.logs, "MB": round(mb, 1),
                                  "s": round(secs, 2), "scan_s": run.seconds, "diagnosed": run.diagnosed,
                                  "MB/s/core": round(mb / secs / workers, 2)}), flush=True)


if __name__ == "__main__":
    main()
