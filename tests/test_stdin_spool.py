"""`rootcause diagnose` spools stdin to a temporary file: bounded (ROOTCAUSE_MAX_STDIN_BYTES), and
removed on every way out: the end, an error, the limit, Ctrl-C (SIGINT) and SIGTERM. Real
subprocesses fed through a pipe, a few MiB each."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from testkit import SEED_SIGNATURE

CHUNK = b"noise line from a long-running job\n" * 30_000  # about 1 MiB


def _start(tmp: Path, stdin: object = subprocess.PIPE, **env: str) -> subprocess.Popen[bytes]:
    full = {**os.environ, "TMPDIR": str(tmp), **env}
    return subprocess.Popen(
        [sys.executable, "-m", "rootcause.adapters.cli.main", "diagnose", "--no-progress"],
        stdin=stdin,  # type: ignore[arg-type]
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full,
    )


def _feed(proc: subprocess.Popen[bytes], chunks: int) -> threading.Thread:
    """Write `chunks` MiB and keep the pipe open: the command is still spooling."""

    def run() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ValueError):
            for _ in range(chunks):
                proc.stdin.write(CHUNK)
                proc.stdin.flush()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _spools(tmp: Path) -> list[Path]:
    return list(tmp.glob("rootcause-stdin-*"))


def _log(tmp: Path, chunks: int) -> Path:
    path = tmp / "input" / "big.log"
    path.parent.mkdir()
    path.write_bytes(CHUNK * chunks + SEED_SIGNATURE.encode() + b"\n")
    return path


def test_past_the_limit_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    with _log(tmp_path, 8).open("rb") as stdin:  # 8 MiB offered; the command stops reading past 4 MiB
        proc = _start(tmp_path, stdin, ROOTCAUSE_MAX_STDIN_BYTES="4MiB")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "ROOTCAUSE_MAX_STDIN_BYTES" in lines[0], lines
    assert _spools(tmp_path) == []


def test_a_normal_run_leaves_nothing(tmp_path: Path) -> None:
    with _log(tmp_path, 2).open("rb") as stdin:
        proc = _start(tmp_path, stdin)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert _spools(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_while_spooling_leaves_nothing(tmp_path: Path, sig: signal.Signals) -> None:
    proc = _start(tmp_path)
    _feed(proc, 3)
    deadline = time.monotonic() + 60
    while not any(p.stat().st_size >= 2 << 20 for p in _spools(tmp_path)):  # spooling has begun
        assert time.monotonic() < deadline and proc.poll() is None, "the command did not spool stdin"
        time.sleep(0.05)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert _spools(tmp_path) == []
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
