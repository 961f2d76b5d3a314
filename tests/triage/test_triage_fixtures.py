"""The committed fixtures: NCCL-format logs of GPU-only failures, and real Gloo runs captured on this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from triage_support import NCCL_FIXTURES, REAL_RANKS, triage_paths

NCCL_CASES = sorted(
    p.name for p in NCCL_FIXTURES.iterdir() if (p / "expected.json").is_file() and (p / "logs").is_dir()
)


def test_there_are_four_nccl_cases() -> None:
    assert NCCL_CASES == ["nccl-crash-first-8", "nccl-desync-32", "nccl-ib-failure-64", "nccl-straggler-16"]


@pytest.mark.parametrize("case", NCCL_CASES)
def test_nccl_fixture(case: str) -> None:
    expected = json.loads((NCCL_FIXTURES / case / "expected.json").read_text())
    report = triage_paths(NCCL_FIXTURES / case / "logs")
    c = report.conclusion
    assert (c.kind, c.guilty_ranks, c.guilty_hosts) == (
        expected["kind"],
        expected["guilty_ranks"],
        expected["guilty_hosts"],
    ), c.summary
    assert report.missing_ranks == expected["missing_ranks"]
    assert c.confidence in ("high", "medium")
    # every conclusion cites lines, and the first of them is from a guilty rank
    cited = {e.id: e for e in report.evidence}
    assert c.evidence_refs and all(ref in cited for ref in c.evidence_refs)
    assert cited[c.evidence_refs[0]].rank in c.guilty_ranks
    assert (NCCL_FIXTURES / case / "README.md").read_text().count("Formats") == 1


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_chunking_does_not_change_the_answer(chunk: int) -> None:
    """Lines split across chunk boundaries (down to one byte) are read whole."""
    logs = NCCL_FIXTURES / "nccl-crash-first-8" / "logs"
    a = triage_paths(logs)
    b = triage_paths(logs, chunk=chunk)
    assert a.model_dump() == b.model_dump()


def test_generator_is_deterministic_and_committed(tmp_path: Path) -> None:
    script = NCCL_FIXTURES / "make_nccl_fixtures.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], check=True, timeout=60)
    again = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path), "--check"], capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 0


def test_straggler_details() -> None:
    report = triage_paths(NCCL_FIXTURES / "nccl-straggler-16" / "logs")
    r11 = report.ranks[11]
    assert (r11.host, r11.local_rank, r11.gpu, r11.bus_id) == ("node-b", 3, 3, "5d000")
    assert (r11.last_enqueued, r11.last_completed) == (4710, 4710)
    assert report.ranks[0].timeouts[0].seq == 4711 and report.ranks[0].timeouts[0].numel_in == 262144000
    assert report.ranks[0].timeouts[0].elapsed_ms == 600000
    assert report.conclusion.collective == "ALLREDUCE #4711"
    # the folders name local ranks; the [rankN]: prefixes and NCCL's Init COMPLETE give the global ones
    assert sorted(report.ranks) == [r for r in range(16) if r != 13]
    assert report.ranks[6].status == "no error in log"  # its log is cut off before the timeout


def test_ib_failure_details() -> None:
    report = triage_paths(NCCL_FIXTURES / "nccl-ib-failure-64" / "logs")
    assert "mlx5_2" in report.conclusion.summary and "status 12" in report.conclusion.summary
    assert report.ranks[34].nccl_warnings == 2 and report.ranks[34].host == "ib-node-05"
    assert report.ranks[26].first_error is not None and report.ranks[26].first_error.category == "peer"
    assert report.ranks[0].status == "timed out in ALLREDUCE #20118"


def test_crash_first_untimed_lines() -> None:
    """2.3 c10 lines carry no time: the order comes from what kind of error each rank shows."""
    report = triage_paths(NCCL_FIXTURES / "nccl-crash-first-8" / "logs")
    assert report.ranks[5].first_error is not None
    assert report.ranks[5].first_error.type == "torch.cuda.OutOfMemoryError"
    assert report.ranks[5].exit_code == 1 and report.ranks[4].signal == "SIGTERM"
    assert report.ranks[6].has_log is False and report.ranks[6].exit_code == -15  # known from torchrun's block only


# Real Gloo runs (torch 2.13, torchrun --log-dir --redirects 3 --tee 3), captured into tests/fixtures/real/ranks/<case>
# and listed in tests/fixtures/real/MANIFEST.yaml (key `ranks_dir`). The expected answer of each case is written here.
REAL_EXPECTED = {
    "dist_gloo_timeout": ("straggler", [1]),  # rank 1 sleeps past the timeout; torchrun's "Root Cause" names rank 0
    "dist_barrier_timeout": ("straggler", [1]),
    "dist_monitored_barrier_timeout": ("straggler", [1]),
    "dist_rank_exception": ("crash-first", [1]),  # KeyError mid-step
    "dist_rank_exception_hang": ("crash-first", [1]),
    "dist_rank_exception_record": ("crash-first", [2]),
    "dist_mismatch_collectives": ("desync", [0, 1]),  # ALLREDUCE vs BROADCAST, two ranks: no majority
    "dist_mismatch_sizes_detail": ("desync", [0, 1]),
    # Gloo's size check fires on rank 0 (the receiver); rank 1 (5 elements) sent the oversized message: undecided
    "dist_mismatch_sizes": ("undecided", []),
    "dist_worker_sigkill": ("killed", [1]),
    "dist_worker_sigsegv": ("crash-first", [1]),
    "dist_worker_sigabrt": ("crash-first", [1]),
}
REQUIRED = {"dist_gloo_timeout", "dist_rank_exception", "dist_mismatch_collectives", "dist_mismatch_sizes"}


def _manifest() -> dict[str, Path]:
    data = yaml.safe_load((REAL_RANKS.parent / "MANIFEST.yaml").read_text(encoding="utf-8"))
    out: dict[str, Path] = {}
    for item in data["logs"]:
        if item.get("ranks_dir"):
            out[Path(item["file"]).stem] = REAL_RANKS.parent / item["ranks_dir"]
    return out


MANIFEST = _manifest()


def test_manifest_lists_the_four_issue_cases() -> None:
    assert set(MANIFEST) >= REQUIRED


@pytest.mark.parametrize("case", sorted(set(REAL_EXPECTED) & set(MANIFEST)))
def test_real_gloo_run(case: str) -> None:
    folder = MANIFEST[case]
    assert folder.is_dir(), f"MANIFEST names {folder}, which is missing"
    report = triage_paths(folder)
    kind, guilty = REAL_EXPECTED[case]
    assert (report.conclusion.kind, report.conclusion.guilty_ranks) == (kind, guilty), report.conclusion.summary
    assert report.conclusion.evidence_refs


@pytest.mark.parametrize("case", sorted(REQUIRED))
def test_real_gloo_console_alone(case: str) -> None:
    """The --tee console by itself (one combined log with [defaultN]: and [rankN]: prefixes) gives the same answer."""
    report = triage_paths(MANIFEST[case] / "console.log")
    kind, guilty = REAL_EXPECTED[case]
    assert (report.conclusion.kind, report.conclusion.guilty_ranks) == (kind, guilty)


@pytest.mark.parametrize("case", ["dist_gloo_timeout", "dist_rank_exception"])
def test_real_gloo_rank_files_alone(case: str) -> None:
    """Without the console there is no exit information; the per-rank files decide or the report abstains."""
    folders = sorted(p for p in MANIFEST[case].iterdir() if p.is_dir())
    report = triage_paths(*folders)
    if report.conclusion.kind == "undecided":
        assert report.conclusion.suggestions
    else:
        assert (report.conclusion.kind, report.conclusion.guilty_ranks) == REAL_EXPECTED[case]


def test_gloo_size_check_names_the_ring_sender_first_not_only_the_detector() -> None:
    c = triage_paths(MANIFEST["dist_mismatch_sizes"]).conclusion
    assert (c.kind, c.detected_by[:1], c.candidates) == ("undecided", [0], [1, 0])
    rules = {n.rank: n.rule for n in c.named_ranks}
    assert rules == {1: "gloo-ring-sender", 0: "gloo-size-receiver"}
    assert all(n.role == "candidate" and n.evidence_refs for n in c.named_ranks)
    assert any("TORCH_DISTRIBUTED_DEBUG=DETAIL" in s for s in c.suggestions)


def test_every_named_rank_carries_its_rule_and_evidence() -> None:
    from rootcause.core.triage.rules import RULES

    for case in REAL_EXPECTED:
        c = triage_paths(MANIFEST[case]).conclusion
        assert c.candidates[: len(c.guilty_ranks)] == c.guilty_ranks, case
        for n in c.named_ranks:
            assert n.rule in RULES and n.evidence_refs, (case, n)


def test_torchrun_root_cause_is_reported_but_not_trusted() -> None:
    """torchrun's "Root Cause (first observed failure)" names rank 0, which only timed out first."""
    report = triage_paths(MANIFEST["dist_gloo_timeout"])
    assert report.ranks[0].launcher_root_cause and not report.ranks[1].launcher_root_cause
    assert report.conclusion.guilty_ranks == [1]


def test_nccl_warnings_are_cited_per_rank() -> None:
    report = triage_paths(NCCL_FIXTURES / "nccl-ib-failure-64" / "logs")
    cited = {e.id: e for e in report.evidence}
    refs = report.ranks[34].warnings
    assert len(refs) == 2 and all("NCCL WARN" in cited[r].text for r in refs)
