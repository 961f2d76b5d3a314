"""Multi-rank triage: which rank, host and collective, and what happened first.

Pure: nothing here opens a file. The models import cheaply (the diagnosis embeds a report);
the engine loads on first use.
"""

from __future__ import annotations

from typing import Any

from rootcause.core.triage.model import Conclusion, Evidence, RankReport, TimelineEvent, TriageReport

__all__ = [
    "Conclusion",
    "Evidence",
    "RankReport",
    "SourceFeed",
    "TimelineEvent",
    "Triage",
    "TriageReport",
    "link_findings",
    "triage_sources",
]

_ENGINE = {"SourceFeed", "Triage", "link_findings", "triage_sources"}


def __getattr__(name: str) -> Any:
    if name in _ENGINE:
        from rootcause.core.triage import engine

        return getattr(engine, name)
    raise AttributeError(name)
