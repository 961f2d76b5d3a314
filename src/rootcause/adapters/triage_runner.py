"""Run the multi-rank triage over inputs (CLI, web and fleet alike), and attach it to a diagnosis."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rootcause.core.diagnosis import Diagnosis
    from rootcause.core.triage import TriageReport
    from rootcause.core.triage.engine import Triage


def conclude_with_second_read(t: Triage, logs: list[tuple[str, Path]]) -> TriageReport:
    """The triage's report; when it is `undecided` with no candidate, the logs are read once more, linearly, for the
    ranks that every line's prefix names (`core/triage/presence.py`): a rank that printed no line the prefilter
    keeps (one that left early and cleanly) then shows, and the rules can weigh it. The common case pays nothing."""
    from rootcause.adapters.inputs import open_sources
    from rootcause.core.triage.engine import wants_second_read

    report = t.report()
    if not logs or not wants_second_read(report):
        return report
    again = t.again()
    for s in open_sources(logs):
        again.add(s.name, s.chunks, s.rank, presence=True)
    return again.report()


def start_triage(named: list[tuple[str, Path]]) -> tuple[Triage, list[tuple[str, Path]]]:
    """A triage for `diagnose_sources(..., triage=)` to feed in its own pass; the Flight Recorder dumps among the
    inputs are read into it here and left out of the logs returned."""
    from rootcause.adapters.flight_files import read_dump, split_dumps
    from rootcause.core.triage.engine import Triage

    t = Triage()
    logs, dumps = split_dumps(named)
    for name, path in dumps:
        t.add_dump(name, read_dump(name, path))
    return t, logs


def finish_triage(d: Diagnosis, t: Triage, logs: list[tuple[str, Path]]) -> None:
    from rootcause.core.triage.engine import link_findings

    report = conclude_with_second_read(t, logs)
    link_findings(report, d.findings)
    d.triage = report


def attach_triage(d: Diagnosis, paths: list[str]) -> None:
    """Attach the triage report of the same inputs to a diagnosis (`rootcause diagnose` on several ranks)."""
    from rootcause.adapters.flight_files import read_dump, split_dumps
    from rootcause.adapters.inputs import open_sources
    from rootcause.core.triage.engine import Triage, link_findings

    named = [(str(p), Path(p)) for p in paths]
    if len(d.inputs) == len(named):  # keep the diagnosis' names ("<stdin>" for a spooled stdin)
        named = [(i.name, path) for i, (_, path) in zip(d.inputs, named, strict=True)]
    t = Triage()
    named, dumps = split_dumps(named)
    for name, path in dumps:
        t.add_dump(name, read_dump(name, path))
    for s in open_sources(named):
        t.add(s.name, s.chunks, s.rank)
    report = conclude_with_second_read(t, named)
    link_findings(report, d.findings)
    d.triage = report
