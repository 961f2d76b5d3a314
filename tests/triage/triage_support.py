"""Helpers for the triage tests: the engine on files or on text (in-process), and the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from rootcause.adapters.flight_files import read_dump, split_dumps
from rootcause.adapters.inputs import expand_paths, rank_from_path
from rootcause.adapters.triage_runner import conclude_with_second_read
from rootcause.core.triage import TriageReport
from rootcause.core.triage.engine import Triage

TESTS = Path(__file__).parent.parent
NCCL_FIXTURES = TESTS / "fixtures" / "triage"
REAL_RANKS = TESTS / "fixtures" / "real" / "ranks"


def file_chunks(path: Path, size: int = 1 << 16) -> Iterator[bytes]:
    with path.open("rb") as fh:
        while chunk := fh.read(size):
            yield chunk


def triage_paths(*paths: Path, chunk: int = 1 << 16) -> TriageReport:
    """As `rootcause triage` reads them: Flight Recorder dumps apart, logs in chunks."""
    t = Triage()
    files = [(str(p), p) for p in expand_paths([str(x) for x in paths])]
    logs, dumps = split_dumps(files)
    for name, p in dumps:
        t.add_dump(name, read_dump(name, p))
    for name, p in logs:
        t.add(name, file_chunks(p, chunk), rank_from_path(p))
    return conclude_with_second_read(t, logs)


def triage_texts(texts: dict[str, str], ranks: dict[str, int] | None = None) -> TriageReport:
    """In-memory inputs: name -> text (a name's rank from `ranks`, else none)."""
    t = Triage()
    for name, text in texts.items():
        t.add(name, [text.encode()], (ranks or {}).get(name))
    return t.report()


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rootcause.adapters.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
        cwd=cwd,
        timeout=120,
    )
