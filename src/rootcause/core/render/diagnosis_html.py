"""The diagnosis results page: the CLI's diagnosis, as HTML. A pure function of a
:class:`Diagnosis`; every text goes through Jinja's autoescaping."""

from __future__ import annotations

from typing import Any

from rootcause.core.diagnosis import Diagnosis, Finding
from rootcause.core.render.diagnosis_text import (
    UNVERIFIED_NOTICE,
    finding_label,
    finding_where,
    headline,
    triage_line,
    unclassified_lines,
    verdict_line,
)
from rootcause.core.render.diagnosis_view import diagnosis_markdown
from rootcause.core.render.html import entry_href, environment
from rootcause.core.render.located import (
    FAMILY_WORDS,
    LOCATED_NOTE,
    LOCATED_TITLE,
    LOCATED_TITLE_ZH,
    installed_words,
    located_where,
)


def _finding(f: Finding, root: str) -> dict[str, Any]:
    return {
        "id": f.id,
        "href": entry_href(f.id, root),
        "href_zh": entry_href(f.id, root, "zh"),
        "score": f"{f.score:.2f}",
        "label": finding_label(f),
        "role": f.role,
        "generic": f.generic,
        "signature": f.signature,
        "where": finding_where(f),
        "lines": "\n".join(ref.text for ref in f.lines[:3]),
        "params": list(f.params.items()),
        "versions": f.versions.status.value,
        "reasons": "; ".join(f.versions.reasons),
        "root_cause": f.root_cause,
        "workarounds": [
            {
                "action": w.action,
                "rate": f"{round(w.success_rate * 100)}%",
                "basis": w.basis,
                "condition": w.condition,
                "how": w.how,
                "support": {"seen": "the log shows this", "excluded": f"does not apply: {w.support_note}"}.get(
                    w.support
                ),
            }
            for w in f.workarounds
        ],
        "more_workarounds": f.more_workarounds,
        "headline": headline(f),
        "dead_ends": [{"action": d.action, "why_fails": d.why_fails} for d in f.dead_ends],
        "unverified": f.verification == "ai_generated",
    }


def diagnosis_context(d: Diagnosis, root: str = "") -> dict[str, Any]:
    return {
        "lang": "en",
        "lang_attr": "en",
        "root": root,
        "matched": d.matched,
        "verdict": verdict_line(d),
        "triage": triage_line(d),
        "findings": [_finding(f, root) for f in d.findings],
        "abstain_reason": d.abstain_reason,
        "nearest": [
            {
                "id": c.id,
                "href": entry_href(c.id, root),
                "score": f"{c.score:.2f}",
                "signature": c.signature,
            }
            for c in d.nearest
        ],
        "environment": ", ".join(f"{k}=={v}" for k, v in sorted(d.environment.items())),
        "inputs": [i.model_dump() for i in d.inputs],
        "truncated": d.truncated_hits,
        "unverified_notice": UNVERIFIED_NOTICE,
        "unclassified": [unclassified_lines(u) for u in d.unclassified],
        "located": [
            {
                "where": f"{item.source}:{item.line}" + (f" (+{item.count - 1} more lines)" if item.count > 1 else ""),
                "text": item.text,
                "place": located_where(item),
                "source_url": item.source_url if item.source_url.startswith("https://") else "",
                "installed": installed_words(item),
                "also": item.also,
                "family": FAMILY_WORDS.get(item.family or "", ""),
                "checks": item.checks,
                "checks_zh": item.checks_zh,
            }
            for item in d.located
        ],
        "located_title": LOCATED_TITLE,
        "located_title_zh": LOCATED_TITLE_ZH,
        "located_note": LOCATED_NOTE,
        "markdown": diagnosis_markdown(d),
    }


def render_diagnosis_html(d: Diagnosis, root: str = "") -> str:
    """The results page; ``root`` is the relative path from the page to the site root."""
    return environment().get_template("diagnosis.html").render(diagnosis_context(d, root))
