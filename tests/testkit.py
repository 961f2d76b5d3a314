"""Shared constants and helpers of the top-level tests (imported as `testkit`, a unique name)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).parent
DATA = TESTS / "data"
SEEDS = DATA / "seeds"
SEED_ID = "pytorch/nccl-timeout-allreduce"
SEED_SIGNATURE = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def load_script(relative: str, name: str) -> ModuleType:
    """A script of the repository that is not a package module (bench/coverage.py, scripts/wording_gaps.py), imported
    by path under ``name``."""
    spec = importlib.util.spec_from_file_location(name, TESTS.parent / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_cli(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rootcause.adapters.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        # a guard against a hang, not a speed target: `rootcause lint` over the whole canon takes about 50 s alone and
        # passed 120 s on a box loaded by other jobs (a helper's run, 2026-12-07)
        timeout=600,
    )


# -- a real server on loopback (service and MCP tests) -------------------------------------------
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch_server(env: dict[str, str], log: Path, *, via_cli: bool = False) -> tuple[subprocess.Popen[bytes], str]:
    """Start the web service in a subprocess on a free loopback port; wait until /-/health answers.

    `via_cli` starts it the product's way (`rootcause serve`); otherwise through uvicorn's factory,
    which skips importing the CLI.
    """
    import time

    import httpx

    port = free_port()
    if via_cli:
        cmd = [sys.executable, "-m", "rootcause.adapters.cli.main", "serve"]
    else:
        cmd = [sys.executable, "-m", "uvicorn", "--factory", "rootcause.adapters.web.app:create_app_from_env"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode}):\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/-/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"the server did not start in time:\n{log.read_text()}")
