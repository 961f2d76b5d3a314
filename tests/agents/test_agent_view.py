"""The agent views are bounded whatever the diagnosis holds (pure functions, no server)."""

from __future__ import annotations

import json

import pytest

from rootcause.core import agent_view as view
from rootcause.core.diagnosis import DeadEndView, Diagnosis, Finding, LineRef, WorkaroundView
from rootcause.core.versions import Verdict, VersionVerdict


def _finding(n: int, size: int) -> Finding:
    """A finding whose every text is ``size`` characters long."""
    big = ("x" * 37 + " ") * (size // 38 + 1)
    return Finding(
        id=f"test/entry-{n}",
        signature=big[:size],
        score=0.95,
        confidence="high",
        matched_by="pattern",
        generic=False,
        role="cause",
        count=3,
        ranks=[0, 1, 2, 5],
        sources=["<text>"],
        lines=[LineRef(source="<text>", line=7, text=big[:size])],
        params={f"p{i}": big[:size] for i in range(40)},
        param_values={},
        versions=VersionVerdict(status=Verdict.AFFECTED, reasons=[big[:size]]),
        root_cause=big[:size],
        workarounds=[
            WorkaroundView(action=big[:size], how=big[:size] + "\n" + big[:size], success_rate=0.8, basis="estimate")
            for _ in range(6)
        ],
        dead_ends=[DeadEndView(action=big[:size], why_fails=big[:size], fail_rate=0.7, basis="estimate")] * 6,
    )


@pytest.mark.parametrize("size", [10, 500, 20_000])
@pytest.mark.parametrize("count", [1, 3, 40])
def test_diagnosis_view_is_bounded(size: int, count: int) -> None:
    d = Diagnosis(matched=True, findings=[_finding(n, size) for n in range(count)])
    text = view.diagnosis_view(d)
    assert len(text) <= view.MAX_CHARS
    assert text.count("\n#") <= view.MAX_FINDINGS
    doc = json.loads(view.diagnosis_view(d, fmt="json"))
    assert len(json.dumps(doc, ensure_ascii=False, separators=(",", ":"))) <= view.MAX_CHARS
    assert 1 <= len(doc["findings"]) <= view.MAX_FINDINGS
    assert [f["id"] for f in doc["findings"]] + doc["more"] == [f.id for f in d.findings][: len(doc["findings"]) + 20]
    for f in doc["findings"]:
        assert len(f["workarounds"]) <= view.MAX_WORKAROUNDS
        assert len(f["dead_ends"]) <= view.MAX_DEAD_ENDS
    detailed = view.diagnosis_view(d, detail=True)
    assert len(detailed) <= view.DETAIL_MAX_CHARS
    assert len(view.diagnosis_view(d, fmt="json", detail=True)) <= view.DETAIL_MAX_CHARS


def test_small_findings_keep_everything() -> None:
    d = Diagnosis(matched=True, findings=[_finding(1, 40)])
    text = view.diagnosis_view(d)
    assert "#1 test/entry-1" in text and "ranks 0-2,5" in text and "seen 3×" in text
    assert "shortened" not in text
    assert text.count("  - ") == view.MAX_WORKAROUNDS + view.MAX_DEAD_ENDS  # no indexes without the entry


def test_no_match_is_said_plainly() -> None:
    d = Diagnosis(matched=False, findings=[], abstain_reason="no known error matched: nothing")
    assert view.diagnosis_view(d).startswith("rootcause: no known error matched.")
    assert json.loads(view.diagnosis_view(d, fmt="json"))["matched"] is False


def test_clip_keeps_head_and_tail() -> None:
    text = "HEAD" + "m" * 1000 + "TAIL"
    out = view.clip(text, 100)
    assert len(out) <= 100 and out.startswith("HEAD") and out.endswith("TAIL") and view.ELLIPSIS in out
    assert view.clip("short", 100) == "short"
    assert view.clip("abc", 0) == ""


def test_truncate_input_keeps_whole_lines_and_counts_bytes() -> None:
    lines = [f"line {n} ü" for n in range(200_000)]
    text = "\n".join(lines)
    cut = view.truncate_input(text, 100_000)
    total = len(text.encode())
    assert cut.dropped_bytes > 0
    assert cut.head_bytes + cut.tail_bytes + cut.dropped_bytes == total
    assert cut.head_bytes <= 50_000 and cut.tail_bytes <= 50_000
    head, marker, tail = cut.text.partition(f"\n[… rootcause dropped {cut.dropped_bytes} bytes here …]\n")
    assert marker and head.startswith("line 0 ü") and tail.endswith(lines[-1])
    known = set(lines)
    assert all(line in known for line in head.splitlines() + tail.splitlines())
    assert str(cut.dropped_bytes) in (cut.note or "")
    assert view.truncate_input("small").dropped_bytes == 0 and view.truncate_input("small").note is None
