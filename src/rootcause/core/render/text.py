"""Terminal rendering of an entry with rich, wrapped to the console with hanging indents, never cropped.
Returns a renderable; printing is the CLI's job."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rootcause.core.model import Entry
from rootcause.core.render.labels import Lang, basis_note, label, percent, pick
from rootcause.core.render.terminal import block, code, hanging, heading
from rootcause.core.reproducers import ReproducerView


def render_text(entry: Entry, lang: Lang = "en", reproducers: Sequence[ReproducerView] = ()) -> RenderableType:
    head = Text()
    head.append(pick(entry.signature, entry.signature_zh, lang), style="bold red")
    head.append(f"\n{entry.id}", style="cyan")
    tags = [entry.domain, entry.category, entry.verification.value, str(entry.resolvable).lower()]
    if entry.error_code:
        tags.insert(0, entry.error_code)
    if entry.generic:
        tags.append(label("generic", lang))
    head.append("  " + " · ".join(tags), style="dim")

    stats = Table.grid(padding=(0, 3))
    row: list[str] = []
    for key in ("fix_rate", "confidence"):
        rate = getattr(entry, key)
        if rate is not None:
            row.append(f"[bold]{percent(rate)}[/] {label(key, lang)} [dim]({basis_note(rate, lang)})[/]")
    row.append(f"[bold]{entry.evidence.count}[/] {label('evidence', lang)}")
    if entry.first_seen:
        row.append(f"[bold]{entry.first_seen}[/] {label('first_seen', lang)}")
    stats.add_row(*row)

    parts: list[RenderableType] = [head, stats]
    cause = pick(entry.root_cause, entry.root_cause_zh, lang)
    parts += [heading(label("root_cause", lang)), block(Text(cause))]

    if entry.versions:
        versions = Table(title=label("versions", lang), title_justify="left")
        for key in ("version", "status", "introduced", "deprecated", "notes"):
            versions.add_column(label(key, lang))
        for v in entry.versions:
            versions.add_row(
                escape(v.requirement),
                v.status.value,
                v.introduced or "—",
                v.deprecated or "—",
                escape(v.notes or "—"),
            )
        parts.append(versions)

    if entry.workarounds:
        rows: list[tuple[Text | str, RenderableType]] = []
        for n, w in enumerate(entry.workarounds, 1):
            first = Text()
            first.append(f"{percent(w.success_rate)} {label('success', lang)} ", style="green")
            first.append(f"({basis_note(w.success_rate, lang)}) ", style="dim")
            first.append(pick(w.action, w.action_zh, lang))
            body: list[RenderableType] = [first]
            if w.condition:
                body.append(Text(f"{label('condition', lang)}: {pick(w.condition, w.condition_zh, lang)}", style="dim"))
            body.append(code("$ " + w.how.replace("\n", "\n  ")))
            rows.append((Text(f"{n}.", style="bold"), Group(*body)))
        parts += [heading(label("workarounds", lang)), hanging(rows, indent=2)]

    if entry.dead_ends:
        rows = []
        for d in entry.dead_ends:
            t = Text()
            t.append(d.action, style="bold")
            t.append(f"  {percent(d.fail_rate)} {label('fail', lang)}\n", style="red")
            t.append(pick(d.why_fails, d.why_fails_zh, lang))
            rows.append((Text("✗", style="red"), t))
        parts += [heading(label("dead_ends", lang)), hanging(rows, indent=2)]

    if entry.official_docs:
        parts.append(Text(label("official_docs", lang) + ": " + " ".join(entry.official_docs)))
    for r in reproducers:
        lines = Text()
        lines.append(f"{r.what} ({r.device})\n", style="bold")
        lines.append(f"{label('folder', lang)}: reproducers/{r.folder}/\n", style="dim")
        lines.append(f"$ {r.command}\n", style="yellow")
        for name, command, measured in r.variants:
            lines.append(f"  {name}: ", style="dim")
            lines.append(f"$ {command}" + (f"  ({measured})" if measured else "") + "\n", style="green")
        if r.verified:
            verified_with = ", ".join(f"{k} {v}" for k, v in r.versions)
            lines.append(f"{label('last_verified', lang)}: {r.verified}, {r.where}; {verified_with}")
        else:
            lines.append(f"{label('last_verified', lang)}: {label('not_verified', lang)}")
        parts += [heading(label("reproduce", lang)), block(lines)]
    return Group(*parts)
