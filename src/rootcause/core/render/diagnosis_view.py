"""Views of a diagnosis: Markdown (to paste into an issue) and a rich terminal view."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from rootcause.core.diagnosis import Diagnosis, Finding


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


def _md_code(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def diagnosis_markdown(d: Diagnosis) -> str:
    lines = ["# rootcause diagnosis", ""]
    if not d.findings:
        lines += [f"**No known error matched.** {d.abstain_reason or ''}".rstrip(), ""]
        if d.nearest:
            lines += ["Nearest candidates (below the threshold, not a diagnosis):", ""]
            lines += [f"- `{c.id}` (similarity {c.score:.2f}): {c.signature}" for c in d.nearest]
        return "\n".join(lines) + "\n"
    for n, f in enumerate(d.findings, 1):
        lines.append(f"## {n}. `{f.id}` — score {f.score:.2f} ({finding_label(f)})")
        lines += ["", f"**{f.signature}**", "", f"Seen at `{finding_where(f)}`:", ""]
        lines.append(_md_code("\n".join(ref.text for ref in f.lines[:3])))
        if f.params:
            lines += ["", "Parameters: " + ", ".join(f"`{k}={v}`" for k, v in f.params.items())]
        lines += ["", f"Versions: **{f.versions.status.value}** — " + "; ".join(f.versions.reasons)]
        lines += ["", f"Root cause: {f.root_cause}"]
        if f.workarounds:
            lines += ["", "Workarounds:", ""]
            for w in f.workarounds:
                rate = f"{round(w.success_rate * 100)}% success, {w.basis}"
                lines.append(f"1. {w.action} ({rate})")
                lines.append("   " + _md_code(w.how).replace("\n", "\n   "))
        if f.dead_ends:
            lines += ["", "Dead ends:", ""]
            lines += [f"- ~~{d_.action}~~ — {d_.why_fails}" for d_ in f.dead_ends]
        lines.append("")
    if d.environment:
        lines.append("Environment: " + ", ".join(f"{k}=={v}" for k, v in sorted(d.environment.items())))
    text = "\n".join(lines) + "\n"
    if d.triage is not None:  # the verdict leads; its details follow the findings
        from rootcause.core.triage.render import triage_markdown, triage_verdict_markdown

        head, _, rest = text.partition("\n\n")  # after the "# rootcause diagnosis" heading
        text = f"{head}\n\n{triage_verdict_markdown(d.triage)}\n{rest}\n{triage_markdown(d.triage, verdict=False)}"
    return text


def diagnosis_rich(d: Diagnosis) -> RenderableType:
    """The findings; on multi-rank input the triage verdict comes first and its details last."""
    parts: list[RenderableType] = []
    if d.triage is not None:
        from rootcause.core.triage.render import triage_rich, triage_verdict_rich

        parts.append(triage_verdict_rich(d.triage))
    parts.append(_findings_rich(d))
    if d.triage is not None:
        parts.append(triage_rich(d.triage, verdict=False))
    return Group(*parts)


def _findings_rich(d: Diagnosis) -> RenderableType:
    parts: list[RenderableType] = []
    if not d.findings:
        parts.append(Text("No known error matched.", style="bold yellow"))
        if d.abstain_reason:
            parts.append(Text(d.abstain_reason, style="dim"))
        for c in d.nearest:
            parts.append(Text(f"  nearest (not a diagnosis): {c.id}  similarity {c.score:.2f}", style="dim"))
        return Group(*parts)
    for n, f in enumerate(d.findings, 1):
        body = Text()
        body.append(f.signature + "\n", style="bold red")
        body.append(f"at {finding_where(f)}\n", style="cyan")
        for ref in f.lines[:2]:
            body.append("  " + ref.text[:300] + "\n", style="dim")
        if f.params:
            body.append("params: " + ", ".join(f"{k}={v}" for k, v in f.params.items()) + "\n")
        body.append(f"versions: {f.versions.status.value}", style="magenta")
        body.append(" — " + "; ".join(f.versions.reasons) + "\n", style="dim")
        body.append("cause: ", style="bold")
        body.append(f.root_cause + "\n")
        for w in f.workarounds:
            body.append(f"  ✓ {round(w.success_rate * 100)}% ({w.basis}) ", style="green")
            body.append(w.action + "\n")
            body.append("    $ " + w.how.replace("\n", "\n      ") + "\n", style="yellow")
        for de in f.dead_ends:
            body.append("  ✗ ", style="red")
            body.append(de.action, style="bold")
            body.append(" — " + de.why_fails + "\n", style="dim")
        title = f"{n}. {escape(f.id)}  score {f.score:.2f} · {escape(finding_label(f))}"
        style = "red" if f.role == "cause" and not f.generic else "yellow"
        parts.append(Panel(body, title=title, title_align="left", border_style=style))
    return Group(*parts)
