"""The Markdown and terminal views: they say the conclusion, cite the evidence, and stay short on big jobs."""

from __future__ import annotations

import pytest
from rich.console import Console
from triage_support import NCCL_FIXTURES, triage_paths

from rootcause.core.triage.render import MAX_RANK_ROWS, triage_markdown, triage_rich

CASES = ["nccl-straggler-16", "nccl-desync-32", "nccl-crash-first-8", "nccl-ib-failure-64"]


@pytest.mark.parametrize("case", CASES)
def test_markdown(case: str) -> None:
    report = triage_paths(NCCL_FIXTURES / case / "logs")
    md = triage_markdown(report)
    c = report.conclusion
    assert md.startswith("## rootcause triage: ")
    assert c.summary.split(":")[0] in md
    for ref in c.evidence_refs[:3]:
        assert f"`{ref}`" in md
    assert md.count("```") % 2 == 0
    assert md.count("\n| ") <= 25 + MAX_RANK_ROWS + 4  # 64 ranks fold into a few rows


@pytest.mark.parametrize("case", CASES)
def test_rich(case: str) -> None:
    report = triage_paths(NCCL_FIXTURES / case / "logs")
    console = Console(record=True, width=110, color_system=None)
    console.print(triage_rich(report))
    text = console.export_text()
    assert f"{report.conclusion.confidence} confidence" in text
    assert "evidence" in text and "timeline" in text and "ranks" in text
    for r in report.conclusion.guilty_ranks:
        assert str(r) in text


def test_rank_rows_fold() -> None:
    report = triage_paths(NCCL_FIXTURES / "nccl-ib-failure-64" / "logs")
    md = triage_markdown(report)
    ranks_section = md.split("### Ranks", 1)[1].split("###", 1)[0]
    rows = [line for line in ranks_section.splitlines() if line.startswith("| ") and not line.startswith("| rank")]
    assert len(rows) < 20
    assert any(row.startswith("| 34 |") for row in rows)  # the guilty rank has a row of its own
