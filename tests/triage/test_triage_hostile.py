"""Hostile dumps and inputs get a bounded answer: linear work in the dumps' size (never in the span of their
sequence ids), a capped unpickler, rendering that does not unfold shared references, no recursion on deep
folders or data. Each case was once unbounded (a thread pinned forever, 2 GB, exponential time, a
RecursionError traceback with exit 1). The CLI runs in a child process whose peak memory is read from wait4."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hostile_dumps import (
    deep_folder,
    deep_list,
    memo_bomb,
    remove_deep_folder,
    shared_references,
    shared_tuple_keys,
    span_pair,
)

import rootcause
from rootcause.core.triage import flight_load
from rootcause.core.triage.engine import Triage
from rootcause.core.triage.flight import DumpError, compare, parse_dump
from rootcause.core.triage.flight_load import render

_PEAK = (
    "import atexit, runpy, sys\n"
    "def peak():\n"
    "    with open('/proc/self/status') as fh:\n"
    "        sys.stderr.write(next(line for line in fh if line.startswith('VmHWM')))\n"
    "atexit.register(peak)\n"
    "sys.argv = ['rootcause', *sys.argv[1:]]\n"
    "runpy.run_module('rootcause.adapters.cli.main', run_name='__main__')\n"
)
LIMIT_S = 60  # a hang shows as a timeout long before pytest's
MAX_RSS_MB = 400


def _cli(*args: str, cwd: Path) -> tuple[int, str, int]:
    """(exit status, stderr, peak RSS in MiB) of `rootcause ARGS`, killed if it runs past LIMIT_S. The peak is the
    child's own VmHWM, written at exit (wait4's ru_maxrss would count this big pytest process it was forked from)."""
    src = str(Path(rootcause.__file__).resolve().parents[1])  # this checkout's code, whatever the cwd
    env = {**os.environ, "COLUMNS": "120", "ROOTCAUSE_FORMAT": "text", "PYTHONPATH": src}
    proc = subprocess.Popen(
        [sys.executable, "-c", _PEAK, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    timer = threading.Timer(LIMIT_S, proc.kill)
    timer.start()
    try:
        err = proc.stderr.read() if proc.stderr else ""
        code = proc.wait()
    finally:
        timer.cancel()
    if code == -9:
        pytest.fail(f"rootcause {' '.join(args)} did not answer within {LIMIT_S} s")
    err, _, peak = err.rpartition("VmHWM:")
    return code, err, int(peak.split()[0]) // 1024


def test_span_of_sequence_ids_is_not_walked() -> None:
    a, b = span_pair()
    report = compare({0: parse_dump(a, "rank0.json"), 1: parse_dump(b, "rank1.json")})
    assert report.mismatch is None
    assert [(x.frontier, x.ranks) for x in report.behind] == [(10**17, {0: 0})]


def test_memo_bomb_is_refused_in_bytes_not_gigabytes() -> None:
    assert len(memo_bomb()) == 9
    with pytest.raises(DumpError, match="no 'entries' list"):
        parse_dump(memo_bomb(), "rank0.pkl")


def test_shared_references_render_in_bounded_text() -> None:
    data = shared_references()
    assert len(data) < 600
    dump = parse_dump(data, "rank0.pkl")
    (op,) = [op for ops in dump.ops.values() for op in ops.values()]
    assert op.input_sizes.startswith("[[[[") and len(op.input_sizes) <= 200
    assert len(render([[1] * 10] * 1000, 50)) == 50


def test_tuple_keys_of_shared_references_are_refused() -> None:
    with pytest.raises(DumpError, match="a tuple as a dict key"):
        parse_dump(shared_tuple_keys(), "rank0.pkl")


def test_deep_list_is_no_recursion_error(monkeypatch: pytest.MonkeyPatch) -> None:
    dump = parse_dump(deep_list(100_000), "rank0.pkl")
    assert [op.seq for ops in dump.ops.values() for op in ops.values()] == [1]
    monkeypatch.setattr(flight_load, "MAX_OPS", 150_000)  # the cap (2,000,000) at a size that runs fast
    with pytest.raises(DumpError, match="more than 150000 pickle opcodes"):
        parse_dump(deep_list(100_000), "rank0.pkl")


def test_deep_json_is_one_error() -> None:
    with pytest.raises(DumpError, match="nested too deeply"):
        parse_dump(b'{"entries": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "rank0.json")


def test_the_engine_takes_the_span_pair() -> None:
    a, b = span_pair()
    t = Triage()
    t.add_dump("rank0.json", a)
    t.add_dump("rank1.json", b)
    assert t.report().conclusion.kind in ("straggler", "undecided")


@pytest.mark.parametrize("command", ["triage", "diagnose"])
def test_cli_answers_every_hostile_input(tmp_path: Path, command: str) -> None:
    """`triage` reads every hostile dump; `diagnose` (which runs the same triage on multi-rank input) two."""
    a, b = span_pair()
    (tmp_path / "span").mkdir()
    (tmp_path / "span" / "rank0.json").write_bytes(a)
    (tmp_path / "span" / "rank1.json").write_bytes(b)
    code, err, rss = _cli(command, "span", cwd=tmp_path)
    assert code in (0, 1) and "Traceback" not in err, err
    cases = [("memo", memo_bomb(), "no 'entries' list"), ("tuple-keys", shared_tuple_keys(), "as a dict key")]
    for name, data, message in cases if command == "triage" else cases[1:]:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "rank0.pkl").write_bytes(data)
        (folder / "rank1.log").write_text("RuntimeError: boom\n")
        code, err, _ = _cli(command, name, cwd=tmp_path)
        assert code == 2 and message in err and "Traceback" not in err, (name, err)
        assert len(err.strip().splitlines()) == 1, err
    if command != "triage":
        return
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "rank0.pkl").write_bytes(shared_references())
    (shared / "rank1.log").write_text("RuntimeError: boom\n")
    code, err, rss = _cli(command, "shared", cwd=tmp_path)
    assert code in (0, 1) and "Traceback" not in err, err
    assert rss < MAX_RSS_MB


def test_a_folder_1000_levels_deep(tmp_path: Path) -> None:
    root = deep_folder(tmp_path / "deep")
    try:
        code, err, _ = _cli("triage", str(root), cwd=tmp_path)
    finally:
        remove_deep_folder(root)
    assert code in (0, 1) and "Traceback" not in err and "RecursionError" not in err, err
