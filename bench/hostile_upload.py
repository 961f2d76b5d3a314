"""Bounded memory under hostile uploads, on a real server (one uvicorn process, loopback).

    python bench/hostile_upload.py                         # 1 GiB streamed, 100 x 1 MB concurrent
    python bench/hostile_upload.py --gib 4 --clients 200 --json bench/out/hostile.json

1. A chunked 1 GiB body (no Content-Length) streamed to POST /api/v1/diagnose against the
   default cap (32 MiB): when the 413 arrives, how much of the body went out, how long it
   took, and the server's RSS before, at its peak while streaming, and after. Three rounds,
   to show that RSS stays flat across them.
2. A hundred concurrent 1 MB diagnoses (each a log with a known error buried in it): errors,
   latency p50/p99/max, requests/s, and the server's peak RSS.
The server's RSS is sampled every 20 ms with psutil.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "service"), str(ROOT / "tests"), str(ROOT / "src")]

from hostile import stream_until_answer  # noqa: E402
from testkit import launch_server  # noqa: E402

SEED_ID = "pytorch/nccl-timeout-allreduce"
SEED_ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
MiB = 1 << 20


class RssSampler:
    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> int:
        return int(self.proc.memory_info().rss)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            time.sleep(0.02)

    def __enter__(self) -> RssSampler:
        self.peak = self.now()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def one_megabyte_log(rng: random.Random) -> bytes:
    lines = [f"step {i} loss {rng.random():.4f} lr 3e-4 tokens/s {rng.randrange(10**5)}" for i in range(22_000)]
    lines.insert(rng.randrange(len(lines)), SEED_ERROR)
    return ("\n".join(lines) + "\n").encode()[:MiB]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def streamed_rounds(url: str, pid: int, total: int, rounds: int) -> list[dict[str, Any]]:
    rows = []
    for n in range(rounds):
        with RssSampler(pid) as rss:
            before = rss.now()
            streamed = stream_until_answer(url, "/api/v1/diagnose", total, chunk=256 << 10)
        after = rss.now()
        rows.append(
            {
                "round": n + 1,
                "status": streamed.status,
                "offered_mib": total // MiB,
                "sent_mib": round(streamed.sent / MiB, 1),
                "seconds": round(streamed.seconds, 2),
                "rss_before_mib": round(before / MiB, 1),
                "rss_peak_mib": round(rss.peak / MiB, 1),
                "rss_after_mib": round(after / MiB, 1),
            }
        )
        print(rows[-1], flush=True)
    return rows


def concurrent_diagnoses(url: str, pid: int, clients: int) -> dict[str, Any]:
    rng = random.Random(14)
    bodies = [one_megabyte_log(rng) for _ in range(clients)]
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    go = threading.Barrier(clients)

    def one(body: bytes) -> None:
        with httpx.Client(base_url=url, timeout=600) as c:
            go.wait()
            started = time.perf_counter()
            r = c.post("/api/v1/diagnose", content=body, headers={"content-type": "text/plain"})
            took = time.perf_counter() - started
            ok = r.status_code == 200 and [f["id"] for f in r.json()["findings"]][:1] == [SEED_ID]
            with lock:
                latencies.append(took)
                if not ok:
                    errors.append(f"{r.status_code} {r.text[:200]}")

    threads = [threading.Thread(target=one, args=(b,)) for b in bodies]
    with RssSampler(pid) as rss:
        before = rss.now()
        started = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - started
    row = {
        "clients": clients,
        "body_mib": 1,
        "errors": len(errors),
        "wall_s": round(wall, 2),
        "diagnoses_per_s": round(clients / wall, 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1000),
        "p99_ms": round(percentile(latencies, 0.99) * 1000),
        "max_ms": round(max(latencies) * 1000),
        "mean_ms": round(statistics.mean(latencies) * 1000),
        "rss_before_mib": round(before / MiB, 1),
        "rss_peak_mib": round(rss.peak / MiB, 1),
        "rss_after_mib": round(rss.now() / MiB, 1),
    }
    print(row, flush=True)
    for e in errors[:5]:
        print("error:", e)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=1.0, help="size of the streamed body")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rc-hostile-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
        env |= {
            "ROOTCAUSE_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "ROOTCAUSE_DATA_DIR": tmp,
            "ROOTCAUSE_CACHE_DIR": os.environ.get("ROOTCAUSE_CACHE_DIR", str(Path(tmp) / "cache")),
            "ROOTCAUSE_MAX_UPLOAD_BYTES": "32MiB",
            "PYTHONPATH": str(ROOT / "src"),
        }
        proc, url = launch_server(env, Path(tmp) / "server.log")
        try:
            httpx.post(f"{url}/api/v1/diagnose", content=SEED_ERROR, timeout=60)  # warm: first scan
            streamed = streamed_rounds(url, proc.pid, int(args.gib * (1 << 30)), args.rounds)
            load = concurrent_diagnoses(url, proc.pid, args.clients)
            streamed += streamed_rounds(url, proc.pid, int(args.gib * (1 << 30)), 1)  # and after the load
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    out = {"cap_mib": 32, "streamed": streamed, "concurrent": load, "cpus": os.cpu_count()}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
