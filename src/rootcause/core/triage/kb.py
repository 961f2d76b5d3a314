"""Links from a triage report to the knowledge base: which entries matched the lines it cites.

The matches come either from a full diagnosis of the same inputs (`rootcause diagnose`), or from the
pattern stage of the scanner run in the same pass as the triage (`rootcause triage`), which skips the
lexical stage: that stage costs milliseconds per error-looking line, and the conclusion cites lines
that the patterns cover.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rootcause.core.triage.model import TriageReport

if TYPE_CHECKING:
    from rootcause.core.findings import Finding

ROLE_ORDER = {"cause": 0, "symptom": 1, "wrapper": 2, "notice": 3}
MAX_LINES = 64


@dataclass
class KbMatch:
    id: str
    role: str
    generic: bool
    first: tuple[int, int]  # (input order, line) of the first occurrence
    ranks: set[int] = field(default_factory=set)
    lines: set[tuple[str, int]] = field(default_factory=set)

    def rank_key(self) -> tuple[int, int, int, int]:
        return (int(self.generic), ROLE_ORDER.get(self.role, 3), *self.first)


def matches_from_findings(findings: list[Finding]) -> list[KbMatch]:
    """A diagnosis' findings, already ranked."""
    return [
        KbMatch(f.id, f.role, f.generic, (n, 0), set(f.ranks), {(ln.source, ln.line) for ln in f.lines})
        for n, f in enumerate(findings)
    ]


def matches_from_hits(hits: Iterable[tuple[str, str, bool, int, str, int, int | None]]) -> list[KbMatch]:
    """(entry id, role, generic, input order, source, line, rank) of every pattern hit, grouped per entry and
    ranked like a diagnosis: specific before generic, causes before symptoms before wrappers, earliest first."""
    by_id: dict[str, KbMatch] = {}
    for entry_id, role, generic, order, source, line, rank in hits:
        m = by_id.get(entry_id)
        if m is None:
            m = by_id[entry_id] = KbMatch(entry_id, role, generic, (order, line))
        m.first = min(m.first, (order, line))
        if rank is not None:
            m.ranks.add(rank)
        if len(m.lines) < MAX_LINES:
            m.lines.add((source, line))
    return sorted(by_id.values(), key=KbMatch.rank_key)


def link(report: TriageReport, matches: list[KbMatch]) -> None:
    """Each evidence line gets the entries that matched that very line; the conclusion gets those of its
    evidence, then those seen on its guilty ranks, in the ranking order of the matches."""
    by_line: dict[tuple[str, int], list[str]] = {}
    for m in matches:
        for where in m.lines:
            ids = by_line.setdefault(where, [])
            if m.id not in ids:
                ids.append(m.id)
    order = {m.id: i for i, m in enumerate(matches)}
    for ev in report.evidence:
        ev.finding_ids = sorted(by_line.get((ev.source, ev.line), []), key=lambda i: order.get(i, 1 << 30))
    refs = set(report.conclusion.evidence_refs)
    linked: list[str] = []
    for ev in report.evidence:
        if ev.id in refs:
            linked += [i for i in ev.finding_ids if i not in linked]
    linked.sort(key=lambda i: order.get(i, 1 << 30))
    guilty = set(report.conclusion.guilty_ranks)
    linked += [m.id for m in matches if m.id not in linked and guilty & m.ranks]
    if not linked and report.conclusion.kind in ("straggler", "undecided"):
        # the timeouts are the symptom every other rank shows; their entry applies
        linked = [m.id for m in matches if m.role == "symptom"][:3]
    report.conclusion.finding_ids = linked
