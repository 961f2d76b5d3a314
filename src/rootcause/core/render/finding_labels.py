"""Where a finding was seen and how it was matched, in words: shared by the terminal, Markdown and HTML views
(one floor below them, so that none imports another)."""

from __future__ import annotations

from rootcause.core.findings import Finding


def finding_where(f: Finding) -> str:
    first = f.lines[0]
    where = f"{first.source}:{first.line}"
    if f.count > 1:
        where += f" (+{f.count - 1} more"
        where += f", ranks {_ranks(f.ranks)})" if len(f.ranks) > 1 else ")"
    elif f.ranks:
        where += f" (rank {f.ranks[0]})"
    return where


def _ranks(ranks: list[int]) -> str:
    """[0, 1, 2, 5] → '0-2,5'."""
    out: list[str] = []
    start = prev = None
    for r in [*ranks, None]:
        if start is None:
            start = prev = r
        elif r is not None and prev is not None and r == prev + 1:
            prev = r
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = r
    return ",".join(out)


def finding_label(f: Finding) -> str:
    tags = [f"{f.confidence} confidence", f"matched by {f.matched_by}"]
    if f.generic:
        tags.append("generic")
    if f.role != "cause":
        tags.append(f.role)
    return ", ".join(tags)
