"""What happened first: a rank's own error (crash-first), a rank killed by a signal (killed), or NCCL
transport warnings that point at a host or NIC (network). By the lines' own timestamps where they tell,
else in that order of priority."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rootcause.core.normalize import parameterise
from rootcause.core.triage import extract as x
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.rules import RULES
from rootcause.core.triage.state import Ev, RankAcc
from rootcause.core.triage.verdict import (
    CRASH,
    EXTERNAL,
    SLACK_S,
    Named,
    Verdict,
    cascade_start,
    earlier,
    hosts_of,
    on_hosts,
    pick_evidence,
    ranks_word,
    short,
    surely_before,
    timed_out,
    when_text,
)


@dataclass
class _Cand:
    kind: str
    priority: int
    ranks: list[int]
    evs: list[Ev]
    first: Ev | None
    summary: str
    hosts: list[str] = field(default_factory=list)
    rule: str | None = None
    per_rank: list[tuple[int, str, Ev]] = field(default_factory=list)


def _own_errors(res: Resolved) -> _Cand | None:
    cascade_t = cascade_start(res)
    found: list[tuple[int, Ev, x.Raised]] = []
    for r, st in res.ranks.items():
        if st.first_own is None:
            if crashed_silently(res, st) and st.exit_ev is not None:
                found.append(
                    (r, st.exit_ev, x.Raised(st.signal or "signal", f"the process died of {st.signal}", "own"))
                )
            continue
        ev, raised = st.first_own
        if st.first_cascade is not None and earlier(st.first_cascade[0], ev):
            continue  # the rank was already failing because of another rank
        if ev.lo is not None and cascade_t is not None and ev.lo > cascade_t + SLACK_S:
            continue  # surely later than the first timeout elsewhere: a consequence
        found.append((r, ev, raised))
    if not found:
        return None
    found.sort(key=lambda item: item[1].order())
    ranks = [r for r, _, _ in found]
    r0, ev0, raised0 = found[0]
    others = sorted(
        r for r, st in res.ranks.items() if r not in ranks and (timed_out(st) or st.first_cascade is not None)
    )
    when = when_text(ev0)
    same = {(raised.type, parameterise(raised.message)) for _, _, raised in found}
    if len(found) > 1 and len(same) == 1 and not _surely_ordered([e for _, e, _ in found]):
        what = f"{raised0.type}: {short(raised0.message, 160)}"
        who = f"{ranks_word(ranks).capitalize()}{on_hosts(res, ranks)}"
        summary = f"{who} failed with the same error of their own: {what}"
        summary += "" if summary.endswith((".", "…")) else "."
    elif raised0.type.startswith("SIG"):
        summary = (
            f"Rank {r0}{on_hosts(res, [r0])} died first, of {raised0.type}{when}, with no error line of its own "
            "(a crash in native code, or an abort())."
        )
    else:
        what = f"{raised0.type}: {short(raised0.message, 160)}"
        summary = f"Rank {r0}{on_hosts(res, [r0])} failed first with its own error{when}: {what}"
        summary += "" if summary.endswith((".", "…")) else "."
    if len(ranks) > 1 and len(same) > 1:
        own = "an error of its own" if len(ranks) == 2 else "errors of their own"
        summary += f" {ranks_word(ranks[1:]).capitalize()} also failed with {own}."
    if others:
        summary += f" The timeouts and peer errors of {ranks_word(others)} followed from it: fix this error first."
    per_rank = [
        (r, "silent-crash" if raised.type.startswith("SIG") else "own-error-first", e) for r, e, raised in found
    ]
    return _Cand("crash-first", 0, ranks, [e for _, e, _ in found][:8], ev0, summary, per_rank=per_rank)


def crashed_silently(res: Resolved, st: RankAcc) -> bool:
    """Died of SIGSEGV/SIGBUS/…, or of SIGABRT that no watchdog or dump explains, with no error line."""
    if st.exit_pid is not None and st.exit_pid in res.acc.sigterm_pids:
        return False
    if st.signal in CRASH:
        return True
    return st.signal == "SIGABRT" and not timed_out(st) and st.first_cascade is None and st.dump is None


def _surely_ordered(evs: list[Ev]) -> bool:
    """Whether the first of these events surely came before the others."""
    first = min(evs, key=Ev.order)
    return all(surely_before(first, e) for e in evs if e is not first)


def _kills(res: Resolved) -> _Cand | None:
    found: list[tuple[int, RankAcc]] = []
    for r, st in res.ranks.items():
        if st.signal not in EXTERNAL or st.exit_ev is None or st.first_own is not None:
            continue
        if st.exit_pid is not None and st.exit_pid in res.acc.sigterm_pids:
            continue  # torchrun terminated it after another worker failed
        if timed_out(st) or (st.first_cascade is not None and st.signal != "SIGKILL"):
            continue
        found.append((r, st))
    if not found and res.acc.death_signals:
        ev = res.acc.death_signals[0]
        summary = (
            "The launcher itself received a termination signal and shut the workers down (a scheduler time limit, "
            "a preemption, or a person): no rank failed on its own."
        )
        return _Cand("killed", 1, [], [ev], ev, summary)
    if not found:
        return None
    found.sort(key=lambda item: item[1].exit_ev.order() if item[1].exit_ev else (9, 0.0, 0, 0))
    ranks = [r for r, _ in found]
    r0, st0 = found[0]
    why = " (often the kernel's OOM killer: check `dmesg` on that host)" if st0.signal == "SIGKILL" else ""
    summary = (
        f"Rank {r0}{on_hosts(res, [r0])} was killed by {st0.signal} (exit code {st0.exit_code}) with no error of "
        f"its own in its log{why}."
    )
    others = sorted(r for r, st in res.ranks.items() if r not in ranks and st.first_cascade is not None)
    if others:
        summary += f" The errors of {ranks_word(others)} followed its death."
    evs = [st.exit_ev for _, st in found if st.exit_ev]
    return _Cand("killed", 1, ranks, evs[:8], st0.exit_ev, summary, rule="killed-by-signal")


def _host_of(res: Resolved, peer: str) -> str:
    if peer in res.acc.ip_host:
        return res.acc.ip_host[peer]
    for r_state in res.ranks.values():
        if peer in r_state.ips and r_state.host:
            return r_state.host
    return peer


def _network(res: Resolved) -> _Cand | None:
    reports: list[tuple[int, Ev, x.NcclWarn]] = []
    for r, st in res.ranks.items():
        reports += [(r, ev, w) for ev, w in st.warns if w.category in ("ib", "socket", "config")]
    if not reports:
        return None
    reports.sort(key=lambda item: item[1].order())
    score: Counter[str] = Counter()
    reporters: dict[str, list[int]] = {}
    peers_named: Counter[str] = Counter()
    for r, _, w in reports:
        mine = res.ranks[r].host or f"rank {r}"
        reporters.setdefault(mine, []).append(r)
        ends = {mine}
        if w.peer:
            peer_host = _host_of(res, w.peer)
            peers_named[peer_host] += 1
            ends.add(peer_host)
        for end in ends:
            score[end] += 1
    best = score.most_common()
    top = [h for h, n in best if n == best[0][1]]
    guilty_ranks: list[int] = []
    for host in top:
        if host in reporters:
            guilty_ranks += reporters[host]
        else:
            guilty_ranks += [r for r, st in res.ranks.items() if st.host == host]
    guilty_ranks = sorted(set(guilty_ranks))
    hcas = sorted({w.hca for r, _, w in reports if w.hca and r in guilty_ranks})
    statuses = sorted({w.status for _, _, w in reports if w.status})
    guilty_reports = [item for item in reports if item[0] in guilty_ranks]
    first_r, first_ev, first_w = (guilty_reports or reports)[0]
    summary = (
        f"NCCL transport errors point at {'host ' + ', '.join(top) if len(top) == 1 else 'hosts ' + ', '.join(top)}: "
        f"{len(reports)} warning(s) from {ranks_word({r for r, _, _ in reports})}"
    )
    if peers_named:
        summary += f", naming {', '.join(f'{h} ({n}×)' for h, n in peers_named.most_common(4))} as the peer"
    summary += "."
    if hcas:
        summary += f" Local NIC(s) on the guilty side: {', '.join(hcas)}."
    if statuses:
        summary += f" IB completion status {', '.join(statuses)}" + (
            " (12 = retry exceeded: the link or the remote node went away)."
            if any("12" in s for s in statuses)
            else "."
        )
    lead = "First" if first_ev.t is not None else "For example"
    summary += f" {lead}, rank {first_r}: {short(first_w.message, 160)}"
    evs = [ev for _, ev, _ in reports]
    return _Cand(
        "network", 2, guilty_ranks, pick_evidence(evs, guilty_ranks, res, 10), first_ev, summary, top, "network-host"
    )


def first_cause(res: Resolved) -> Verdict | None:
    cands = [c for c in (_own_errors(res), _kills(res), _network(res)) if c is not None]
    if not cands:
        return None
    pick = min(cands, key=lambda c: c.priority)
    for c in cands:
        if c is not pick and all(surely_before(c.first, o.first) for o in cands if o is not c):
            pick = c
    hosts = pick.hosts or hosts_of(res, pick.ranks)
    confidence = "high" if pick.kind in ("crash-first", "killed") else "medium"
    v = Verdict(pick.kind, pick.summary, pick.ranks, hosts, confidence, None, pick.evs, rule=pick.rule)
    v.named = [Named(r, "guilty", rule, RULES[rule], [ev]) for r, rule, ev in pick.per_rank]
    return v
