"""`rootcause triage` and the triage that `rootcause diagnose` attaches: formats, exit codes, the JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

from triage_support import NCCL_FIXTURES, REAL_RANKS, run_cli

STRAGGLER = NCCL_FIXTURES / "nccl-straggler-16" / "logs"


def test_json_shape_and_exit_0() -> None:
    done = run_cli("triage", "--format", "json", str(STRAGGLER))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"conclusion", "ranks", "timeline", "evidence"} <= set(report)
    c = report["conclusion"]
    assert {"kind", "guilty_ranks", "summary", "evidence_refs", "suggestions", "finding_ids"} <= set(c)
    assert (c["kind"], c["guilty_ranks"]) == ("straggler", [11])
    rank = report["ranks"]["11"]
    for key in ("host", "local_rank", "gpu", "bus_id", "first_error", "last_enqueued", "last_completed", "exit_code",
                "signal", "sources"):  # fmt: skip
        assert key in rank
    evidence = {e["id"]: e for e in report["evidence"]}
    first = evidence[c["evidence_refs"][0]]
    assert {"source", "line", "text"} <= set(first) and first["line"] > 0
    assert Path(first["source"]).is_file()
    with Path(first["source"]).open(encoding="utf-8") as fh:  # source + line number point at the raw line (cut at 500)
        assert fh.read().splitlines()[first["line"] - 1].startswith(first["text"])
    assert report["timeline"] and all("summary" in t and "ranks" in t for t in report["timeline"])
    assert "pytorch/nccl-watchdog-timeout" in c["finding_ids"]  # the knowledge-base entry of the timeouts


def test_markdown_and_text() -> None:
    md = run_cli("triage", "-f", "md", str(NCCL_FIXTURES / "nccl-desync-32" / "logs"))
    assert md.returncode == 0
    assert md.stdout.startswith("## rootcause triage: Desync")
    for heading in ("### Evidence", "### Timeline", "### Ranks"):
        assert heading in md.stdout
    text = run_cli("triage", str(NCCL_FIXTURES / "nccl-desync-32" / "logs"))
    assert text.returncode == 0 and "triage: Desync" in text.stdout and "_ALLGATHER_BASE" in text.stdout


def test_undecided_exits_1(tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(
        "[rank0]: RuntimeError: [/x/unbound_buffer.cc:78] Timed out waiting 5000ms for recv operation to complete\n"
    )
    (tmp_path / "rank1.log").write_text(log.read_text().replace("rank0", "rank1"))
    done = run_cli("triage", "-f", "json", str(tmp_path))
    assert done.returncode == 1
    assert json.loads(done.stdout)["conclusion"]["kind"] == "undecided"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli("triage").returncode == 2
    missing = run_cli("triage", str(tmp_path / "nope"))
    assert missing.returncode == 2 and missing.stderr.startswith("rootcause: error:")
    assert run_cli("triage", "--format", "xml", str(STRAGGLER)).returncode == 2


def test_stdin_combined_log() -> None:
    console = (REAL_RANKS / "dist_rank_exception" / "console.log").read_text()
    done = run_cli("triage", "-f", "json", "-", stdin=console)
    assert done.returncode == 0, done.stderr
    c = json.loads(done.stdout)["conclusion"]
    assert (c["kind"], c["guilty_ranks"]) == ("crash-first", [1])


def test_diagnose_attaches_the_triage() -> None:
    done = run_cli("diagnose", "-f", "json", str(REAL_RANKS / "dist_gloo_timeout"))
    d = json.loads(done.stdout)
    assert d["triage"] is not None
    c = d["triage"]["conclusion"]
    assert (c["kind"], c["guilty_ranks"]) == ("straggler", [1])
    assert set(c["finding_ids"]) <= {f["id"] for f in d["findings"]}


def test_no_kb_flag_skips_the_links() -> None:
    done = run_cli("triage", "-f", "json", "--no-kb", str(STRAGGLER))
    assert done.returncode == 0
    assert json.loads(done.stdout)["conclusion"]["finding_ids"] == []


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gloo-allreduce-timeout" / "ranks"


def test_diagnose_leads_with_the_verdict_on_the_readme_example() -> None:
    """examples/README.md's triage example (a real DETAIL capture) reaches a verdict from its per-rank logs, and
    `diagnose` states it before its findings."""
    triage = run_cli("triage", "-f", "json", str(EXAMPLE))
    c = json.loads(triage.stdout)["conclusion"]
    assert (triage.returncode, c["kind"], c["guilty_ranks"]) == (0, "straggler", [1])
    text = run_cli("diagnose", str(EXAMPLE)).stdout
    assert text.index("Triage: Straggler (high confidence), look first at rank(s) 1") < text.index("\n1. ")
    md = run_cli("diagnose", "-f", "md", str(EXAMPLE)).stdout
    assert md.index("Triage: Straggler") < md.index("## 1. ")
