"""Markdown rendering of an entry (index.md / zh.md). A pure function of the entry."""

from __future__ import annotations

from collections.abc import Sequence

from rootcause.core.model import Basis, Entry, Rate
from rootcause.core.render.labels import Lang, basis_note, label, percent, pick
from rootcause.core.reproducers import ReproducerView

DASH = "—"


def _rate(rate: Rate, lang: Lang) -> str:
    """A percentage; measured values say so (estimates keep the seed's plain form)."""
    if rate.basis is Basis.MEASURED:
        return f"{percent(rate)} ({basis_note(rate, lang)})"
    return percent(rate)


def _md_inline(text: str) -> str:
    """Keep entry text from being read as Markdown structure or raw HTML."""
    return text.replace("<", "&lt;").replace("\n", " ")


def _fence(code: str) -> str:
    fence = "```"
    while fence in code:
        fence += "`"
    return fence


def render_markdown(entry: Entry, lang: Lang = "en", reproducers: Sequence[ReproducerView] = ()) -> str:
    lines: list[str] = [f"# {_md_inline(pick(entry.signature, entry.signature_zh, lang))}", ""]
    if entry.is_withdrawn:
        lines += [f"> **{label('withdrawn', lang)}:** {entry.withdrawn}", ""]
    lines.append(f"- **{label('id', lang)}:** `{entry.id}`")
    lines.append(f"- **{label('domain', lang)}:** {entry.domain}")
    lines.append(f"- **{label('category', lang)}:** {entry.category}")
    if entry.error_code:
        lines.append(f"- **{label('error_code', lang)}:** `{entry.error_code}`")
    lines.append(f"- **{label('verification', lang)}:** {entry.verification.value}")
    if entry.fix_rate is not None:
        lines.append(f"- **{label('fix_rate', lang)}:** {_rate(entry.fix_rate, lang)}")
    lines += ["", f"## {label('root_cause', lang)}", ""]
    lines.append(_md_inline(pick(entry.root_cause, entry.root_cause_zh, lang)))

    if entry.versions:
        lines += ["", f"## {label('versions', lang)}", ""]
        head = [label(k, lang) for k in ("version", "status", "introduced", "deprecated")]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join("-" * (len(h) + 2) for h in head) + "|")
        for v in entry.versions:
            cells = [v.requirement, v.status.value, v.introduced or DASH, v.deprecated or DASH]
            lines.append("| " + " | ".join(_md_inline(c).replace("|", "\\|") for c in cells) + " |")

    if entry.workarounds:
        lines += ["", f"## {label('workarounds', lang)}", ""]
        for n, w in enumerate(entry.workarounds, 1):
            action = _md_inline(pick(w.action, w.action_zh, lang))
            rate = _rate(w.success_rate, lang)
            lines.append(f"{n}. **{action}** ({rate} {label('success', lang)})")
            fence = _fence(w.how)
            lines.append(f"   {fence}")
            lines += [f"   {code_line}" if code_line else "" for code_line in w.how.split("\n")]
            lines.append(f"   {fence}")

    if entry.dead_ends:
        lines += ["", f"## {label('dead_ends', lang)}", ""]
        for d in entry.dead_ends:
            why = _md_inline(pick(d.why_fails, d.why_fails_zh, lang))
            rate = _rate(d.fail_rate, lang)
            lines.append(f"- **{_md_inline(d.action)}** — {why} ({rate} {label('fail', lang)})")
    if reproducers:
        lines += ["", f"## {label('reproduce', lang)}", "", label("reproduce_intro", lang)]
        for r in reproducers:
            lines += ["", f"**{_md_inline(r.what)}** ({r.device})", ""]
            lines.append(f"- **{label('folder', lang)}:** `reproducers/{r.folder}/`")
            lines.append(f"- **{label('command', lang)}:** `{_md_inline(r.command)}`")
            for name, command, measured in r.variants:
                lines.append(f"- {name}: `{_md_inline(command)}`" + (f" ({measured})" if measured else ""))
            if r.verified:
                versions = ", ".join(f"{k} {v}" for k, v in r.versions)
                where = _md_inline(r.where or "")
                lines.append(f"- **{label('last_verified', lang)}:** {r.verified}, {where}; {versions}")
            else:
                lines.append(f"- **{label('last_verified', lang)}:** {label('not_verified', lang)}")
            if r.code:
                fence = _fence(r.code)
                lines += ["", f"{fence}python", r.code.rstrip("\n"), fence]
    return "\n".join(lines)
