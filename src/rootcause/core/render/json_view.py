"""JSON rendering of an entry (index.json).

The first keys are those that errorcanon-style sites publish, so their clients keep
working; rootcause's own fields follow them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from rootcause.core.model import Entry, Rate
from rootcause.core.reproducers import ReproducerView


def _rate_value(rate: Rate | None) -> float | None:
    return None if rate is None else rate.value


def _rate_detail(rate: Rate | None) -> dict[str, Any] | None:
    return None if rate is None else rate.model_dump(mode="json")


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    compatible: dict[str, Any] = {
        "id": entry.id,
        "signature": entry.signature,
        "signature_zh": entry.signature_zh,
        "regex": entry.patterns[0].regex,
        "domain": entry.domain,
        "category": entry.category,
        "subcategory": entry.subcategory,
        "root_cause": entry.root_cause,
        "root_cause_type": entry.root_cause_type,
        "root_cause_zh": entry.root_cause_zh,
        "versions": [
            {
                "version": v.requirement,
                "introduced": v.introduced,
                "deprecated": v.deprecated,
                "removed": v.removed,
                "behavior_change": v.notes,
                "status": v.status.value,
                "fixed": v.fixed,
                "bounds_source": v.model_dump(mode="json", exclude_none=True).get("bounds_source"),
            }
            for v in entry.versions
        ],
        "os_specific": dict(entry.os_specific),
        "dead_ends": [
            {
                "action": d.action,
                "why_fails": d.why_fails,
                "fail_rate": d.fail_rate.value,
                "condition": d.condition or "",
                "sources": list(d.sources),
                "why_fails_zh": d.why_fails_zh,
                "fail_rate_detail": _rate_detail(d.fail_rate),
            }
            for d in entry.dead_ends
        ],
        "workarounds": [
            {
                "action": w.action,
                "success_rate": w.success_rate.value,
                "how": w.how,
                "action_zh": w.action_zh,
                "condition": w.condition,
                "condition_zh": w.condition_zh,
                "sources": list(w.sources),
                "success_rate_detail": _rate_detail(w.success_rate),
            }
            for w in entry.workarounds
        ],
    }
    own: dict[str, Any] = {
        "schema_version": entry.schema_version,
        "modified": entry.modified.isoformat(),
        "withdrawn": entry.withdrawn.isoformat() if entry.withdrawn else None,
        "error_code": entry.error_code,
        "verification": entry.verification.value,
        "resolvable": entry.resolvable,
        "generic": entry.generic,
        "fix_rate": _rate_value(entry.fix_rate),
        "confidence": _rate_value(entry.confidence),
        "evidence": entry.evidence.count,
        "first_seen": entry.first_seen.isoformat() if entry.first_seen else None,
        "last_seen": entry.last_seen.isoformat() if entry.last_seen else None,
        "official_docs": list(entry.official_docs),
        "rates": {
            "fix_rate": _rate_detail(entry.fix_rate),
            "confidence": _rate_detail(entry.confidence),
            "evidence": entry.evidence.model_dump(mode="json"),
        },
        "patterns": [p.model_dump(mode="json", exclude_none=True) for p in entry.patterns],
        "generations": [g.model_dump(mode="json", exclude_none=True) for g in entry.generations],
        "hardware": list(entry.hardware),
        "related": [r.model_dump(mode="json", exclude_none=True) for r in entry.related],
        "examples": [e.model_dump(mode="json", exclude_none=True) for e in entry.examples],
        "sources": [s.model_dump(mode="json", exclude_none=True) for s in entry.sources],
        "extra": dict(entry.extra),
    }
    return compatible | own


def render_json(entry: Entry, reproducers: Sequence[ReproducerView] = ()) -> str:
    data = entry_to_dict(entry)
    if reproducers:
        data["reproduce"] = [asdict(r) for r in reproducers]
    return json.dumps(data, ensure_ascii=False, indent=2)
