"""Template mining on real captured logs: one template per tqdm bar and per error whatever its ranks
or sizes; state that survives runs; candidate entries that validate but do not lint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fleetgen import FIXTURES

from rootcause.adapters.fleet.candidate import write_candidate
from rootcause.adapters.fleet.templates import TemplateBook
from rootcause.core.fleet.masks import mask_line

REAL = sorted((FIXTURES / "real").glob("*.log")) + sorted((FIXTURES / "real_hf").glob("*.log"))


def _real_lines(marker: str) -> list[str]:
    out = []
    for path in REAL:
        out += [line for line in path.read_text(errors="replace").splitlines() if marker in line]
    return out


def test_a_tqdm_bar_is_one_template() -> None:
    bars = [line for line in _real_lines("it/s]") if line.startswith("Loading weights")]
    assert len(set(bars)) >= 3, "real tqdm output of several runs"
    book = TemplateBook()
    ids = {book.add(line, day="2026-12-03") for line in bars}
    assert len(ids) == 1
    # and a bar redrawn at every step of a run, as tqdm prints it, is still one template
    steps = [
        f"Loading weights: {p:3d}%|{'█' * (p // 10):10s}| {p}/100 [00:0{p % 9}<00:0{9 - p % 9}, {p * 3.1:.2f}it/s]"
        for p in range(0, 101, 5)
    ]
    assert {book.add(s, day="2026-12-03") for s in steps} == ids


def test_one_error_with_other_ranks_or_sizes_is_one_template() -> None:
    barrier = _real_lines("failed to pass monitoredBarrier")
    assert barrier
    line = barrier[-1]
    variants = [
        line.replace("Rank 0", f"Rank {r}").replace("Rank 1 ", f"Rank {r + 1} ").replace("5000 ms", f"{ms} ms")
        for r, ms in ((0, 5000), (3, 1800000), (17, 600000), (63, 30000))
    ]
    shapes = [line for line in _real_lines("shapes cannot be multiplied")][:1]
    assert shapes
    shape_variants = [
        shapes[0].replace("(3x7 and 10x5)", f"({a}x{b} and {c}x{d})")
        for a, b, c, d in ((3, 7, 10, 5), (64, 4096, 1024, 1024), (1, 2, 3, 4))
    ]
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {} . GPU {} has a total capacity of 79.15 GiB"
    ooms = [oom.format(size, gpu) for size, gpu in (("20.00 MiB", 0), ("1.50 GiB", 3), ("512.00 KiB", 7))]
    book = TemplateBook()
    for group in (variants, shape_variants, ooms):
        assert len({book.add(v, day="2026-12-03", job=f"job-{n}") for n, v in enumerate(group)}) == 1, group
    assert len(book.templates()) == 3


def test_masks_name_what_varies_in_ml_logs() -> None:
    line = "gpu12.cluster.local:4567:4590 [3] NCCL WARN connect to 10.0.3.17:29500 failed, pid 3312, bus 0000:3b:00.0"
    masked = mask_line(line)
    for name in ("NCCLHOST", "IP", "PID", "PCI"):
        assert f"<{name}>" in masked, masked
    assert mask_line("WorkNCCL(SeqNum=1234, OpType=ALLREDUCE)") == "WorkNCCL(SeqNum=<SEQ>, OpType=ALLREDUCE)"


def test_state_survives_runs_and_counts_per_day_job_node(tmp_path: Path) -> None:
    book = TemplateBook(tmp_path)
    line = "[c10d] waitForInput: socket SocketImpl(fd=3, addr=[::ffff:127.0.0.1]:57070) timed out after 10000ms"
    first = book.add(line, day="2026-12-01", job="job-1", host="node-1")
    book.save()
    again = TemplateBook(tmp_path)
    second = again.add(line.replace("57070", "41000"), day="2026-12-02", job="job-2", host="node-1")
    assert first == second
    (t,) = again.templates()
    assert t["count"] == 2 and t["days"] == {"2026-12-01": 1, "2026-12-02": 1}
    assert t["nodes"] == {"node-1": 2} and set(t["jobs"]) == {"job-1", "job-2"}


def test_candidate_entry_validates_and_lint_refuses_it_until_written(tmp_path: Path) -> None:
    book = TemplateBook()
    lines = _real_lines("waitForInput: socket SocketImpl")[:3]
    assert lines
    for n, line in enumerate(lines):
        tid = book.add(
            line.split("] ", 1)[-1] if line.startswith("[") and "[c10d]" not in line[:6] else line,
            day="2026-12-03",
            source={"path": f"/logs/job/rank{n}.log", "line": 10 + n, "job": "job", "host": "node-1"},
        )
    path = write_candidate("pytorch/c10d-wait-for-input-timeout", book.get(tid), tmp_path)
    data = yaml.safe_load(path.read_text())
    assert data["patterns"][0]["regex"] and data["examples"] and data["sources"]
    assert "TODO(maintainer)" in data["root_cause"]
    with pytest.raises(Exception, match="exists already"):
        write_candidate("pytorch/c10d-wait-for-input-timeout", book.get(tid), tmp_path)
    lint = subprocess.run(
        [sys.executable, "-m", "rootcause.adapters.cli.main", "lint", str(tmp_path)], capture_output=True, text=True
    )
    assert lint.returncode == 1 and "RC901" in lint.stdout
