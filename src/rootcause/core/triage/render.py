"""Views of a triage report: Markdown (to paste into an issue) and a rich renderable for a terminal."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rootcause.core.triage.model import Evidence, RankReport, TriageReport
from rootcause.core.triage.verdict import ranges

MAX_TIMELINE = 25
MAX_RANK_ROWS = 30
MAX_EVIDENCE_SHOWN = 8
KIND_LABEL = {
    "straggler": "Straggler",
    "desync": "Desync",
    "crash-first": "Crash first",
    "killed": "Killed",
    "network": "Network",
    "undecided": "Undecided",
}


def _ranks(ranks: list[int], limit: int = 12) -> str:
    if not ranks:
        return "—"
    text = ranges(ranks)
    parts = text.split(", ")
    return text if len(parts) <= limit else ", ".join(parts[:limit]) + f", … ({len(ranks)} ranks)"


def _rank_rows(report: TriageReport) -> list[tuple[list[int], RankReport]]:
    """Consecutive ranks that look alike share a row; the guilty ranks always get their own."""
    guilty = set(report.conclusion.guilty_ranks)
    rows: list[tuple[list[int], RankReport]] = []
    for r, rr in sorted(report.ranks.items()):
        sig = (rr.host, rr.status, rr.last_enqueued, rr.last_completed, rr.exit_code, rr.signal)
        if rows and r not in guilty and rows[-1][0][-1] == r - 1 and rows[-1][0][-1] not in guilty:
            prev = rows[-1][1]
            if (prev.host, prev.status, prev.last_enqueued, prev.last_completed, prev.exit_code, prev.signal) == sig:
                rows[-1][0].append(r)
                continue
        rows.append(([r], rr))
    return rows


def _exit(rr: RankReport) -> str:
    if rr.exit_code is None:
        return ""
    return f"{rr.exit_code}" + (f" {rr.signal}" if rr.signal else "")


def _seq(rr: RankReport) -> str:
    if rr.last_enqueued is None and rr.last_completed is None:
        return ""
    enq = "?" if rr.last_enqueued is None else rr.last_enqueued
    done = "?" if rr.last_completed is None else rr.last_completed
    return f"{enq}/{done}"


def _gpu(report: TriageReport, ranks: list[int]) -> str:
    """GPU index and PCI bus id of one rank; the GPU indices of a group."""
    if len(ranks) == 1:
        rr = report.ranks[ranks[0]]
        parts = [str(rr.gpu) if rr.gpu is not None else "", f"({rr.bus_id})" if rr.bus_id else ""]
        return " ".join(p for p in parts if p)
    gpus = sorted({g for g in (report.ranks[r].gpu for r in ranks) if g is not None})
    return ranges(gpus) if gpus else ""


def _evidence(report: TriageReport) -> list[Evidence]:
    by_id = {e.id: e for e in report.evidence}
    return [by_id[i] for i in report.conclusion.evidence_refs if i in by_id]


def _md_code(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def triage_markdown(report: TriageReport) -> str:
    c = report.conclusion
    lines = [f"## rootcause triage: {KIND_LABEL[c.kind]}", ""]
    lines += [f"**{_md_cell(c.summary)}**", ""]
    facts = [f"confidence: {c.confidence}"]
    if c.guilty_ranks:
        facts.append(f"look first at: rank(s) {_ranks(c.guilty_ranks)}")
    elif c.candidates:
        facts.append("candidates, most likely first: " + ", ".join(map(str, c.candidates)))
    if c.detected_by:
        facts.append(f"detected by: rank(s) {_ranks(c.detected_by)} (where it surfaced, not who caused it)")
    for n in c.named_ranks[:8]:
        facts.append(f"rank {n.rank} ({n.role}, rule `{n.rule}`): {_md_cell(n.reason)} [{', '.join(n.evidence_refs)}]")
    if c.guilty_hosts:
        facts.append("host(s): " + ", ".join(f"`{h}`" for h in c.guilty_hosts))
    if c.collective:
        facts.append(f"collective: `{c.collective}`")
    if c.finding_ids:
        facts.append("known errors: " + ", ".join(f"`{i}`" for i in c.finding_ids))
    lines += ["- " + f for f in facts] + [""]
    shown = _evidence(report)[:MAX_EVIDENCE_SHOWN]
    if shown:
        lines += ["### Evidence", ""]
        for e in shown:
            rank = f", rank {e.rank}" if e.rank is not None else ""
            lines.append(f"`{e.id}` {e.source}:{e.line}{rank}" + (f" ({e.time})" if e.time else ""))
            lines += [_md_code(e.text), ""]
    if report.timeline:
        lines += ["### Timeline", "", "| time | event | ranks | lines |", "|---|---|---|---|"]
        for ev in report.timeline[:MAX_TIMELINE]:
            lines.append(f"| {ev.time or '—'} | {_md_cell(ev.summary)} | {_ranks(ev.ranks, 6)} | {ev.count} |")
        if len(report.timeline) > MAX_TIMELINE:
            lines.append(f"| | … {len(report.timeline) - MAX_TIMELINE} more events in the JSON output | | |")
        lines.append("")
    if report.ranks:
        lines += [
            "### Ranks",
            "",
            "| rank | host | GPU | status | enqueued/completed | exit |",
            "|---|---|---|---|---|---|",
        ]
        rows = _rank_rows(report)
        for ranks, rr in rows[:MAX_RANK_ROWS]:
            lines.append(
                f"| {_ranks(ranks)} | {rr.host or ''} | {_gpu(report, ranks)} | {_md_cell(rr.status)} "
                f"| {_seq(rr)} | {_exit(rr)} |"
            )
        if len(rows) > MAX_RANK_ROWS:
            lines.append(f"| … | {len(rows) - MAX_RANK_ROWS} more rows in the JSON output | | | | |")
        lines.append("")
    if report.missing_ranks:
        lines += [f"Ranks without a log: {_ranks(report.missing_ranks, 20)}.", ""]
    if c.suggestions:
        lines += ["### Next time", ""] + [f"- {s}" for s in c.suggestions] + [""]
    for note in report.notes:
        lines.append(f"_{note}_")
    return "\n".join(lines).rstrip() + "\n"


def triage_rich(report: TriageReport) -> RenderableType:
    c = report.conclusion
    style = {"undecided": "yellow", "network": "magenta"}.get(c.kind, "red")
    head = Text()
    head.append(c.summary + "\n", style="bold")
    if c.guilty_ranks:
        head.append("look first at: ", style="dim")
        head.append(f"rank(s) {_ranks(c.guilty_ranks)}", style=f"bold {style}")
        if c.guilty_hosts:
            head.append(" on " + ", ".join(c.guilty_hosts), style=style)
        head.append("\n")
    elif c.candidates:
        head.append("candidates, most likely first: ", style="dim")
        head.append(", ".join(map(str, c.candidates)) + "\n", style=f"bold {style}")
    if c.detected_by:
        head.append("detected by: ", style="dim")
        head.append(f"rank(s) {_ranks(c.detected_by)} (where it surfaced, not who caused it)\n")
    for n in c.named_ranks[:8]:
        head.append(f"rank {n.rank}", style="bold")
        head.append(f" [{n.rule}] ", style="dim")
        head.append(escape(n.reason) + (f" ({', '.join(n.evidence_refs)})" if n.evidence_refs else "") + "\n")
    if c.collective:
        head.append("collective: ", style="dim")
        head.append(c.collective + "\n")
    if c.finding_ids:
        head.append("known errors: ", style="dim")
        head.append(", ".join(c.finding_ids) + "  (rootcause show ID)\n", style="cyan")
    parts: list[RenderableType] = [
        Panel(
            head,
            title=f"triage: {KIND_LABEL[c.kind]} · {c.confidence} confidence",
            title_align="left",
            border_style=style,
        )
    ]
    shown = _evidence(report)[:MAX_EVIDENCE_SHOWN]
    if shown:
        ev_text = Text()
        ev_text.append("evidence\n", style="italic")
        for e in shown:
            ev_text.append(f"{e.id} ", style="bold")
            ev_text.append(f"{e.source}:{e.line}", style="cyan")
            meta = ", ".join(x for x in (f"rank {e.rank}" if e.rank is not None else "", e.time or "") if x)
            ev_text.append(f"  {meta}\n" if meta else "\n", style="dim")
            ev_text.append("   " + e.text[:400] + "\n")
        parts.append(ev_text)
    if report.timeline:
        tl = Table(title="timeline", title_justify="left")
        for col in ("time", "event", "ranks", "lines"):
            tl.add_column(col, overflow="fold")
        for ev in report.timeline[:MAX_TIMELINE]:
            tl.add_row(ev.time or "—", escape(ev.summary), _ranks(ev.ranks, 6), str(ev.count))
        if len(report.timeline) > MAX_TIMELINE:
            tl.add_row("", f"… {len(report.timeline) - MAX_TIMELINE} more (--format json)", "", "")
        parts.append(tl)
    if report.ranks:
        rt = Table(title="ranks", title_justify="left")
        for col in ("rank", "host", "GPU", "status", "enq/done", "exit"):
            rt.add_column(col, overflow="fold")
        guilty = set(c.guilty_ranks)
        rows = _rank_rows(report)
        for ranks, rr in rows[:MAX_RANK_ROWS]:
            row_style = f"bold {style}" if set(ranks) & guilty else None
            rt.add_row(
                _ranks(ranks),
                rr.host or "",
                _gpu(report, ranks),
                escape(rr.status),
                _seq(rr),
                _exit(rr),
                style=row_style,
            )
        if len(rows) > MAX_RANK_ROWS:
            rt.add_row("…", f"{len(rows) - MAX_RANK_ROWS} more rows (--format json)", "", "", "", "")
        parts.append(rt)
    tail = Text()
    if report.missing_ranks:
        tail.append(f"ranks without a log: {_ranks(report.missing_ranks, 20)}\n", style="yellow")
    for s in c.suggestions:
        tail.append("→ ", style="green")
        tail.append(s + "\n")
    for note in report.notes:
        tail.append(note + "\n", style="dim")
    if tail.plain:
        parts.append(tail)
    return Group(*parts)
