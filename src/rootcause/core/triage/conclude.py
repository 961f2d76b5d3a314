"""From per-rank facts to one conclusion, with the lines that support it.

Order of the questions:
1. desync: did ranks call different collectives, or the same with different sizes, at one sequence
   number? (ProcessGroupWrapper fingerprints, WorkNCCL of the timeouts, the desync report, Gloo's size check)
2. what happened first: a rank's own error (crash-first), a rank killed by a signal (killed), or NCCL
   transport warnings (network); by time where the lines carry it, else in that order of priority;
3. straggler: which ranks never reached the collective the others timed out in (sequence numbers of the
   PG status lines, the desync report, monitoredBarrier, or, by elimination, the ranks with no timeout);
4. otherwise undecided, saying what is missing and what to enable next time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rootcause.core.normalize import parameterise
from rootcause.core.triage import extract as x
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.state import Ev, RankAcc

SLACK_S = 2.0  # clocks of different hosts drift; events closer than this are not ordered
EXTERNAL = {"SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT", "SIGTERM", "SIGXCPU", "SIGUSR1", "SIGUSR2"}
CRASH = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"}
SIZE_CHECKED_OPS = {
    "ALLREDUCE",
    "BROADCAST",
    "REDUCE",
    "_ALLGATHER_BASE",
    "_REDUCE_SCATTER_BASE",
    "ALLGATHER",
    "REDUCE_SCATTER",
    "GATHER",
    "SCATTER",
}

FLIGHT_RECORDER = (
    "Set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 (the flight recorder; on by default "
    "from PyTorch 2.8): every rank then logs its last enqueued and completed collective and dumps a trace that "
    "`torchfrtrace` compares across ranks."
)
DETAIL = (
    "Set TORCH_DISTRIBUTED_DEBUG=DETAIL: every collective is first checked across ranks, and a mismatch names "
    "the ranks, the operation, the sequence number and the shapes."
)
DESYNC_DEBUG = "Set TORCH_NCCL_DESYNC_DEBUG=1: on a timeout, each rank reports which ranks never joined the collective."
NCCL_INFO = (
    "Set NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET is enough): NCCL then logs each rank's host, GPU, bus id and "
    "network interface, which map a failing rank or peer address to a machine."
)
ALL_LOGS = (
    "Keep one log per rank: `torchrun --log-dir DIR --redirects 3 --tee 3` writes DIR/<run>/attempt_<n>/<local rank>/"
    "{stdout,stderr}.log on every node."
)


@dataclass
class Verdict:
    kind: str
    summary: str
    guilty: list[int] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    confidence: str = "low"
    collective: str | None = None
    evidence: list[Ev] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    statuses: dict[int, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# helpers


def ranges(ranks: list[int] | set[int]) -> str:
    """[0, 1, 2, 5] → '0-2, 5'."""
    out: list[str] = []
    items = sorted(set(ranks))
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ", ".join(out)


def _ranks_word(ranks: list[int] | set[int]) -> str:
    return f"rank {ranks_list[0]}" if len(ranks_list := sorted(set(ranks))) == 1 else f"ranks {ranges(ranks_list)}"


def _hosts(res: Resolved, ranks: list[int]) -> list[str]:
    hosts: list[str] = []
    for r in ranks:
        host = res.ranks[r].host if r in res.ranks else None
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def _on_hosts(res: Resolved, ranks: list[int]) -> str:
    hosts = _hosts(res, ranks)
    return f" (on {', '.join(hosts[:8])}{' …' if len(hosts) > 8 else ''})" if hosts else ""


def _when(ev: Ev) -> str:
    if ev.shown is None:
        return ""
    return f" at {ev.shown}" if ev.t is not None else f" (after {ev.shown.lstrip('≥ ')})"


def _short(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class _Ref:
    """The collective the other ranks timed out in."""

    pg: str | None
    seq: int
    op: str | None
    ranks: list[int]
    evs: list[Ev]

    def label(self) -> str:
        pg = f", PG {self.pg}" if self.pg not in (None, "0") else ""
        return f"{self.op or 'collective'} #{self.seq}{pg}"


def _nccl_timeouts(res: Resolved) -> dict[tuple[str, int], dict[int, tuple[Ev, x.Timeout]]]:
    by_coll: dict[tuple[str, int], dict[int, tuple[Ev, x.Timeout]]] = {}
    for r, st in res.ranks.items():
        for ev, t, pg in st.timeouts:
            if t.backend == "nccl" and t.seq is not None:
                by_coll.setdefault((pg or "0", t.seq), {}).setdefault(r, (ev, t))
    return by_coll


def _reference(res: Resolved) -> _Ref | None:
    by_coll = _nccl_timeouts(res)
    if not by_coll:
        return None
    (pg, seq), members = max(by_coll.items(), key=lambda kv: (len(kv[1]), kv[0][0] == "0", -kv[0][1]))
    ops = Counter(t.op for _, t in members.values())
    evs = sorted((ev for ev, _ in members.values()), key=Ev.order)
    return _Ref(pg, seq, ops.most_common(1)[0][0], sorted(members), evs)


def _timed_out(st: RankAcc) -> bool:
    return bool(st.timeouts) or (st.first_cascade is not None and st.first_cascade[1].category == "timeout")


def _cascade_start(res: Resolved) -> float | None:
    times: list[float] = []
    for st in res.ranks.values():
        for ev, _, _ in st.timeouts:
            if ev.t is not None:
                times.append(ev.t)
        if st.first_cascade is not None and st.first_cascade[0].t is not None:
            times.append(st.first_cascade[0].t)
    return min(times) if times else None


def _earlier(a: Ev, b: Ev) -> bool | None:
    """Whether a happened before b, when the logs can tell."""
    if a.t is not None and b.t is not None:
        if abs(a.t - b.t) <= SLACK_S and a.src != b.src:
            return None
        return a.order() < b.order()
    if a.src == b.src:
        return a.line < b.line
    return None


# ---------------------------------------------------------------------------------------------
# 1. desync


def _majority(groups: dict[tuple[object, ...], list[int]]) -> tuple[list[int], bool]:
    """Ranks outside the largest group; False when there is no single largest group."""
    sizes = sorted((len(v) for v in groups.values()), reverse=True)
    if len(sizes) > 1 and sizes[0] == sizes[1]:
        return sorted(r for v in groups.values() for r in v), False
    biggest = max(groups.values(), key=len)
    return sorted(r for v in groups.values() if v is not biggest for r in v), True


def _describe_groups(groups: dict[tuple[object, ...], list[int]], fmt: str) -> str:
    parts = []
    for sig, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1])):
        parts.append(f"{_ranks_word(members)} {fmt.format(*sig)}")
    return "; ".join(parts)


def _desync(res: Resolved) -> Verdict | None:
    # ProcessGroupWrapper fingerprints (TORCH_DISTRIBUTED_DEBUG=DETAIL)
    own: dict[int, tuple[int, str, str | None, Ev]] = {}
    said: dict[int, tuple[int, str, str | None, Ev]] = {}
    for st in res.ranks.values():
        for ev, fp in st.fingerprints:
            own.setdefault(fp.rank, (fp.seq, fp.op, fp.shape, ev))
            said.setdefault(fp.other_rank, (fp.other_seq, fp.other_op, fp.other_shape, ev))
    for r, item in said.items():
        own.setdefault(r, item)
    if len(own) >= 2:
        groups: dict[tuple[object, ...], list[int]] = {}
        for r, (seq, op, shape, _) in own.items():
            groups.setdefault((seq, op, shape or ""), []).append(r)
        if len(groups) > 1:
            guilty, clear = _majority(groups)
            seqs = sorted({seq for seq, _, _, _ in own.values()})
            what = "operation" if len({op for _, op, _, _ in own.values()}) > 1 else "tensor shapes"
            summary = (
                f"Ranks called different collectives at sequence number {', '.join(map(str, seqs))} "
                f"(different {what}): {_describe_groups(groups, 'ran {1} [{2}] (SeqNum {0})')}. "
            )
            summary += (
                f"{_ranks_word(guilty).capitalize()} differ from the majority."
                if clear
                else "With no majority, the logs cannot tell which side is wrong: check the code path of each."
            )
            evs = sorted({id(item[3]): item[3] for item in own.values()}.values(), key=Ev.order)
            op_word = "/".join(sorted({op for _, op, _, _ in own.values()}))
            return Verdict(
                "desync",
                summary,
                guilty,
                _hosts(res, guilty),
                "high" if clear else "medium",
                f"{op_word} #{seqs[0]}",
                evs[:12],
            )
    # NCCL timeouts: same process group and sequence number, different op or size
    for (pg, seq), members in sorted(_nccl_timeouts(res).items(), key=lambda kv: -len(kv[1])):
        if len(members) < 2:
            continue
        groups = {}
        for r, (_, t) in members.items():
            sized = t.op in SIZE_CHECKED_OPS
            groups.setdefault((t.op, t.numel_in if sized else None, t.numel_out if sized else None), []).append(r)
        if len(groups) > 1:
            guilty, clear = _majority(groups)
            summary = (
                f"At sequence number {seq} (PG {pg}) the ranks timed out in different collectives: "
                f"{_describe_groups(groups, 'in {0} (NumelIn {1}, NumelOut {2})')}. "
            )
            summary += (
                f"{_ranks_word(guilty).capitalize()} called something other than the majority."
                if clear
                else "With no majority, the logs cannot tell which side is wrong."
            )
            evs = sorted((ev for ev, _ in members.values()), key=Ev.order)
            ops = "/".join(sorted({str(k[0]) for k in groups}))
            return Verdict(
                "desync",
                summary,
                guilty,
                _hosts(res, guilty),
                "high" if clear else "medium",
                f"{ops} #{seq}",
                _pick(evs, guilty, res),
            )
    # the desync report's own view (each rank's "Timeout at collective: OP, #seq")
    at: dict[int, tuple[Ev, x.DesyncAt]] = {r: st.desync_at for r, st in res.ranks.items() if st.desync_at}
    by_seq: dict[int, dict[tuple[object, ...], list[int]]] = {}
    for r, (_, d) in at.items():
        by_seq.setdefault(d.seq, {}).setdefault((d.op,), []).append(r)
    for seq, groups in by_seq.items():
        if len(groups) > 1:
            guilty, clear = _majority(groups)
            summary = (
                f"At collective #{seq} the ranks were in different operations: {_describe_groups(groups, 'in {0}')}."
            )
            evs = sorted((at[r][0] for g in groups.values() for r in g), key=Ev.order)
            return Verdict("desync", summary, guilty, _hosts(res, guilty), "medium", f"#{seq}", evs[:12])
    # Gloo's size check (no fingerprints): the receiver got a message of the wrong size
    sized = {r: st.size_mismatch for r, st in res.ranks.items() if st.size_mismatch}
    if sized:
        guilty = sorted(sized)
        detail = next(iter(sized.values()))[1].detail
        summary = (
            f"{_ranks_word(guilty).capitalize()} received a collective message of a different size than it expected "
            f"({detail}): the ranks called the same collective with different tensor sizes, or different collectives. "
            "Gloo cannot say which side is wrong; the ranks named are where it was detected."
        )
        evs = sorted((item[0] for item in sized.values()), key=Ev.order)
        return Verdict("desync", summary, guilty, _hosts(res, guilty), "medium", None, evs[:12], [DETAIL])
    return None


def _pick(evs: list[Ev], guilty: list[int], res: Resolved, limit: int = 12) -> list[Ev]:
    """Evidence of the guilty ranks first, then a few of the others."""
    mine = [e for e in evs if res.rank_of(e.key) in guilty]
    rest = [e for e in evs if res.rank_of(e.key) not in guilty]
    return (mine[: limit // 2] + rest)[:limit] if mine else evs[:limit]


# ---------------------------------------------------------------------------------------------
# 2. what happened first


@dataclass
class _Cand:
    kind: str
    priority: int
    ranks: list[int]
    evs: list[Ev]
    first: Ev | None
    summary: str
    hosts: list[str] = field(default_factory=list)


def _own_errors(res: Resolved) -> _Cand | None:
    cascade_t = _cascade_start(res)
    found: list[tuple[int, Ev, x.Raised]] = []
    for r, st in res.ranks.items():
        if st.first_own is None:
            if _crashed_silently(res, st) and st.exit_ev is not None:
                found.append(
                    (r, st.exit_ev, x.Raised(st.signal or "signal", f"the process died of {st.signal}", "own"))
                )
            continue
        ev, raised = st.first_own
        if st.first_cascade is not None and _earlier(st.first_cascade[0], ev):
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
        r for r, st in res.ranks.items() if r not in ranks and (_timed_out(st) or st.first_cascade is not None)
    )
    when = _when(ev0)
    same = {(raised.type, parameterise(raised.message)) for _, _, raised in found}
    if len(found) > 1 and len(same) == 1 and not _surely_ordered([e for _, e, _ in found]):
        what = f"{raised0.type}: {_short(raised0.message, 160)}"
        who = f"{_ranks_word(ranks).capitalize()}{_on_hosts(res, ranks)}"
        summary = f"{who} failed with the same error of their own: {what}"
        summary += "" if summary.endswith((".", "…")) else "."
    elif raised0.type.startswith("SIG"):
        summary = (
            f"Rank {r0}{_on_hosts(res, [r0])} died first, of {raised0.type}{when}, with no error line of its own "
            "(a crash in native code, or an abort())."
        )
    else:
        what = f"{raised0.type}: {_short(raised0.message, 160)}"
        summary = f"Rank {r0}{_on_hosts(res, [r0])} failed first with its own error{when}: {what}"
        summary += "" if summary.endswith((".", "…")) else "."
    if len(ranks) > 1 and len(same) > 1:
        own = "an error of its own" if len(ranks) == 2 else "errors of their own"
        summary += f" {_ranks_word(ranks[1:]).capitalize()} also failed with {own}."
    if others:
        summary += f" The timeouts and peer errors of {_ranks_word(others)} followed from it: fix this error first."
    return _Cand("crash-first", 0, ranks, [e for _, e, _ in found][:8], ev0, summary)


def _crashed_silently(res: Resolved, st: RankAcc) -> bool:
    """Died of SIGSEGV/SIGBUS/…, or of SIGABRT that no watchdog or dump explains, with no error line."""
    if st.exit_pid is not None and st.exit_pid in res.acc.sigterm_pids:
        return False
    if st.signal in CRASH:
        return True
    return st.signal == "SIGABRT" and not _timed_out(st) and st.first_cascade is None and st.dump is None


def _surely_ordered(evs: list[Ev]) -> bool:
    """Whether the first of these events surely came before the others."""
    first = min(evs, key=Ev.order)
    return all(_surely_before(first, e) for e in evs if e is not first)


def _kills(res: Resolved) -> _Cand | None:
    found: list[tuple[int, RankAcc]] = []
    for r, st in res.ranks.items():
        if st.signal not in EXTERNAL or st.exit_ev is None or st.first_own is not None:
            continue
        if st.exit_pid is not None and st.exit_pid in res.acc.sigterm_pids:
            continue  # torchrun terminated it after another worker failed
        if _timed_out(st) or (st.first_cascade is not None and st.signal != "SIGKILL"):
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
        f"Rank {r0}{_on_hosts(res, [r0])} was killed by {st0.signal} (exit code {st0.exit_code}) with no error of "
        f"its own in its log{why}."
    )
    others = sorted(r for r, st in res.ranks.items() if r not in ranks and st.first_cascade is not None)
    if others:
        summary += f" The errors of {_ranks_word(others)} followed its death."
    return _Cand("killed", 1, ranks, [st.exit_ev for _, st in found if st.exit_ev][:8], st0.exit_ev, summary)


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
    mine = [item for item in reports if item[0] in guilty_ranks]
    first_r, first_ev, first_w = (mine or reports)[0]
    summary = (
        f"NCCL transport errors point at {'host ' + ', '.join(top) if len(top) == 1 else 'hosts ' + ', '.join(top)}: "
        f"{len(reports)} warning(s) from {_ranks_word({r for r, _, _ in reports})}"
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
    summary += f" {lead}, rank {first_r}: {_short(first_w.message, 160)}"
    evs = [ev for _, ev, _ in reports]
    return _Cand("network", 2, guilty_ranks, _pick(evs, guilty_ranks, res, 10), first_ev, summary, top)


def _surely_before(a: Ev | None, b: Ev | None) -> bool:
    """a has its own timestamp, and it is earlier than anything b could be (b's lower bound)."""
    return a is not None and b is not None and a.t is not None and b.lo is not None and a.t + SLACK_S < b.lo


def _first_cause(res: Resolved) -> Verdict | None:
    cands = [c for c in (_own_errors(res), _kills(res), _network(res)) if c is not None]
    if not cands:
        return None
    pick = min(cands, key=lambda c: c.priority)
    for c in cands:
        if c is not pick and all(_surely_before(c.first, o.first) for o in cands if o is not c):
            pick = c
    hosts = pick.hosts or _hosts(res, pick.ranks)
    confidence = "high" if pick.kind in ("crash-first", "killed") else "medium"
    return Verdict(pick.kind, pick.summary, pick.ranks, hosts, confidence, None, pick.evs)


# ---------------------------------------------------------------------------------------------
# 3. straggler


def _straggler(res: Resolved) -> Verdict | None:
    waiting = sorted(r for r, st in res.ranks.items() if _timed_out(st))
    if not waiting:
        return None
    ref = _reference(res)
    label = ref.label() if ref else "the collective"
    evs: list[Ev] = list(ref.evs[:3]) if ref else []
    if not evs:  # no sequence numbers (Gloo, 1.x): the waiting ranks' own timeout lines
        for r in waiting[:3]:
            st = res.ranks[r]
            first = st.timeouts[0][0] if st.timeouts else st.first_cascade[0] if st.first_cascade else None
            if first is not None:
                evs.append(first)
    # (a) sequence numbers: a rank whose last enqueued collective is older than the one that timed out
    if ref is not None and ref.pg in (None, "0"):
        behind: list[int] = []
        for r, st in res.ranks.items():
            if r in ref.ranks or st.status is None or st.status[1].enqueued is None:
                continue
            if st.status[1].enqueued < ref.seq:
                behind.append(r)
                evs.append(st.status[0])
        if behind:
            detail = ", ".join(
                f"rank {r} last enqueued #{res.ranks[r].status[1].enqueued}"  # type: ignore[index]
                for r in behind[:6]
            )
            summary = (
                f"{_ranks_word(behind).capitalize()}{_on_hosts(res, behind)} never reached {label}, which "
                f"{_ranks_word(ref.ranks)} timed out in: {detail}{' …' if len(behind) > 6 else ''}."
            )
            return Verdict("straggler", summary, behind, _hosts(res, behind), "high", label, _pick(evs, behind, res))
    # (b) the desync report and monitoredBarrier name the ranks
    named: list[int] = []
    named_evs: list[Ev] = []
    for ev, lag in res.acc.lagging:
        if lag.how in ("never-joined", "finished-not-joined", "joined-not-finished"):
            named += lag.ranks
            named_evs.append(ev)
    for ev, fail in res.acc.barriers:
        named += fail.ranks
        named_evs.append(ev)
    named = sorted(set(named))
    if named:
        summary = (
            f"{_ranks_word(named).capitalize()}{_on_hosts(res, named)} did not reach {label}: the other ranks' own "
            f"report names {'it' if len(named) == 1 else 'them'} (TORCH_NCCL_DESYNC_DEBUG / monitoredBarrier)."
        )
        coll = ref.label() if ref else None
        return Verdict("straggler", summary, named, _hosts(res, named), "high", coll, (named_evs + evs)[:12])
    # (c) elimination: ranks that were alive to the end but never timed out
    silent: list[int] = []
    quiet: list[int] = []
    for r, st in res.ranks.items():
        if r in waiting or st.first_own is not None:
            continue
        if st.dump is not None and st.dump[1].own:
            continue
        if ref is not None and st.status is not None and (st.status[1].enqueued or -1) >= ref.seq:
            continue
        alive = st.exit_ev is not None or st.dump is not None or st.status is not None
        if not alive:
            continue
        (quiet if st.first_cascade is not None else silent).append(r)
    candidates = silent or quiet
    if candidates:
        for r in candidates:
            st = res.ranks[r]
            for ev in (st.exit_ev, st.dump[0] if st.dump else None, st.first_cascade[0] if st.first_cascade else None):
                if ev is not None:
                    evs.append(ev)
        summary = (
            f"{_ranks_word(waiting).capitalize()} timed out waiting in {label}; {_ranks_word(candidates)}"
            f"{_on_hosts(res, candidates)} never did and showed no error of "
            f"{'its' if len(candidates) == 1 else 'their'} "
            f"own until the job was torn down: {'it' if len(candidates) == 1 else 'they'} never reached the collective."
        )
        return Verdict(
            "straggler", summary, candidates, _hosts(res, candidates), "medium", label, _pick(evs, candidates, res)
        )
    # (d) every rank that left a log reached it: the missing ones are the suspects
    if ref is not None and res.missing:
        reached = all(
            st.status is not None and (st.status[1].enqueued or -1) >= ref.seq
            for r, st in res.ranks.items()
            if st.has_log
        )
        if reached:
            summary = (
                f"Every rank with a log reached {label} and timed out in it; the logs of {_ranks_word(res.missing)} "
                "are missing, so by elimination the rank that never arrived is among them."
            )
            return Verdict("straggler", summary, list(res.missing), [], "low", label, evs[:12], [ALL_LOGS])
    return None


# ---------------------------------------------------------------------------------------------
# 4. all together


def _undecided(res: Resolved) -> Verdict:
    waiting = sorted(r for r, st in res.ranks.items() if _timed_out(st))
    errors = sorted(r for r, st in res.ranks.items() if st.first_error is not None)
    if not res.ranks:
        summary = (
            "No rank could be told apart: the input names no ranks "
            "(no [rankN]: prefixes, rank files or NCCL init lines)."
        )
    elif not waiting and not errors:
        summary = f"No collective timeout or error was found in the logs of {_ranks_word(list(res.ranks))}."
    else:
        ref = _reference(res)
        summary = (
            f"{_ranks_word(waiting or errors).capitalize()} "
            + (f"timed out in {ref.label()}" if ref else ("timed out" if waiting else "failed"))
            + ", but the logs do not show which rank held the others up"
        )
        if res.missing:
            summary += f"; the logs of {_ranks_word(res.missing)} are missing"
        if ref is None:
            summary += "; no rank printed a collective sequence number"
        summary += "."
    evs: list[Ev] = []
    for r in (waiting or errors)[:6]:
        st = res.ranks[r]
        ev = st.timeouts[0][0] if st.timeouts else (st.first_error[0] if st.first_error else None)
        if ev is not None:
            evs.append(ev)
    return Verdict("undecided", summary, [], [], "low", None, evs)


def _suggestions(res: Resolved, v: Verdict) -> list[str]:
    out = list(v.suggestions)
    any_nccl = any(t.backend == "nccl" for st in res.ranks.values() for _, t, _ in st.timeouts)
    any_gloo = any(t.backend == "gloo" for st in res.ranks.values() for _, t, _ in st.timeouts)
    has_seq = any(st.status is not None for st in res.ranks.values()) or _reference(res) is not None
    has_init = any(st.bus_id is not None for st in res.ranks.values())
    if v.kind == "crash-first" and v.guilty:
        out.insert(0, f"Start with rank {v.guilty[0]}'s own error; the other ranks' timeouts are its cascade.")
    if v.kind in ("undecided", "straggler", "desync"):
        if any_nccl and not has_seq:
            out.append(FLIGHT_RECORDER)
        if v.kind != "desync" and (any_gloo or not any_nccl):
            out.append(DETAIL)
        if v.kind == "undecided" and any_nccl:
            out.append(DESYNC_DEBUG)
        if v.kind == "undecided" and not any_nccl and not any_gloo:
            out.append(FLIGHT_RECORDER)
    if v.kind in ("undecided", "straggler", "network") and not has_init and not any_gloo:
        out.append(NCCL_INFO)
    if res.missing and ALL_LOGS not in out:
        out.append(ALL_LOGS)
    if v.kind == "network":
        out.append(
            "Check the named host's links (`ibstat`, `ibv_devinfo`, the switch port counters) before rerunning; "
            "NCCL_IB_TIMEOUT / NCCL_IB_RETRY_CNT only lengthen the wait on a flapping link."
        )
    seen: list[str] = []
    return [s for s in out if not (s in seen or seen.append(s))]  # type: ignore[func-returns-value]


def _statuses(res: Resolved, v: Verdict) -> dict[int, str]:
    ref = _reference(res)
    out: dict[int, str] = {}
    for r, st in res.ranks.items():
        if r in v.guilty and v.kind == "straggler":
            out[r] = f"never reached {v.collective or 'the collective'}"
        elif st.first_own is not None:
            out[r] = f"error: {st.first_own[1].type}"
        elif _crashed_silently(res, st):
            out[r] = f"crashed ({st.signal})"
        elif st.signal in EXTERNAL and st.exit_pid not in res.acc.sigterm_pids and not _timed_out(st):
            out[r] = f"killed by {st.signal}"
        elif st.timeouts:
            t = st.timeouts[0][1]
            out[r] = f"timed out in {t.op} #{t.seq}" if t.seq is not None else "timed out"
        elif st.first_cascade is not None:
            out[r] = f"{st.first_cascade[1].category} error"
        elif (
            ref is not None
            and st.status is not None
            and st.status[1].enqueued is not None
            and st.status[1].enqueued < ref.seq
        ):
            out[r] = f"behind: last enqueued #{st.status[1].enqueued}"
        elif st.exit_code is not None:
            out[r] = f"exited {st.exit_code}" + (f" ({st.signal})" if st.signal else "")
        elif not st.has_log:
            out[r] = "no log"
        else:
            out[r] = "no error in log"
    return out


def conclude(res: Resolved) -> Verdict:
    v = _desync(res) or _first_cause(res) or _straggler(res) or _undecided(res)
    v.suggestions = _suggestions(res, v)
    v.statuses = _statuses(res, v)
    return v
