"""Fleet: job names from real layouts, framing kept out of the unknown templates, and one miner state per scan."""

from __future__ import annotations

import json
from pathlib import Path

from testkit import run_cli

from rootcause.core.diagnosis import Diagnosis
from rootcause.core.fleet.layout import Layout, LogPlace
from rootcause.core.fleet.rows import finding_rows


def test_torchrun_log_dir_tree_is_one_job_named_for_its_run() -> None:
    # torchrun --log-dir /tmp/logs writes <log-dir>/<run_id>_<suffix>/attempt_<n>/<local_rank>/{stdout,stderr}.log
    layout = Layout()
    assert layout.place("/tmp/logs/none_k3x9/attempt_0/3/stderr.log") == LogPlace("none_k3x9", 3, None)
    assert layout.place("/tmp/logs/none_k3x9/attempt_1/0/stdout.log") == LogPlace("none_k3x9", 0, None)


def test_per_node_folders_and_files_and_separate_logs() -> None:
    layout = Layout()
    assert layout.place("/data/job-7/node-013/rank5.log") == LogPlace("job-7", 5, "node-013")
    assert layout.place("/data/job-7/rank5.log") == LogPlace("job-7", 5, None)  # not job 'data' on host 'job-7'
    assert layout.place("/data/job-7/node3.log") == LogPlace("job-7", None, "node3")
    # a folder of separate logs is not one job
    a, b = layout.place("/data/logs/train_a.log"), layout.place("/data/logs/train_b.log.gz")
    assert a.job == "logs/train_a" and b.job == "logs/train_b"


def test_framing_lines_never_become_unknown_errors() -> None:
    framing = [
        "train.py FAILED",
        "============================================================",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "Root Cause (first observed failure):",
        "  exitcode  : 1 (pid: 4711)",
        "  error_file: /tmp/torchelastic_x/none_y/attempt_0/0/error.json",
        "[rank0]:     loss.backward()",
        "    return forward_call(*args, **kwargs)",
        "    ~~~~^^^^^^",
    ]
    real = [
        "ValueError: expected 3 channels, got 4",
        "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
    ]
    lines = [(n, text) for n, text in enumerate(framing + real, 1)]
    d = Diagnosis(matched=False, findings=[])
    rows = finding_rows(d, LogPlace("job", 0, None), "job/rank0.log", 0, lines)
    assert [r["text"] for r in rows] == real


def _scan(logs: Path, out: Path, *extra: str) -> None:
    env = {"ROOTCAUSE_DATA_DIR": str(out.parent / "data")}
    result = run_cli("fleet", "scan", str(logs / "**" / "*.log"), "--out", str(out), "--no-triage", *extra, env=env)
    assert result.returncode == 0, result.stderr


def test_each_scan_keeps_its_own_templates(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "job1", tmp_path / "b" / "job2"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    (first / "rank0.log").write_text("FooBarError: the flux capacitor broke at 88 mph\n", encoding="utf-8")
    (second / "rank0.log").write_text("QuuxError: the warp core is offline on deck 7\n", encoding="utf-8")
    env = {"ROOTCAUSE_DATA_DIR": str(tmp_path / "data")}
    _scan(tmp_path / "a", tmp_path / "a.parquet")  # its state lies beside its findings
    _scan(tmp_path / "b", tmp_path / "b.parquet", "--name", "nightly")  # a named scan's own state

    def templates(*args: str) -> str:
        result = run_cli("fleet", "unknown", "-f", "json", *args, env=env)
        assert result.returncode == 0, result.stderr
        return " ".join(t["template"] for t in json.loads(result.stdout))

    first = templates("--findings", str(tmp_path / "a.parquet"))
    assert "flux capacitor" in first and "warp core" not in first
    nightly = templates("--name", "nightly")
    assert "warp core" in nightly and "flux" not in nightly
    missing = run_cli("fleet", "unknown", env=env)
    assert missing.returncode == 2 and "give --name, --findings or --state" in missing.stderr
