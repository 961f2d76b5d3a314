"""Small hand-built entries for engine tests (the real canon is tested elsewhere)."""

from __future__ import annotations

from typing import Any

from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry


def make_entry(entry_id: str, regex: str, signature: str, **extra: Any) -> Entry:
    domain = entry_id.split("/")[0]
    data: dict[str, Any] = {
        "id": entry_id,
        "modified": "2026-12-02",
        "signature": signature,
        "patterns": [{"regex": regex, **({"window": extra.pop("window")} if "window" in extra else {})}],
        "domain": domain,
        "category": "runtime_error",
        "root_cause": f"cause of {entry_id}",
        "examples": [{"text": signature, "source": {"kind": "output", "ref": "tests"}}],
        "sources": [{"kind": "output", "ref": "tests"}],
    }
    data.update(extra)
    return Entry.model_validate(data)


def index_of(*entries: Entry) -> CompiledIndex:
    return CompiledIndex(list(entries))
