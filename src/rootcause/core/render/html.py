"""HTML rendering of an entry (index.html / zh.html). A pure function of the entry.

Every piece of entry text goes through Jinja's autoescaping. Rates carry a
``data-basis`` attribute, so the page marks each number as estimated or measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from rootcause.core.model import Entry, Source
from rootcause.core.render.labels import (
    LABELS,
    VERSION_STATUS_ZH,
    Lang,
    basis_note,
    clip,
    label,
    percent,
    pick,
)
from rootcause.core.reproducers import ReproducerView

DASH = "—"


@cache
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("rootcause.core.render", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
        lstrip_blocks=False,
    )


def entry_href(entry_id: str, root: str, lang: Lang = "en") -> str:
    """Relative link from a page to another entry's page, static-host friendly."""
    return f"{root}errors/{entry_id}/{'zh' if lang == 'zh' else 'index'}.html"


def _labels(lang: Lang) -> dict[str, str]:
    return {key: value[lang] for key, value in LABELS.items()}


def _tags(entry: Entry) -> list[dict[str, str]]:
    tags = [{"kind": "code", "text": entry.error_code}] if entry.error_code else []
    tags += [
        {"kind": "domain", "text": entry.domain},
        {"kind": "category", "text": entry.category},
        {"kind": "verification", "text": entry.verification.value},
        {"kind": "resolvable", "text": str(entry.resolvable).lower()},
    ]
    if entry.generic:
        tags.append({"kind": "generic", "text": "generic"})
    return tags


def _stats(entry: Entry, lang: Lang) -> list[dict[str, str]]:
    stats: list[dict[str, str]] = []
    for key in ("fix_rate", "confidence"):
        rate = getattr(entry, key)
        if rate is not None:
            stats.append({"value": percent(rate), "label": label(key, lang), "basis": rate.basis})
    stats.append(
        {
            "value": str(entry.evidence.count),
            "label": label("evidence", lang),
            "basis": entry.evidence.basis,
        }
    )
    if entry.first_seen:
        stats.append({"value": entry.first_seen.isoformat(), "label": label("first_seen", lang), "basis": ""})
    return stats


FIRST_FIX = {"en": "What to do first", "zh": "首先这样做"}
MORE_FIXES = {
    "en": "All {n} workarounds, the dead ends and the details below",
    "zh": "下方有全部 {n} 个解决方案、无效尝试与详情",
}
NOTICES = {
    "ai": {
        "en": "Written with AI help and not yet checked by a person against a real failure: "
        "treat the cause and the fixes as a lead to confirm, not as an answer.",
        "zh": "本条目由 AI 辅助撰写，尚未经人对照真实故障核实：请把根因与解决方案当作待确认的线索，而不是定论。",
    },
    "community": {
        "en": "Not reproduced by this project: drawn from public reports and the libraries' source; "
        "the rates are estimates.",
        "zh": "本项目尚未亲手复现：依据公开报告与库的源码整理；比率均为估计值。",
    },
}


REVIEWED_FIRST = {
    "en": "This entry is unverified. Start with the reviewed entry for the same failure:",
    "zh": "本条目尚未核实。请先看同一故障的已审核条目：",
}


def _first_fix(entry: Entry, lang: Lang, root: str) -> dict[str, Any] | None:
    """The workaround most likely to help, for the short block above the page's detail.

    An AI-generated entry does not promote its own unverified advice there: when it names the same failure
    as other entries (``same-as``), the block sends the reader to those first (they rank above it in a
    diagnosis too, docs/ranking.md)."""
    if entry.verification.value == "ai_generated":
        same = [r.id for r in entry.related if r.type.value == "same-as"]
        if same:
            return {
                "heading": FIRST_FIX[lang],
                "reviewed_intro": REVIEWED_FIRST[lang],
                "reviewed": [{"id": i, "href": entry_href(i, root, lang)} for i in same],
                "more": MORE_FIXES[lang].format(n=len(entry.workarounds)),
            }
    if not entry.workarounds:
        return None
    w = max(entry.workarounds, key=lambda w: w.success_rate.value)
    return {
        "heading": FIRST_FIX[lang],
        "action": pick(w.action, w.action_zh, lang),
        "rate": percent(w.success_rate),
        "basis_note": basis_note(w.success_rate, lang),
        "condition": pick(w.condition, w.condition_zh, lang) if w.condition else None,
        "how": w.how,
        "more": MORE_FIXES[lang].format(n=len(entry.workarounds)),
    }


def _notice(entry: Entry, lang: Lang) -> dict[str, str] | None:
    kind = {"ai_generated": "ai", "community": "community"}.get(entry.verification.value)
    return None if kind is None else {"kind": kind, "text": NOTICES[kind][lang]}


def _provenance(entry: Entry, lang: Lang) -> list[str]:
    lines = []
    for key in ("fix_rate", "confidence"):
        rate = getattr(entry, key)
        if rate is not None:
            lines.append(f"{label(key, lang)} {percent(rate)}: {basis_note(rate, lang)}")
    for w in entry.workarounds:
        lines.append(f"{clip(pick(w.action, w.action_zh, lang), 80)}: {basis_note(w.success_rate, lang)}")
    for d in entry.dead_ends:
        lines.append(f"✗ {clip(d.action, 80)}: {basis_note(d.fail_rate, lang)}")
    return lines


def bounds_note(bounds: Source | str | None, lang: Lang) -> str:
    """Where a version bound was read, in one line ("" when nothing says)."""
    if bounds is None:
        return ""
    if isinstance(bounds, str):
        return label("bounds_unchecked", lang)
    return f"{label('bounds_read', lang)} {bounds.ref}" + (f" ({bounds.note})" if bounds.note else "")


def _generations(entry: Entry, lang: Lang) -> list[dict[str, Any]]:
    return [
        {
            "wording": g.wording,
            "versions": g.versions,
            "bounds": bounds_note(g.bounds_source, lang),
            "examples": [entry.examples[i].text for i in g.examples],
        }
        for g in entry.generations
    ]


def entry_context(
    entry: Entry, lang: Lang = "en", root: str = "../../../", reproducers: Sequence[ReproducerView] = ()
) -> dict[str, Any]:
    """Everything the entry page shows, as plain data (also handy for other views)."""
    other: Lang = "en" if lang == "zh" else "zh"
    if lang == "en":
        formats = [
            {"text": "JSON", "href": "index.json"},
            {"text": "Markdown", "href": "index.md"},
            {"text": "中文", "href": "zh.html", "hreflang": "zh"},
        ]
        links = {"json": "index.json", "md": "index.md", "other": "zh.html"}
    else:
        formats = [
            {"text": "JSON", "href": "index.json"},
            {"text": "Markdown 中文", "href": "zh.md"},
            {"text": "English", "href": "index.html", "hreflang": "en"},
        ]
        links = {"json": "index.json", "md": "zh.md", "other": "index.html"}
    if lang == "en":
        secondary, secondary_lang, secondary_heading = entry.root_cause_zh, "zh", "中文"
    else:
        secondary, secondary_lang, secondary_heading = entry.root_cause, "en", "English"
    return {
        "lang": lang,
        "lang_attr": "zh-CN" if lang == "zh" else "en",
        "root": root,
        "other_lang": other,
        "L": _labels(lang),
        "id": entry.id,
        # the original message, as logs print it; on a Chinese page its translation beside it
        "signature": entry.signature,
        "signature_translation": entry.signature_zh if lang == "zh" else None,
        "first_fix": _first_fix(entry, lang, root),
        "notice": _notice(entry, lang),
        "withdrawn": entry.withdrawn.isoformat() if entry.withdrawn else None,
        "tags": _tags(entry),
        "formats": formats,
        "links": links,
        "stats": _stats(entry, lang),
        "versions": [
            {
                "requirement": v.requirement,
                "status": VERSION_STATUS_ZH[v.status.value] if lang == "zh" else v.status.value,
                "introduced": v.introduced or DASH,
                "deprecated": v.deprecated or DASH,
                "notes": v.notes or (f"fixed in {v.fixed}" if v.fixed else DASH),
            }
            for v in entry.versions
        ],
        "root_cause": pick(entry.root_cause, entry.root_cause_zh, lang),
        "root_cause_type": entry.root_cause_type,
        "root_cause_secondary": secondary,
        "secondary_lang": secondary_lang,
        "secondary_heading": secondary_heading,
        "official_docs": entry.official_docs,
        "workarounds": [
            {
                "action": pick(w.action, w.action_zh, lang),
                "rate": percent(w.success_rate),
                "basis": w.success_rate.basis,
                "how": w.how,
                "condition": pick(w.condition, w.condition_zh, lang) if w.condition else None,
            }
            for w in entry.workarounds
        ],
        "zh_steps": [w.action_zh for w in entry.workarounds if w.action_zh] if lang == "en" else [],
        "dead_ends": [
            {
                "action": d.action,
                "rate": percent(d.fail_rate),
                "basis": d.fail_rate.basis,
                "why": pick(d.why_fails, d.why_fails_zh, lang),
            }
            for d in entry.dead_ends
        ],
        "provenance": _provenance(entry, lang),
        "generations": _generations(entry, lang),
        "related": [{"id": r.id, "type": r.type.value, "href": entry_href(r.id, root, lang)} for r in entry.related],
        "examples": [{"text": ex.text, "source": f"{ex.source.kind.value}: {ex.source.ref}"} for ex in entry.examples],
        "sources": [f"{s.kind.value}: {s.ref}" + (f" — {s.note}" if s.note else "") for s in entry.sources],
        "reproducers": [asdict(r) for r in reproducers],
    }


def render_html(
    entry: Entry, lang: Lang = "en", root: str = "../../../", reproducers: Sequence[ReproducerView] = ()
) -> str:
    """A standalone page; ``root`` is the relative path from the page to the site root."""
    return environment().get_template("entry.html").render(entry_context(entry, lang, root, reproducers))
