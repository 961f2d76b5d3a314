"""The web service under load, on loopback: requests/s and latency percentiles for an
entry page and for a diagnosis, on SQLite and on PostgreSQL, next to the same entry's
prebuilt static file served by `python -m http.server` in the same run.

    python bench/service_bench.py                      # 2000 requests per row, 8 clients
    python bench/service_bench.py --requests 300 --no-write
    python bench/service_bench.py --pg-url postgresql://postgres@127.0.0.1:5432/test

Each server is one uvicorn process (one worker). Clients are threads with keep-alive
connections (http.client; http.server answers HTTP/1.0, so it reconnects each time).
The loops are bounded: a fixed number of requests per row. The entry has outcome
reports, so its page recomputes measured rates on every request, as in production.
The Markdown table is printed and written under "## Service" in bench/README.md
(that section only; the rest of the file is left as it is).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
SEED_ID = "pytorch/nccl-timeout-allreduce"
SEED_ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
HEADING = "## Service"


@dataclass
class Row:
    target: str
    store: str
    requests: int
    concurrency: int
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(port: int, path: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"server on port {port} did not start")


def start_service(database_url: str, data_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
    env |= {
        "ROOTCAUSE_DATABASE_URL": database_url,
        "ROOTCAUSE_DATA_DIR": str(data_dir),
        "ROOTCAUSE_RATE_LIMIT": "off",
    }
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "rootcause.adapters.web.app:create_app_from_env",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(port, "/-/health", proc)
    return proc, port


def start_static(site: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(site)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(port, "/index.html", proc)
    return proc, port


def hammer(
    port: int, method: str, path: str, body: bytes | None, headers: dict[str, str], requests: int, concurrency: int
) -> tuple[float, list[float], int]:
    """A bounded closed loop: ``requests`` in all, split over ``concurrency`` clients."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    per_client = max(1, requests // concurrency)

    def client() -> None:
        nonlocal errors
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: list[float] = []
        bad = 0
        for _ in range(per_client):
            t = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
            except (OSError, http.client.HTTPException):
                conn.close()
                ok = False
            mine.append(time.perf_counter() - t)
            bad += not ok
        conn.close()
        with lock:
            latencies.extend(mine)
            errors += bad

    for _ in range(min(50, requests)):  # warm up: connections, caches, JIT-free but lazy imports
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request(method, path, body=body, headers=headers)
        conn.getresponse().read()
        conn.close()
    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    return wall, latencies, errors


def measure(
    target: str,
    store: str,
    port: int,
    method: str,
    path: str,
    body: bytes | None,
    headers: dict[str, str],
    args: argparse.Namespace,
) -> Row:
    wall, lat, errors = hammer(port, method, path, body, headers, args.requests, args.concurrency)
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    row = Row(
        target, store, len(lat), args.concurrency, len(lat) / wall, statistics.median(lat) * 1e3, p99 * 1e3, errors
    )
    print(
        f"  {target:<28} {store:<11} {row.rps:8.0f} req/s  p50 {row.p50_ms:6.2f} ms  "
        f"p99 {row.p99_ms:7.2f} ms  errors {errors}",
        flush=True,
    )
    return row


def seed_reports(database_url: str, n: int) -> None:
    """Outcome reports on the seed entry, so its page shows (and recomputes) measured rates."""
    from rootcause.adapters.store import NewOutcome, open_store
    from rootcause.adapters.store.tokens import new_token

    store = open_store(database_url)
    token = store.create_token(f"bench-{uuid.uuid4().hex[:8]}", new_token()[1])
    for i in range(n):
        result = ("worked", "worked", "partial", "failed")[i % 4]
        store.add_outcome(NewOutcome(SEED_ID, "workaround", i % 3, "bench", result, token.id), [])  # type: ignore[arg-type]
    store.close()


def pg_schema(admin_url: str) -> tuple[str, str] | None:
    try:
        import psycopg

        schema = f"rc_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    except Exception as exc:  # a missing PostgreSQL only drops its rows
        print(f"PostgreSQL unavailable ({exc}); its rows are skipped", file=sys.stderr)
        return None
    sep = "&" if "?" in admin_url else "?"
    return schema, f"{admin_url}{sep}options={quote(f'-csearch_path={schema}')}"


def drop_schema(admin_url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def table(rows: list[Row]) -> str:
    lines = [
        "| what | served by | requests | clients | requests/s | p50 ms | p99 ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.target} | {r.store} | {r.requests} | {r.concurrency} | {r.rps:.0f} | "
            f"{r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.errors} |"
        )
    return "\n".join(lines)


def write_readme(path: Path, section: str) -> None:
    """Replace (or add) the "## Service" section; every other section stays as it is."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    block = section.rstrip("\n") + "\n\n"
    found = pattern.search(text)
    text = pattern.sub(lambda _m: block, text, count=1) if found else text.rstrip("\n") + "\n\n" + block
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000, help="requests per row (bounded loop)")
    ap.add_argument("--concurrency", type=int, default=8, help="client threads")
    ap.add_argument("--reports", type=int, default=40, help="outcome reports on the entry")
    ap.add_argument(
        "--pg-url", default=os.environ.get("ROOTCAUSE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
    )
    ap.add_argument("--no-pg", action="store_true", help="SQLite and the static file only")
    ap.add_argument("--no-write", action="store_true", help="print only; leave bench/README.md alone")
    ap.add_argument("--readme", type=Path, default=ROOT / "bench" / "README.md")
    args = ap.parse_args()

    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.site_export import build_site

    rows: list[Row] = []
    procs: list[subprocess.Popen[bytes]] = []
    schema: tuple[str, str] | None = None
    entry_path = f"/errors/{SEED_ID}/"
    diagnose = ("POST", "/api/v1/diagnose", SEED_ERROR.encode(), {"Content-Type": "text/plain"})
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="rootcause-bench-") as tmp:
        work = Path(tmp)
        try:
            build_site(work / "site", load_entries())
            proc, port = start_static(work / "site")
            procs.append(proc)
            print(f"{args.requests} requests per row, {args.concurrency} clients", flush=True)
            rows.append(
                measure(
                    "entry page (static file)", "http.server", port, "GET", f"{entry_path}index.html", None, {}, args
                )
            )
            stores = [("sqlite", f"sqlite:///{work / 'bench.db'}")]
            if not args.no_pg and (schema := pg_schema(args.pg_url)) is not None:
                stores.append(("postgresql", schema[1]))
            for name, url in stores:
                seed_reports(url, args.reports)
                proc, port = start_service(url, work)
                procs.append(proc)
                rows.append(measure("entry page", name, port, "GET", entry_path, None, {}, args))
                rows.append(measure("diagnosis (POST, one error)", name, port, *diagnose, args))
                proc.terminate()
                proc.wait(timeout=15)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(timeout=15)
            if schema is not None:
                drop_schema(args.pg_url, schema[0])

    md = table(rows)
    print()
    print(md)
    (ROOT / "bench" / "out").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "out" / "service.json").write_text(json.dumps([r.__dict__ for r in rows], indent=2))
    if not args.no_write:
        section = "\n".join(
            [
                HEADING,
                "",
                f"`python bench/service_bench.py` ({time.strftime('%Y-%m-%d')}; {os.cpu_count()} CPUs, "
                f"Python {platform.python_version()}, load average {load_before:.1f} at the start). "
                "One uvicorn worker per store, loopback, keep-alive clients as threads in one process "
                "(the client shares the CPUs with the server). The entry page recomputes measured rates "
                f"from {args.reports} outcome reports on each request; the static row serves the same entry's "
                "prebuilt `index.html` with `python -m http.server`.",
                "",
                md,
            ]
        )
        write_readme(args.readme, section)
        print(f"\nwritten to {args.readme} under {HEADING!r}")


if __name__ == "__main__":
    main()
