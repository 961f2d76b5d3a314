"""The hostile-input probe of issue 23, re-run: each input that once broke the service or the CLI,
what it gets now, and what the load holds. One real `rootcause serve` on loopback (SQLite or
PostgreSQL), bounded in count and time.

    python bench/hostile_probe.py                                  # SQLite: probe, then 100 and 200 x 1 MiB
    python bench/hostile_probe.py --store postgresql --json bench/out/probe-pg.json
    python bench/hostile_probe.py --no-load                        # the probe only

Every row: the input, the status it got, seconds, whether the answer carried the security headers,
and /-/health's latency measured while the input was in flight (B3, B12 and the big bodies are the
ones that stalled it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "service"), str(ROOT / "tests"), str(ROOT / "src"), str(ROOT / "bench")]

from hostile_upload import MiB, RssSampler, concurrent_diagnoses  # noqa: E402
from service_support import PgSchemas, pg_available  # noqa: E402
from testkit import SEED_ID, SEED_SIGNATURE, launch_server  # noqa: E402

SECURITY = ("content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy", "cache-control")


def health_while(url: str, work: Callable[[], Any]) -> tuple[Any, float]:
    """Run `work`; meanwhile poll /-/health; return work's result and the worst health latency."""
    worst = 0.0
    done = threading.Event()

    def poll() -> None:
        nonlocal worst
        with httpx.Client(timeout=60) as c:
            while not done.is_set():
                t0 = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    c.get(f"{url}/-/health")
                worst = max(worst, time.perf_counter() - t0)
                time.sleep(0.05)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    try:
        result = work()
    finally:
        done.set()
        th.join()
    return result, worst


def row(name: str, url: str, work: Callable[[], httpx.Response | Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    result, health = health_while(url, work)
    took = time.perf_counter() - t0
    out: dict[str, Any] = {"input": name, "seconds": round(took, 2), "health_worst_s": round(health, 3)}
    if isinstance(result, httpx.Response):
        out["status"] = result.status_code
        out["security_headers"] = all(h in result.headers for h in SECURITY)
        out["location"] = result.headers.get("location")
    else:
        out |= result
    print(out, flush=True)
    return out


def post(url: str, **kwargs: Any) -> Callable[[], httpx.Response]:
    return lambda: httpx.post(f"{url}/api/v1/diagnose", timeout=300, **kwargs)


def gz_bomb(unpacked: int) -> bytes:
    z = zlib.compressobj(9, wbits=31)
    block = b"a" * MiB
    out = [z.compress(block) for _ in range(unpacked // MiB)]
    return b"".join(out) + z.flush()


def slow_loris(url: str, count: int, seconds: float) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    socks = []
    for n in range(count):
        try:
            s = socket.create_connection((host, int(port)), timeout=5)
            s.setblocking(False)
            s.send(f"GET /-/health HTTP/1.1\r\nHost: x\r\nX-{n}: 1\r\n".encode())
            socks.append(s)
        except OSError:
            break
    opened = len(socks)
    end = time.monotonic() + seconds
    line = 0
    while time.monotonic() < end:
        line += 1
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(f"X-L{line}: 1\r\n".encode())
        time.sleep(1.0)
    closed = 0
    for s in socks:
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    return {"status": "n/a", "opened": opened, "closed_by_server": closed}


def probe(url: str, tmp: Path) -> list[dict[str, Any]]:
    rows = []
    q = "a" * 16_000
    searches = lambda: [httpx.get(f"{url}/api/v1/search", params={"q": q}, timeout=300) for _ in range(4)][-1]  # noqa: E731
    rows.append(row("B3 4 x GET /api/v1/search?q=a*16000", url, searches))
    line = ("RuntimeError: " + "a" * 64_000 + "\n") * 20
    rows.append(row("B3 20 lines of 64,000 letters (1.2 MB)", url, post(url, content=line.encode())))
    bomb = gz_bomb(7 * MiB)
    files = [("file", (f"rank{n}.log.gz", bomb, "application/gzip")) for n in range(100)]
    rows.append(row(f"B6 100 .gz parts of {len(bomb) // 1024} KiB, 7 MiB each unpacked", url, post(url, files=files)))
    tiny = [("file", (f"r{n}.log", b"x\n", "text/plain")) for n in range(20_000)]
    rows.append(row("B6 20,000 tiny parts", url, post(url, files=tiny)))
    rows.append(
        row(
            "B4 JSON nested 100,000 deep",
            url,
            post(url, content=b"[" * 100_000 + b"]" * 100_000, headers={"content-type": "application/json"}),
        )
    )
    number = b'{"text": "x", "n": ' + b"7" * 5000 + b"}"
    rows.append(
        row("B4 a 5,000-digit number", url, post(url, content=number, headers={"content-type": "application/json"}))
    )
    dots = [("file", ("..", SEED_SIGNATURE.encode(), "text/plain")), ("file", ("..", b"x\n", "text/plain"))]
    rows.append(row("B4 two files named ..", url, post(url, files=dots)))
    for path in ("/search", "/errors", "/categories/x", "/api/v1/entries/"):
        rows.append(
            row(
                f"B13 Host: evil.example {path}",
                url,
                lambda p=path: httpx.get(
                    f"{url}{p}", headers={"host": "evil.example"}, follow_redirects=False, timeout=60
                ),
            )
        )
    big_json = b'{"text": "' + b"a" * (32 * MiB - 20) + b'"}'

    def sixteen() -> httpx.Response:
        results: list[httpx.Response] = []
        threads = [
            threading.Thread(
                target=lambda: results.append(
                    post(url, content=big_json, headers={"content-type": "application/json"})()
                )
            )
            for _ in range(16)
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        return results[-1]

    rows.append(row("minor 16 x 32 MiB JSON bodies", url, sixteen))
    rows.append(
        row(
            "minor a 60 KiB URL",
            url,
            lambda: httpx.get(f"{url}/api/v1/search", params={"q": "a" * (60 << 10)}, timeout=60),
        )
    )
    rows.append(row("B12 1,100 slow-loris connections, 15 s", url, lambda: slow_loris(url, 1100, 15)))
    return rows


def cli_probe(tmp: Path) -> list[dict[str, Any]]:
    """The CLI side: stdin spool, aliases and slugs in canon files, the MCP echo."""
    rows: list[dict[str, Any]] = []
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT / "src"), "ROOTCAUSE_MAX_STDIN_BYTES": "256MiB"}
    cli = [sys.executable, "-m", "rootcause.adapters.cli.main"]
    t0 = time.perf_counter()
    with open("/dev/zero", "rb") as zero:
        r = subprocess.run([*cli, "diagnose"], stdin=zero, capture_output=True, env=env, timeout=300)
    left = sum(p.stat().st_size for p in tmp.glob("rootcause-stdin-*"))
    rows.append(
        {
            "input": "B10 rootcause diagnose </dev/zero (limit 256 MiB)",
            "exit": r.returncode,
            "stderr_lines": len(r.stderr.splitlines()),
            "left_in_tmp_bytes": left,
            "seconds": round(time.perf_counter() - t0, 2),
        }
    )
    proc = subprocess.Popen(
        [*cli, "diagnose"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None
    for _ in range(64):
        proc.stdin.write(b"x" * MiB)
    proc.terminate()
    proc.wait(timeout=60)
    proc.stdin.close()
    rows.append(
        {
            "input": "B10 SIGTERM while spooling 64 MiB",
            "exit": proc.returncode,
            "left_in_tmp_bytes": sum(p.stat().st_size for p in tmp.glob("rootcause-stdin-*")),
        }
    )
    seed = (ROOT / "src" / "rootcause" / "canon" / f"{SEED_ID}.yaml").read_text(encoding="utf-8")
    laughs = "extra:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]\n" for n in range(1, 11)
    )
    cases = {
        "B7 billion laughs (10 levels)": seed + laughs,
        "B8 category ../../escape": seed.replace("category: network_error", "category: ../../escape"),
        "B8 category of 65 characters": seed.replace("category: network_error", "category: " + "c" * 65),
    }
    for n, (name, text) in enumerate(cases.items()):
        canon = tmp / f"case{n}" / "canon"
        (canon / "pytorch").mkdir(parents=True)
        (canon / f"{SEED_ID}.yaml").write_text(text, encoding="utf-8")
        out = tmp / f"case{n}" / "site"
        t0 = time.perf_counter()
        r = subprocess.run(
            [*cli, "build-site", str(out), "--canon", str(canon)], capture_output=True, env=env, timeout=300, text=True
        )
        rows.append(
            {
                "input": f"{name}: build-site",
                "exit": r.returncode,
                "stderr_lines": len(r.stderr.splitlines()),
                "seconds": round(time.perf_counter() - t0, 2),
                "escaped": (tmp / "escape").exists(),
            }
        )
    from rootcause.adapters.mcp_server import LocalCanon, build_server

    async def mcp() -> int:
        try:
            await build_server(LocalCanon()).call_tool("get_entry", {"id": "x" * MiB})
        except Exception as exc:  # a ToolError
            return len(str(exc))
        return -1

    import anyio

    rows.append({"input": "B14 MCP get_entry with a 1 MiB id", "error_chars": anyio.run(mcp)})
    for r in rows:
        print(r, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--clients", default="100,200", help="concurrent 1 MiB diagnoses, comma-separated")
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument("--no-probe", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out: dict[str, Any] = {"store": args.store, "cpus": os.cpu_count()}
    schemas = PgSchemas() if args.store == "postgresql" else None
    if schemas is not None and not pg_available():
        sys.exit("PostgreSQL is not reachable at 127.0.0.1:5432")
    with tempfile.TemporaryDirectory(prefix="rc-probe-") as folder:
        tmp = Path(folder)
        db = schemas.new("probe") if schemas else f"sqlite:///{tmp}/probe.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
        env |= {
            "ROOTCAUSE_DATABASE_URL": db,
            "ROOTCAUSE_DATA_DIR": str(tmp),
            "ROOTCAUSE_CACHE_DIR": os.environ.get("ROOTCAUSE_CACHE_DIR", str(tmp / "cache")),
            "PYTHONPATH": str(ROOT / "src"),
        }
        proc, url = launch_server(env, tmp / "server.log", via_cli=True)
        try:
            httpx.post(f"{url}/api/v1/diagnose", content=SEED_SIGNATURE, timeout=60)
            with RssSampler(proc.pid) as rss:
                if not args.no_probe:
                    out["probe"] = probe(url, tmp)
                    out["probe_rss_peak_mib"] = round(rss.peak / MiB, 1)
                out["alive_after_probe"] = httpx.get(f"{url}/-/health", timeout=30).status_code == 200
            if not args.no_load:
                out["load"] = [concurrent_diagnoses(url, proc.pid, int(n)) for n in args.clients.split(",")]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            if schemas:
                schemas.drop_all()
        if not args.no_probe and args.store == "sqlite":
            out["cli"] = cli_probe(tmp)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
