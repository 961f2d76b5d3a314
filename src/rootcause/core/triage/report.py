"""Assemble the `TriageReport`: conclusion, ranks, timeline and the evidence lines they cite."""

from __future__ import annotations

from rootcause.core.triage.model import (
    Conclusion,
    ErrorInfo,
    Evidence,
    NamedRank,
    RankReport,
    TimelineEvent,
    TimeoutInfo,
    TriageInput,
    TriageReport,
)
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.state import Ev
from rootcause.core.triage.verdict import Verdict

MAX_EVIDENCE = 1500


class _Registry:
    def __init__(self, res: Resolved, cap: int) -> None:
        self.res = res
        self.cap = cap
        self.items: dict[tuple[int, int], Evidence] = {}
        self.full = False

    def ref(self, ev: Ev | None) -> str | None:
        if ev is None:
            return None
        where = (ev.src, ev.line)
        item = self.items.get(where)
        if item is None:
            if len(self.items) >= self.cap:
                self.full = True
                return None
            item = Evidence(
                id=f"E{len(self.items) + 1}",
                source=self.res.acc.sources[ev.src].name,
                line=ev.line,
                text=ev.text,
                rank=self.res.rank_of(ev.key),
                kind=ev.kind,
                time=ev.shown,
            )
            self.items[where] = item
        return item.id


def build_report(res: Resolved, v: Verdict, *, max_evidence: int = MAX_EVIDENCE) -> TriageReport:
    reg = _Registry(res, max_evidence)
    refs = [r for r in (reg.ref(e) for e in v.evidence) if r is not None]
    named = [
        NamedRank(
            rank=n.rank,
            role=n.role,  # type: ignore[arg-type]
            rule=n.rule,
            reason=n.reason,
            evidence_refs=list(dict.fromkeys(r for r in (reg.ref(e) for e in n.evidence) if r is not None)),
        )
        for n in v.named
    ]
    conclusion = Conclusion(
        kind=v.kind,  # type: ignore[arg-type]
        guilty_ranks=v.guilty,
        detected_by=v.detected,
        candidates=list(dict.fromkeys(n.rank for n in v.named)),
        named_ranks=named,
        guilty_hosts=v.hosts,
        confidence=v.confidence,  # type: ignore[arg-type]
        summary=v.summary,
        collective=v.collective,
        evidence_refs=list(dict.fromkeys(refs)),
        suggestions=v.suggestions,
    )
    timeline = _timeline(res, reg)
    ranks = {r: _rank(res, r, v, reg) for r in res.ranks}
    notes = _notes(res)
    if reg.full:
        notes.append(f"Evidence was capped at {max_evidence} lines.")
    return TriageReport(
        conclusion=conclusion,
        world_size=res.world_size,
        missing_ranks=res.missing,
        ranks=ranks,
        timeline=timeline,
        evidence=sorted(reg.items.values(), key=lambda e: int(e.id[1:])),
        inputs=[TriageInput(name=s.name, rank=s.rank, lines=s.lines, bytes=s.bytes) for s in res.acc.sources],
        notes=notes,
        truncated=reg.full or res.acc.dropped_groups > 0,
    )


def _timeline(res: Resolved, reg: _Registry) -> list[TimelineEvent]:
    out: list[TimelineEvent] = []
    for group in sorted(res.acc.groups.values(), key=lambda g: g.first.order()):
        ranks = sorted({r for r in (res.rank_of(k) for k in group.keys) if r is not None})
        out.append(
            TimelineEvent(
                time=group.first.shown,
                kind=group.kind,
                summary=group.summary,
                ranks=ranks,
                count=group.count,
                evidence=reg.ref(group.first),
            )
        )
    return out


def _rank(res: Resolved, r: int, v: Verdict, reg: _Registry) -> RankReport:
    st = res.ranks[r]
    first = None
    if st.first_error is not None:
        ev, raised = st.first_error
        first = ErrorInfo(
            type=raised.type,
            message=raised.message[:1000],
            category=raised.category,
            time=ev.shown,
            evidence=reg.ref(ev),
        )
    timeouts = [
        TimeoutInfo(
            backend=t.backend,
            seq=t.seq,
            op=t.op,
            numel_in=t.numel_in,
            numel_out=t.numel_out,
            timeout_ms=t.timeout_ms,
            elapsed_ms=t.elapsed_ms,
            pg=pg,
            time=ev.shown,
            evidence=reg.ref(ev),
        )
        for ev, t, pg in st.timeouts
    ]
    status = st.status[1] if st.status is not None else None
    return RankReport(
        rank=r,
        host=st.host,
        local_rank=st.local_rank,
        gpu=st.gpu,
        bus_id=st.bus_id,
        pid=st.pid or st.exit_pid,
        status=v.statuses.get(r, ""),
        has_log=st.has_log,
        first_error=first,
        timeouts=timeouts,
        last_enqueued=status.enqueued if status else None,
        last_started=status.started if status else None,
        last_completed=status.completed if status else None,
        exit_code=st.exit_code,
        signal=st.signal,
        launcher_root_cause=st.root_cause_block,
        nccl_warnings=st.warn_count,
        warnings=[ref for ref in (reg.ref(ev) for ev, _ in st.warns) if ref is not None],
        sources=[res.acc.sources[i].name for i in st.sources],
    )


def _notes(res: Resolved) -> list[str]:
    notes: list[str] = []
    if res.flight is not None and res.flight.missing:
        missing = ", ".join(map(str, res.flight.missing[:32]))
        notes.append(f"No Flight Recorder dump from rank(s) {missing}: they may have died before the others dumped.")
    if res.acc.dropped_groups:
        notes.append(
            f"{res.acc.dropped_groups} timeline events beyond the first {len(res.acc.groups)} kinds were dropped."
        )
    loose = sum(1 for s in res.orphans if s.first_error is not None)
    if loose:
        notes.append(
            f"{loose} group(s) of error lines could not be attributed to a rank (launcher output, or no rank prefix)."
        )
    return notes
