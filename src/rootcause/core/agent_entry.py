"""Compact, size-bounded views of one entry for coding agents (see ``agent_view``).

Pure: data in, strings out.
"""

from __future__ import annotations

from typing import Any

from rootcause.core.agent_caps import LEVELS, Caps, entry_dead_ends, entry_workarounds, fit, items_json, items_text, pct
from rootcause.core.agent_clip import DETAIL_MAX_CHARS, MAX_CHARS, Format, clip, dumps, flat
from rootcause.core.model import Entry
from rootcause.core.render.labels import Lang, pick


def entry_text(entry: Entry, lang: Lang, caps: Caps) -> str:
    tags = [entry.domain, entry.category, entry.verification.value]
    if entry.error_code:
        tags.insert(0, entry.error_code)
    if entry.generic:
        tags.append("generic")
    if entry.fix_rate is not None:
        tags.append(f"fix rate {pct(entry.fix_rate.value)} ({entry.fix_rate.basis.value})")
    lines = [f"{entry.id}: {flat(pick(entry.signature, entry.signature_zh, lang), caps.signature)}", " · ".join(tags)]
    if entry.is_withdrawn:
        lines.append(f"WITHDRAWN on {entry.withdrawn}")
    if entry.versions and caps.versions > 0:
        ranges = "; ".join(f"{v.requirement} ({v.status.value})" for v in entry.versions)
        lines.append("versions: " + flat(ranges, caps.versions))
    if caps.root_cause > 0:
        lines.append("cause: " + flat(pick(entry.root_cause, entry.root_cause_zh, lang), caps.root_cause))
    workarounds = entry_workarounds(entry, lang)
    dead_ends = entry_dead_ends(entry, lang)
    lines += items_text("workarounds ([index] success rate):", workarounds[: caps.workarounds], caps, dead=False)
    lines += items_text("dead ends (do not try):", dead_ends[: caps.dead_ends], caps, dead=True)
    hidden = max(len(workarounds) - caps.workarounds, 0) + max(len(dead_ends) - caps.dead_ends, 0)
    if entry.related:
        lines.append("related: " + ", ".join(f"{r.id} ({r.type.value})" for r in entry.related[:6]))
    if hidden:
        lines.append(f"({hidden} more workarounds/dead ends: get_entry(id, detail=true))")
    return "\n".join(lines)


def entry_json(entry: Entry, lang: Lang, caps: Caps) -> dict[str, Any]:
    workarounds = entry_workarounds(entry, lang)
    dead_ends = entry_dead_ends(entry, lang)
    doc: dict[str, Any] = {
        "id": entry.id,
        "signature": flat(pick(entry.signature, entry.signature_zh, lang), caps.signature),
        "domain": entry.domain,
        "category": entry.category,
        "error_code": entry.error_code,
        "verification": entry.verification.value,
        "generic": entry.generic,
        "withdrawn": entry.withdrawn.isoformat() if entry.withdrawn else None,
        "fix_rate": None if entry.fix_rate is None else entry.fix_rate.value,
    }
    if caps.versions > 0:
        doc["versions"] = [f"{v.requirement} ({v.status.value})" for v in entry.versions]
    if caps.root_cause > 0:
        doc["root_cause"] = flat(pick(entry.root_cause, entry.root_cause_zh, lang), caps.root_cause)
    doc["workarounds"] = items_json(workarounds[: caps.workarounds], caps, dead=False)
    doc["dead_ends"] = items_json(dead_ends[: caps.dead_ends], caps, dead=True)
    doc["related"] = [r.id for r in entry.related]
    doc["not_shown"] = {
        "workarounds": max(len(workarounds) - caps.workarounds, 0),
        "dead_ends": max(len(dead_ends) - caps.dead_ends, 0),
    }
    return doc


def entry_view(entry: Entry, lang: Lang = "en", *, fmt: Format = "text", max_chars: int = MAX_CHARS) -> str:
    """A compact entry: the cause, the best workarounds with their how, the dead ends."""
    if fmt == "json":
        doc, _ = fit(lambda caps: entry_json(entry, lang, caps), max_chars, LEVELS)
        return dumps(doc)
    text, _ = fit(lambda caps: entry_text(entry, lang, caps), max_chars, LEVELS)
    return clip(text, max_chars)


def bounded_document(text: str, max_chars: int = DETAIL_MAX_CHARS) -> str:
    """A full document (an entry's Markdown) within ``max_chars``, saying when it was cut."""
    if len(text) <= max_chars:
        return text
    note = f"\n\n[… cut at {max_chars} characters of {len(text)}; the resource has it all …]"
    return text[: max_chars - len(note)] + note


def bounded_entry_dict(doc: dict[str, Any], max_chars: int = DETAIL_MAX_CHARS) -> str:
    """A full entry as compact JSON; when too large, its bulkiest lists go first (and are named)."""
    doc = dict(doc)
    omitted: list[str] = []
    for key in ("examples", "sources", "patterns", "dead_ends", "workarounds"):
        if len(dumps(doc)) <= max_chars:
            break
        if doc.get(key):
            doc[key] = []
            omitted.append(key)
    if omitted:
        doc["omitted"] = omitted
    return dumps(doc)
