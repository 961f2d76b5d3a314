"""Flight Recorder dumps: read safely (no pickle global ever runs), compared per process group by sequence id."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from triage_support import NCCL_FIXTURES, TESTS, run_cli, triage_paths

from rootcause.core.triage.engine import Triage
from rootcause.core.triage.flight import (
    MAX_DUMP_BYTES,
    DumpError,
    compare,
    looks_like_dump,
    parse_dump,
    rank_from_name,
)

REAL = TESTS / "fixtures" / "triage-real"
FR_CASES = ["nccl-fr-straggler-8", "nccl-fr-dtype-4"]


class _Boom:
    """What an attacker puts in a "dump": unpickling it would run os.system."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _malicious(marker: Path) -> bytes:
    return pickle.dumps({"version": "2.10", "entries": [_Boom(marker)]}, protocol=2)


def test_a_malicious_pickle_runs_nothing_and_is_one_clear_error(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    data = _malicious(marker)
    assert looks_like_dump(data[:4096])
    with pytest.raises(DumpError, match=r"rank_0: refused to load a pickle global \(posix\.system\)"):
        Triage().add_dump("rank_0", data)
    assert not marker.exists()


def test_the_cli_refuses_a_malicious_dump_among_the_logs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    logs = tmp_path / "job"
    logs.mkdir()
    (logs / "nccl_trace_rank_1").write_bytes(_malicious(marker))
    (logs / "rank0.log").write_text("[rank0]: RuntimeError: boom\n")
    done = run_cli("triage", "--no-kb", str(logs))
    assert done.returncode == 2 and not marker.exists()
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("rootcause: error: ") and "nccl_trace_rank_1" in line and "refused" in line


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x80\x02garbage", "not a Flight Recorder dump"),
        (b'{"entries": ' + b"[" * 200_000 + b"]" * 200_000 + b', "version": "2.4"}', "nested too deeply"),
        (json.dumps({"version": "2.4", "entries": {"a": 1}}).encode(), "no 'entries' list"),
        (json.dumps({"entries": [{"collective_seq_id": "x"}], "version": "2.4"}).encode(), "no integer"),
        (pickle.dumps([1, 2, 3], protocol=2), "no 'entries' list"),
    ],
)
def test_garbage_is_one_error(data: bytes, message: str) -> None:
    with pytest.raises(DumpError, match=message):
        parse_dump(data, "trace_rank_0")


def test_size_is_bounded() -> None:
    with pytest.raises(DumpError, match="more than"):
        parse_dump(b"{" + b" " * MAX_DUMP_BYTES, "trace_rank_0")


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("/tmp/nccl_trace_rank_3", 3),
        ("comm_lib_trace_rank_12", 12),
        ("gpu-a01.example.com_fr_trace_rank_7.json", 7),
        ("localhost-fr-trace-rank0", 0),
        ("node12-fr-41.pkl", 41),
        ("trace", None),
    ],
)
def test_rank_from_any_file_name(name: str, rank: int | None) -> None:
    assert rank_from_name(name) == rank


def test_real_gloo_dumps_align_by_collective_seq_id() -> None:
    """torch 2.13's own pickle dumps of the desync-by-size job (rank 2 all-reduces 1025 elements)."""
    dumps = {}
    for path in sorted((REAL / "desync-size" / "fr" / "fr").iterdir()):
        d = parse_dump(path.read_bytes(), str(path))
        dumps[d.rank] = d
    assert dumps[0].version == "2.10"
    fr = compare(dumps, 4)
    assert fr.mismatch is not None
    assert (fr.mismatch.seq, fr.mismatch.category, fr.mismatch.culprits) == (3, "SIZE_OR_SYNTAX_MISMATCH", [2])
    assert fr.missing == [1]  # rank 1 died of Gloo's size check (SIGABRT) before it could dump


@pytest.mark.parametrize("case", ["desync-op", "desync-size"])
def test_dumps_decide_the_gloo_desyncs(case: str) -> None:
    c = triage_paths(REAL / case / "fr").conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == (
        "desync",
        [2 if case == "desync-size" else 1],
        "flight-recorder-mismatch",
    )


@pytest.mark.parametrize("case", FR_CASES)
def test_nccl_format_dumps(case: str) -> None:
    expected = json.loads((NCCL_FIXTURES / case / "expected.json").read_text())
    report = triage_paths(NCCL_FIXTURES / case / "dumps")
    c = report.conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == (
        expected["kind"],
        expected["guilty_ranks"],
        expected["rule"],
    )
    cited = {e.id: e for e in report.evidence}
    assert cited[c.named_ranks[0].evidence_refs[0]].kind == "flight-recorder"
    if "category" in expected:
        assert expected["category"] in c.summary
    for r in expected.get("missing_dumps", []):
        assert any(f"rank(s) {r}" in n for n in report.notes)


def test_the_dump_generator_is_deterministic_and_committed() -> None:
    script = NCCL_FIXTURES / "make_fr_dumps.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
