"""Screenshots of every kind of page, at 1366 and 390 pixels wide, into docs/screenshots/.

    python scripts/screenshots.py            # needs Debian's chromium and the test extras (playwright)

It starts `rootcause serve` on a throw-away SQLite database, stores a few fleet templates (so that
/-/unknown has rows), writes a fleet report from a scan of examples/, and opens each page in headless
Chromium. Each PNG is the first screen (the viewport), which is what a reader sees first and keeps
the files small. tests/service/test_service_phone.py drives the same pages (PAGE_KINDS) and asserts
that none is wider than a 390-pixel phone and that the console stays free of errors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}
SEED_ID = "pytorch/nccl-timeout-allreduce"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.25 GiB is free. Including non-PyTorch memory, this process has 77.89 GiB memory in use. "
    "Of the allocated memory 68.40 GiB is allocated by PyTorch, and 8.50 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
)
# a template with a long unbroken token, as fleets really print them
TEMPLATES = [
    {
        "id": 1,
        "template": "torch.distributed.DistStoreError: Timed out after <NUM> seconds waiting for clients. "
        "<NUM>/<NUM> clients joined.",
        "count": 42,
        "days": {"2026-12-01": 40, "2026-12-02": 2},
        "jobs": {"job-17": 30, "job-18": 12},
        "nodes": {"node-013": 42},
        "examples": [
            "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
            "/very/long/path/without/any/break/" + "segment_" * 30 + "train.py:118",
        ],
        "sources": [],
    },
    {
        "id": 2,
        "template": "RuntimeError: <*> failed with <*> on <HOST>",
        "count": 7,
        "days": {"2026-12-02": 7},
        "jobs": {"job-21": 7},
        "nodes": {"node-002": 3, "node-009": 4},
        "examples": ["RuntimeError: barrier failed with code 3 on node-009"],
        "sources": [],
    },
]


@dataclass(frozen=True)
class PageKind:
    name: str
    open: Callable[[Any, str, str], None]  # (page, server url, fleet report url)


def _goto(path: str) -> Callable[[Any, str, str], None]:
    def open_page(page: Any, url: str, _report: str) -> None:
        page.goto(url + path)

    return open_page


def _diagnosis(page: Any, url: str, _report: str) -> None:
    page.goto(url + "/")
    page.fill("#text", OOM)
    page.click("button[type=submit] >> text=Diagnose")
    page.wait_for_url("**/diagnose")


def _fleet_report(page: Any, _url: str, report: str) -> None:
    page.goto(report)


PAGE_KINDS: list[PageKind] = [
    PageKind("home", _goto("/")),
    PageKind("diagnosis", _diagnosis),
    PageKind("search", _goto("/search/?q=nccl")),
    PageKind("browse", _goto("/errors/?domain=pytorch")),
    PageKind("entry", _goto("/errors/cuda/oom-caching-allocator/")),
    PageKind("entry-zh", _goto(f"/errors/{SEED_ID}/zh.html")),
    PageKind("unknown", _goto("/-/unknown")),
    PageKind("not-found", _goto("/errors/pytorch/no-such-entry/")),
    PageKind("api-docs", _goto("/api/v1/docs")),
    PageKind("fleet-report", _fleet_report),
]


def fleet_report(folder: Path) -> Path:
    """A fleet report (HTML) from a real local scan of the example logs."""
    from rootcause.adapters.fleet import FleetOptions, scan_fleet
    from rootcause.adapters.fleet.output import read_findings
    from rootcause.adapters.fleet.report import render_html
    from rootcause.adapters.fleet.worker import now_ms
    from rootcause.core.fleet.summary import summarise

    out = folder / "findings.parquet"
    scan_fleet([str(ROOT / "examples" / "**" / "*.log")], FleetOptions(engine="local"), out)
    rows, jobs, meta = read_findings(out)
    page = folder / "report.html"
    page.write_text(render_html(summarise(rows, jobs, meta, now_ms()), "http://127.0.0.1/"), encoding="utf-8")
    return page


def store_templates(database_url: str) -> None:
    from rootcause.adapters.fleet.store import FleetStore
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        FleetStore(store).replace_templates(TEMPLATES)
    finally:
        store.close()


@contextmanager
def site(folder: Path) -> Iterator[tuple[str, str]]:
    """A running service with fleet templates, and a fleet report file: (server url, report url)."""
    import socket

    import httpx

    database_url = f"sqlite:///{folder / 'site.db'}"
    store_templates(database_url)
    report = fleet_report(folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTCAUSE_")}
    env |= {
        "ROOTCAUSE_DATABASE_URL": database_url,
        "ROOTCAUSE_DATA_DIR": str(folder / "data"),
        "ROOTCAUSE_CACHE_DIR": str(folder / "cache"),
    }
    cmd = [sys.executable, "-m", "rootcause.adapters.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with (folder / "server.log").open("wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start:\n" + (folder / "server.log").read_text())
            try:
                if httpx.get(url + "/-/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, report.as_uri()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="rootcause-shots-"))
    try:
        with site(folder) as (url, report), sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for label, (width, height) in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                for kind in PAGE_KINDS:
                    kind.open(page, url, report)
                    page.wait_for_load_state("networkidle")
                    target = OUT / f"{kind.name}-{label}.png"
                    page.screenshot(path=str(target))
                    print(f"{target.relative_to(ROOT)}  {target.stat().st_size // 1024} KiB")
                page.close()
            browser.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
