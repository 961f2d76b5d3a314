"""The CLI's first screen leads with the answer, and every error at its edge is one line (issue 24).

Every test runs the real command in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import run_cli

ROOT = Path(__file__).resolve().parent.parent
# a real PyTorch >= 2.1 message, with 8.5 GiB reserved but unallocated
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.25 GiB is free. Including non-PyTorch memory, this process has 77.89 GiB memory in use. "
    "Of the allocated memory 68.40 GiB is allocated by PyTorch, and 8.50 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
)
OLD_TORCH_IMPORT = (
    "ImportError: cannot import name 'LRScheduler' from 'torch.optim.lr_scheduler' "
    "(/usr/local/lib/python3.8/dist-packages/torch/optim/lr_scheduler.py)"
)
WEIGHTS_WARNING = (
    "FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses "
    "the default pickle module implicitly. It is possible to construct malicious pickle data"
)
EXPANDABLE = "Reduce fragmentation with expandable segments"


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_first_line_is_the_verdict_and_the_headline_is_the_users_line(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("step 10 loss 2.1\n" + OOM + "\n", encoding="utf-8")
    result = run_cli("diagnose", str(log), "--env", "torch==2.4.0", env={"COLUMNS": "100"})
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stdout)
    assert lines[0] == "Known error: cuda/oom-caching-allocator (high confidence, your versions are affected)"
    headline = next(line for line in lines if line.startswith("1. "))
    assert headline.startswith("1. torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert all(len(line) <= 100 for line in lines)


def test_workarounds_follow_the_evidence_with_conditions_and_a_count_of_the_rest(tmp_path: Path) -> None:
    log = tmp_path / "oom.log"
    log.write_text(OOM + "\n", encoding="utf-8")
    text = run_cli("diagnose", str(log), "--env", "torch==2.4.0", env={"COLUMNS": "100"}).stdout
    flat = " ".join(text.split())
    first = flat.index("1. Reduce fragmentation with expandable segments")
    assert first < flat.index("2. Lower the memory needed per step")
    assert "[the log shows this]" in flat
    assert "when: 'reserved by PyTorch but unallocated' is a large share of the card" in flat
    assert "+2 more: rootcause show cuda/oom-caching-allocator" in flat
    md = run_cli("diagnose", "-f", "md", str(log), "--env", "torch==2.4.0").stdout
    assert "   When: 'reserved by PyTorch but unallocated'" in md and "+2 more:" in md

    def order(env: str) -> list[tuple[str, str]]:
        out = json.loads(run_cli("diagnose", "-f", "json", str(log), "--env", env).stdout)
        return [(w["action"], w["support"]) for w in out["findings"][0]["workarounds"]]

    action, support = order("torch==2.4.0")[0]
    assert action.startswith(EXPANDABLE) and support == "seen"
    # torch 2.0 has no expandable segments: the same workaround is not offered first, nor in the top three
    assert not any(action.startswith(EXPANDABLE) for action, _ in order("torch==2.0.0"))


def test_small_unallocated_figure_is_no_evidence_for_expandable_segments(tmp_path: Path) -> None:
    log = tmp_path / "oom.log"
    log.write_text(OOM.replace("8.50 GiB is reserved", "20.00 MiB is reserved") + "\n", encoding="utf-8")
    out = json.loads(run_cli("diagnose", "-f", "json", str(log)).stdout)
    assert all(w["support"] != "seen" for w in out["findings"][0]["workarounds"])


def test_not_affected_finding_ranks_below_affected_ones(tmp_path: Path) -> None:
    log = tmp_path / "two.log"
    log.write_text(OLD_TORCH_IMPORT + "\n" + OOM + "\n", encoding="utf-8")

    def ids(*extra: str) -> list[tuple[str, str]]:
        out = json.loads(run_cli("diagnose", "-f", "json", *extra, str(log)).stdout)
        return [(f["id"], f["versions"]["status"]) for f in out["findings"]][:2]

    assert ids()[0][0] == "huggingface/torch-lrscheduler-needs-torch2"  # earliest first, versions unknown
    assert ids("--env", "torch==2.7.0") == [
        ("cuda/oom-caching-allocator", "affected"),
        ("huggingface/torch-lrscheduler-needs-torch2", "not_affected"),
    ]


def test_a_warning_printed_first_ranks_below_the_error_the_job_died_of(tmp_path: Path) -> None:
    log = tmp_path / "two.log"
    log.write_text(WEIGHTS_WARNING + "\n" + OOM + "\n", encoding="utf-8")
    out = json.loads(run_cli("diagnose", "-f", "json", str(log)).stdout)
    assert [(f["id"], f["role"]) for f in out["findings"]] == [
        ("cuda/oom-caching-allocator", "cause"),
        ("pytorch/load-weights-only-future-warning", "notice"),
    ]


def test_multi_rank_input_puts_the_triage_conclusion_second() -> None:
    logs = ROOT / "tests" / "fixtures" / "real" / "ranks" / "dist_gloo_timeout"
    result = run_cli("diagnose", str(logs), env={"COLUMNS": "120"})
    lines = _lines(result.stdout)
    assert lines[0].startswith("Known error: pytorch/gloo-timeout")
    assert lines[1].startswith("Triage: Straggler") and "look first at rank(s) 1" in lines[1]


def test_show_wraps_to_the_terminal_and_crops_nothing() -> None:
    from rootcause.adapters.loading import load_entries

    entry = next(e for e in load_entries() if e.id == "cuda/oom-caching-allocator")
    shown = {}
    for width in (100, 250):
        result = run_cli("show", entry.id, env={"COLUMNS": str(width)})
        assert result.returncode == 0, result.stderr
        lines = shown[width] = _lines(result.stdout)
        assert all(len(line) <= width for line in lines), width
        flat = " ".join(result.stdout.split())
        assert " ".join(entry.root_cause.split()) in flat
        for w in entry.workarounds:
            assert " ".join(w.action.split()) in flat
            assert " ".join((w.condition or "").split()) in flat
    # a wrapped workaround keeps its hanging indent: continuation lines start under the text, not the number
    lines = shown[100]
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("1. 80%"))
    indent = len(lines[first]) - len(lines[first].lstrip()) + len("1. ")
    assert lines[first + 1].startswith(" " * indent) and lines[first + 1][indent] != " "


def test_usage_errors_are_one_line() -> None:
    for args in (("diagnose", "--bogus"), ("show",), ("no-such-command",), ("diagnose", "-f", "xml")):
        result = run_cli(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("rootcause: error: "), result.stderr


def test_nothing_read_is_not_nothing_matched(tmp_path: Path) -> None:
    empty_dir = tmp_path / "logs"
    empty_dir.mkdir()
    empty_file = tmp_path / "empty.log"
    empty_file.write_bytes(b"")
    for target in (empty_dir, empty_file):
        result = run_cli("diagnose", str(target))
        assert result.returncode == 2, result.stdout
        assert result.stderr.startswith("rootcause: error: nothing read") and result.stderr.count("\n") == 1
        assert "No known error matched" not in result.stdout


def test_missing_extra_names_the_extra_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "job1").mkdir()
    (tmp_path / "job1" / "rank0.log").write_text(OOM + "\n", encoding="utf-8")
    program = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from rootcause.adapters.cli.main import run\n"
        f"run(['fleet', 'scan', {str(tmp_path)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert "pip install 'rootcause-ml[fleet]'" in result.stderr and "Traceback" not in result.stderr


def test_verify_names_every_id_it_could_not_run() -> None:
    result = run_cli("verify", "pytorch/nccl-timeout-allreduce", "cuda/oom-cudamallocasync-backend")
    assert result.returncode == 1
    for entry_id in ("pytorch/nccl-timeout-allreduce", "cuda/oom-cudamallocasync-backend"):
        assert f"not run: {entry_id}: the entry has no reproducer" in result.stderr


def test_lint_inside_a_checkout_checks_the_checkouts_canon(tmp_path: Path) -> None:
    canon = tmp_path / "src" / "rootcause" / "canon" / "pytorch"
    canon.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (canon / "broken-entry.yaml").write_text("schema_version: 1\nid: pytorch/broken-entry\n", encoding="utf-8")
    nested = tmp_path / "docs"
    nested.mkdir()
    result = run_cli("lint", cwd=nested)
    assert result.returncode != 0
    assert "broken-entry.yaml" in result.stdout
    assert str(canon.parent) in result.stderr


def test_python_dash_m_rootcause_is_the_same_command_with_the_same_exit_codes() -> None:
    def run(stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "rootcause", "diagnose", "-"],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=600,
        )

    known = run("RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)\n")
    assert known.returncode == 0 and "pytorch/tensor-matmul-shape-mismatch" in known.stdout
    assert run("hello world\n").returncode == 1  # no known error matched
