"""Views of a diagnosis: Markdown (to paste into an issue); the terminal view is in diagnosis_text."""

from __future__ import annotations

from rootcause.core.diagnosis import Diagnosis
from rootcause.core.render.diagnosis_text import (
    UNCLASSIFIED_TITLE,
    UNVERIFIED_NOTICE,
    finding_label,
    finding_where,
    headline,
    triage_line,
    unclassified_lines,
    verdict_line,
)
from rootcause.core.render.located import LOCATED_NOTE, LOCATED_TITLE, located_facts

__all__ = ["diagnosis_markdown", "finding_label", "finding_where"]


def _md_inline(text: str) -> str:
    """A log line as Markdown text: no emphasis or markup taken from it."""
    return "".join("\\" + c if c in "\\`*_[]<>#|~" else c for c in text)


def _md_code(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def _located_markdown(d: Diagnosis) -> list[str]:
    lines: list[str] = []
    for item in d.located:
        lines += ["", f"## {LOCATED_TITLE}", "", f"_{LOCATED_NOTE}_", "", f"Seen at `{item.source}:{item.line}`:", ""]
        facts = located_facts(item)
        lines += [_md_code(item.text), ""]
        for fact in facts[1:]:
            if fact.startswith("source: https://") and not any(c in fact for c in " `<>"):
                lines.append(f"- {fact}")  # a link, as it is
            else:
                lines.append(("  " if fact.startswith("  - ") else "") + f"- {_md_inline(fact.removeprefix('  - '))}")
    return lines


def diagnosis_markdown(d: Diagnosis) -> str:
    lines = ["# rootcause diagnosis", "", f"**{verdict_line(d)}**", ""]
    conclusion = triage_line(d)
    if conclusion:
        lines += [conclusion, ""]
    if not d.findings:
        lines += [f"{d.abstain_reason or ''}".rstrip(), ""]
        if d.nearest:
            lines += ["Nearest candidates (below the threshold, not a diagnosis):", ""]
            lines += [f"- `{c.id}` (similarity {c.score:.2f}): {c.signature}" for c in d.nearest]
        for u in d.unclassified:
            lines += ["", f"## {UNCLASSIFIED_TITLE} (not a known error)", ""]
            lines += [f"- {_md_inline(fact)}" for fact in unclassified_lines(u)]
        lines += _located_markdown(d)
        return "\n".join(lines) + "\n"
    for n, f in enumerate(d.findings, 1):
        lines.append(f"## {n}. `{f.id}` — score {f.score:.2f} ({finding_label(f)})")
        if f.verification == "ai_generated":
            lines += ["", f"> **{UNVERIFIED_NOTICE}**"]
        lines += ["", f"**{_md_inline(headline(f))}**", "", f"Known as: {f.signature}", ""]
        lines += [f"Seen at `{finding_where(f)}`:", ""]
        lines.append(_md_code("\n".join(ref.text for ref in f.lines[:3])))
        if f.params:
            lines += ["", "Parameters: " + ", ".join(f"`{k}={v}`" for k, v in f.params.items())]
        lines += ["", f"Versions: **{f.versions.status.value}** — " + "; ".join(f.versions.reasons)]
        lines += ["", f"Root cause: {f.root_cause}"]
        if f.workarounds:
            lines += ["", "Workarounds:", ""]
            for w in f.workarounds:
                rate = f"{round(w.success_rate * 100)}% success, {w.basis}"
                seen = {"seen": "; the log shows this", "excluded": f"; does not apply: {w.support_note}"}
                lines.append(f"1. {w.action} ({rate}{seen.get(w.support, '')})")
                if w.condition:
                    lines.append(f"   When: {w.condition}")
                lines.append("   " + _md_code(w.how).replace("\n", "\n   "))
            if f.more_workarounds:
                lines += ["", f"+{f.more_workarounds} more: `rootcause show {f.id}`"]
        if f.dead_ends:
            lines += ["", "Dead ends:", ""]
            lines += [f"- ~~{d_.action}~~ — {d_.why_fails}" for d_ in f.dead_ends]
        lines.append("")
    lines += _located_markdown(d)
    if d.environment:
        lines.append("Environment: " + ", ".join(f"{k}=={v}" for k, v in sorted(d.environment.items())))
    text = "\n".join(lines) + "\n"
    if d.triage is not None:
        from rootcause.core.triage.render import triage_markdown

        text += "\n" + triage_markdown(d.triage)
    return text
