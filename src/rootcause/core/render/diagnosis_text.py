"""The terminal view of a diagnosis: the answer first.

Line one is the verdict (which known error, how sure, whether these versions are affected, or
"no known error matched"); for input from several ranks, the triage conclusion follows; then
each finding leads with the user's own line that matched, and lists the workarounds that the
evidence supports first, each with its condition, and how many more the entry has.
Everything wraps to the console's width with hanging indents; nothing is cropped.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from rootcause.core.diagnosis import Diagnosis, Finding
from rootcause.core.render.labels import clip
from rootcause.core.render.located import LOCATED_NOTE, LOCATED_TITLE, located_facts
from rootcause.core.render.terminal import block, code, hanging
from rootcause.core.unclassified import UnclassifiedException
from rootcause.core.versions import Verdict

HEADLINE_CHARS = 400
VERDICT_WORDS = {
    Verdict.AFFECTED: "your versions are affected",
    Verdict.NOT_AFFECTED: "your versions are not affected",
    Verdict.FIXED: "fixed in your versions",
    Verdict.UNKNOWN: "versions unknown",
}
SUPPORT_MARK = {"seen": "the log shows this", "excluded": "does not apply"}
UNVERIFIED_NOTICE = (
    "unverified, AI-generated: no person has checked this entry against a source; prefer the entries above"
)
UNCLASSIFIED_TITLE = "Unclassified Python exception"


def unclassified_lines(u: UnclassifiedException) -> list[str]:
    """The facts of an exception no known error explains, one per line (no diagnosis)."""
    out = [f"{u.exception}: {u.message}", f"raised at {u.last_frame}" if u.last_frame else ""]
    out += [f"seen at {u.source}:{u.line}", f"through {', '.join(u.stack)} ({u.frames} frames)"]
    return [line for line in out if line]


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
    if f.consequence:
        tags.append("seen through a consequence: the failure's own line is not in the input")
    return ", ".join(tags)


def verdict_line(d: Diagnosis) -> str:
    """One line that answers: which known error, how sure, and whether it applies here."""
    if not d.findings:
        return "No known error matched."
    if not d.matched:
        return "No known error matched: only a wrapper or a notice did, beside an error no entry explains (below)."
    top = d.findings[0]
    line = f"Known error: {top.id} ({top.confidence} confidence, {VERDICT_WORDS[top.versions.status]})"
    others = len(d.findings) - 1
    if others:
        line += f"; {others} more finding{'s' if others > 1 else ''} below"
    return line


def triage_line(d: Diagnosis) -> str | None:
    """The multi-rank conclusion in one line, when the input held several ranks."""
    if d.triage is None:
        return None
    from rootcause.core.triage.render import KIND_LABEL

    c = d.triage.conclusion
    line = f"Triage: {KIND_LABEL.get(c.kind, c.kind)} ({c.confidence} confidence)"
    if c.guilty_ranks:
        line += f", look first at rank(s) {_ranks(c.guilty_ranks)}"
        if c.guilty_hosts:
            line += " on " + ", ".join(c.guilty_hosts)
    elif c.candidates:
        line += ", candidates: " + ", ".join(map(str, c.candidates[:8]))
    return line + ". " + c.summary


def headline(f: Finding) -> str:
    """The user's own line that matched, as the finding's headline."""
    return clip(f.lines[0].text if f.lines else f.signature, HEADLINE_CHARS)


def _workarounds(f: Finding) -> list[RenderableType]:
    rows: list[tuple[Text | str, RenderableType]] = []
    for n, w in enumerate(f.workarounds, 1):
        body = Text()
        body.append(w.action)
        body.append(f"  {round(w.success_rate * 100)}% success ({w.basis})", style="green")
        if w.support in SUPPORT_MARK:
            body.append(f"  [{SUPPORT_MARK[w.support]}", style="bold cyan" if w.support == "seen" else "dim")
            body.append(f": {w.support_note}]" if w.support == "excluded" and w.support_note else "]", style="dim")
        parts: list[RenderableType] = [body]
        if w.condition:
            parts.append(Text("when: " + w.condition, style="dim"))
        parts.append(code("$ " + w.how.replace("\n", "\n  ")))
        rows.append((Text(f"{n}.", style="bold"), Group(*parts)))
    out: list[RenderableType] = [Text("what to do, the best supported first:", style="bold")]
    out.append(hanging(rows, indent=2))
    if f.more_workarounds:
        out.append(Text(f"  +{f.more_workarounds} more: rootcause show {f.id}", style="cyan"))
    return out


def finding_rich(n: int, f: Finding) -> RenderableType:
    parts: list[RenderableType] = []
    parts.append(hanging([(Text(f"{n}.", style="bold"), Text(headline(f), style="bold red"))]))
    meta = Text()
    meta.append(f"at {finding_where(f)}\n", style="cyan")
    meta.append(f"{f.id}", style="bold cyan")
    meta.append(f"  score {f.score:.2f} · {finding_label(f)}", style="dim")
    body: list[RenderableType] = [meta]
    if f.verification == "ai_generated":
        body.insert(0, Text(f"⚠ {UNVERIFIED_NOTICE}", style="bold yellow"))
    if f.params:
        body.append(Text("params: " + ", ".join(f"{k}={v}" for k, v in f.params.items())))
    versions = Text()
    versions.append(f"versions: {f.versions.status.value}", style="magenta")
    versions.append(" — " + "; ".join(f.versions.reasons), style="dim")
    body.append(versions)
    if f.workarounds:
        body += _workarounds(f)
    cause = Text()
    cause.append("cause: ", style="bold")
    cause.append(f.root_cause)
    body.append(cause)
    if f.dead_ends:
        rows: list[tuple[Text | str, RenderableType]] = []
        for de in f.dead_ends:
            t = Text()
            t.append(de.action, style="bold")
            t.append(" — " + de.why_fails, style="dim")
            rows.append((Text("✗", style="red"), t))
        body.append(Text("dead ends:", style="bold"))
        body.append(hanging(rows, indent=2))
    parts.append(block(Group(*body), indent=3))
    return Group(*parts)


def diagnosis_rich(d: Diagnosis) -> RenderableType:
    first = Text(verdict_line(d), style="bold green" if d.findings else "bold yellow")
    parts: list[RenderableType] = [first]
    conclusion = triage_line(d)
    if conclusion:
        parts.append(Text(conclusion, style="bold"))
    if not d.findings:
        if d.abstain_reason:
            parts.append(Text(d.abstain_reason, style="dim"))
        for c in d.nearest:
            parts.append(Text(f"  nearest (not a diagnosis): {c.id}  similarity {c.score:.2f}", style="dim"))
        for u in d.unclassified:
            parts.append(Text(f"\n{UNCLASSIFIED_TITLE} (not a known error):", style="bold"))
            parts.append(block(Text("\n".join(unclassified_lines(u))), indent=3))
    for n, f in enumerate(d.findings, 1):
        parts.append(Text(""))
        parts.append(finding_rich(n, f))
    for item in d.located:
        parts.append(Text(f"\n{LOCATED_TITLE} ({LOCATED_NOTE}):", style="bold"))
        parts.append(block(Text("\n".join(located_facts(item))), indent=3))
    if d.triage is not None:
        from rootcause.core.triage.render import triage_rich

        parts.append(Text(""))
        parts.append(triage_rich(d.triage))
    return Group(*parts)
