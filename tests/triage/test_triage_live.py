"""Real multi-process runs: torchrun with the Gloo backend on this CPU machine, triaged as they come out.

Two jobs run side by side (about 15 s in all): three ranks where rank 2 sleeps past a 3 s timeout, and two
ranks where rank 1 raises mid-step. Each writes one log per rank (`--log-dir --redirects 3`) and the combined
console (`--tee 3`). Skipped only when torch is not importable.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from triage_support import triage_paths

pytest.importorskip("torch.distributed.run")

STRAGGLER = """
import time
from datetime import timedelta
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=3))
rank = dist.get_rank()
t = torch.ones(4)
dist.all_reduce(t)
print(f"rank {rank}: step 0 ok", flush=True)
if rank == 2:
    time.sleep(12)  # stuck in data loading
dist.all_reduce(t)
print(f"rank {rank}: step 1 ok", flush=True)
dist.destroy_process_group()
"""

CRASH = """
from datetime import timedelta
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=3))
rank = dist.get_rank()
t = torch.ones(4)
for step in range(3):
    dist.all_reduce(t)
    if rank == 1 and step == 1:
        raise ValueError(f"rank {rank}: bad batch at step {step}")
dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(workdir: Path, script: str, nproc: int) -> subprocess.Popen[bytes]:
    workdir.mkdir()
    (workdir / "job.py").write_text(script)
    cmd = [
        sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc}", "--master-addr=127.0.0.1",
        f"--master-port={_free_port()}", "--log-dir", str(workdir / "logs"), "--redirects", "3", "--tee", "3",
        str(workdir / "job.py"),
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    console = (workdir / "console.log").open("wb")
    return subprocess.Popen(cmd, cwd=workdir, stdout=console, stderr=subprocess.STDOUT, env=env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("torchrun")
    jobs = {"straggler": _launch(base / "straggler", STRAGGLER, 3), "crash": _launch(base / "crash", CRASH, 2)}
    for job in jobs.values():
        try:
            job.wait(timeout=90)
        except subprocess.TimeoutExpired:
            job.kill()
            job.wait()
            raise
    for name, job in jobs.items():
        assert job.returncode != 0, f"{name}: the job should have failed"
    return {name: base / name for name in jobs}


def test_live_straggler(runs: dict[str, Path]) -> None:
    report = triage_paths(runs["straggler"])
    c = report.conclusion
    assert (c.kind, c.guilty_ranks) == ("straggler", [2]), c.summary
    assert sorted(report.ranks) == [0, 1, 2]
    assert all(report.ranks[r].timeouts or report.ranks[r].first_error for r in (0, 1))
    assert report.ranks[2].signal == "SIGTERM"  # torchrun stopped it after the others failed


def test_live_crash_first(runs: dict[str, Path]) -> None:
    report = triage_paths(runs["crash"] / "logs", runs["crash"] / "console.log")
    c = report.conclusion
    assert (c.kind, c.guilty_ranks) == ("crash-first", [1]), c.summary
    assert "bad batch at step 1" in c.summary
    first = report.ranks[1].first_error
    assert first is not None and first.type == "ValueError" and first.category == "own"


def test_live_console_alone(runs: dict[str, Path]) -> None:
    """The --tee console alone: one combined log with [defaultN]: and [rankN]: prefixes."""
    c = triage_paths(runs["straggler"] / "console.log").conclusion
    assert (c.kind, c.guilty_ranks) == ("straggler", [2])
