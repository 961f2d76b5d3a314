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

from rootcause.core.triage.causes import crashed_silently, first_cause
from rootcause.core.triage.departures import (
    config_verdict,
    exit_without_error,
    init_failure,
    left_early,
    not_in_group,
    quiet_departures,
    ring_neighbour,
    root_config,
)
from rootcause.core.triage.desync import desync
from rootcause.core.triage.flight_verdict import flight_straggler, missing_dump_candidates
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.rules import RULES
from rootcause.core.triage.state import Ev, RankAcc
from rootcause.core.triage.verdict import (
    EXTERNAL,
    Named,
    Verdict,
    earlier,
    hosts_of,
    on_hosts,
    pick_evidence,
    ranges,
    ranks_word,
    reference,
    timed_out,
)

__all__ = ["Verdict", "conclude", "ranges"]
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


def _lost_peer_first(res: Resolved, st: RankAcc, waiting: list[int]) -> bool:
    """Its error is a lost peer that came before another rank's timeout (in the same log): a peer had already gone,
    so this rank is a victim, not a straggler that woke up after the others had died."""
    if st.first_cascade is None or st.first_cascade[1].category != "peer":
        return False
    lost = st.first_cascade[0]
    for r in waiting:
        w = res.ranks[r]
        first = w.timeouts[0][0] if w.timeouts else w.first_cascade[0] if w.first_cascade else None
        if first is not None and earlier(lost, first):
            return True
    return False


def _straggler(res: Resolved) -> Verdict | None:
    waiting = sorted(r for r, st in res.ranks.items() if timed_out(st))
    if not waiting:
        return None
    ref = reference(res)
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
                f"{ranks_word(behind).capitalize()}{on_hosts(res, behind)} never reached {label}, which "
                f"{ranks_word(ref.ranks)} timed out in: {detail}{' …' if len(behind) > 6 else ''}."
            )
            return Verdict(
                "straggler",
                summary,
                behind,
                hosts_of(res, behind),
                "high",
                label,
                pick_evidence(evs, behind, res),
                rule="behind-last-enqueued",
            )
    # (b) the desync report and monitoredBarrier name the ranks
    named: list[int] = []
    named_evs: list[Ev] = []
    by_rule: dict[int, tuple[str, Ev]] = {}
    for ev, lag in res.acc.lagging:
        if lag.how in ("never-joined", "finished-not-joined", "joined-not-finished"):
            named += lag.ranks
            named_evs.append(ev)
            for r in lag.ranks:
                by_rule.setdefault(r, ("desync-report-lagging", ev))
    for ev, fail in res.acc.barriers:
        named += fail.ranks
        named_evs.append(ev)
        for r in fail.ranks:
            by_rule.setdefault(r, ("monitored-barrier", ev))
    # NCCL RAS: a communicator's ranks launched different numbers of operations; the ones behind the most
    ras = res.acc.ras
    if ras:
        top = max(c.ops for _, c in ras)
        for ev, c in ras:
            if c.rank is not None and c.ops < top:
                named.append(c.rank)
                named_evs.append(ev)
                by_rule.setdefault(c.rank, ("nccl-ras-behind", ev))
    named = sorted(set(named))
    if named:
        summary = (
            f"{ranks_word(named).capitalize()}{on_hosts(res, named)} did not reach {label}: the other ranks' own "
            f"report names {'it' if len(named) == 1 else 'them'} (TORCH_NCCL_DESYNC_DEBUG / monitoredBarrier / "
            "NCCL RAS)."
        )
        coll = ref.label() if ref else None
        v = Verdict("straggler", summary, named, hosts_of(res, named), "high", coll, (named_evs + evs)[:12])
        v.named = [Named(r, "guilty", by_rule[r][0], RULES[by_rule[r][0]], [by_rule[r][1]]) for r in named]
        return v
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
        if not alive or _lost_peer_first(res, st, waiting):
            continue
        (quiet if st.first_cascade is not None else silent).append(r)
    candidates = silent or quiet
    if candidates:
        for r in candidates:
            st = res.ranks[r]
            dumped = st.dump[0] if st.dump else None
            for seen in (st.exit_ev, dumped, st.first_cascade[0] if st.first_cascade else None):
                if seen is not None:
                    evs.append(seen)
        summary = (
            f"{ranks_word(waiting).capitalize()} timed out waiting in {label}; {ranks_word(candidates)}"
            f"{on_hosts(res, candidates)} never did and showed no error of "
            f"{'its' if len(candidates) == 1 else 'their'} "
            f"own until the job was torn down: {'it' if len(candidates) == 1 else 'they'} never reached the collective."
        )
        return Verdict(
            "straggler",
            summary,
            candidates,
            hosts_of(res, candidates),
            "medium",
            ref.label() if ref else None,
            pick_evidence(evs, candidates, res),
            rule="no-timeout-alive",
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
                f"Every rank with a log reached {label} and timed out in it; the logs of {ranks_word(res.missing)} "
                "are missing, so by elimination the rank that never arrived is among them."
            )
            return Verdict(
                "straggler", summary, list(res.missing), [], "low", label, evs[:12], [ALL_LOGS], rule="missing-log"
            )
    return None


def _undecided(res: Resolved) -> Verdict:
    waiting = sorted(r for r, st in res.ranks.items() if timed_out(st))
    errors = sorted(r for r, st in res.ranks.items() if st.first_error is not None)
    if not res.ranks:
        summary = (
            "No rank could be told apart: the input names no ranks "
            "(no [rankN]: prefixes, rank files or NCCL init lines)."
        )
    elif not waiting and not errors:
        summary = f"No collective timeout or error was found in the logs of {ranks_word(list(res.ranks))}."
    else:
        ref = reference(res)
        summary = (
            f"{ranks_word(waiting or errors).capitalize()} "
            + (f"timed out in {ref.label()}" if ref else ("timed out" if waiting else "failed"))
            + ", but the logs do not show which rank held the others up"
        )
        if res.missing:
            summary += f"; the logs of {ranks_word(res.missing)} are missing"
        if ref is None:
            summary += "; no rank printed a collective sequence number"
        summary += "."
    evs: list[Ev] = []
    for r in (waiting or errors)[:6]:
        st = res.ranks[r]
        first_ev = st.timeouts[0][0] if st.timeouts else (st.first_error[0] if st.first_error else None)
        if first_ev is not None:
            evs.append(first_ev)
    v = Verdict("undecided", summary, [], [], "low", None, evs)
    v.named = missing_dump_candidates(res)
    if v.named:
        who = ranks_word([n.rank for n in v.named]).capitalize()
        v.summary += f" {who} left no Flight Recorder dump: they may have died first."
    config = root_config(res)
    if config is not None:
        odd, text, cevs = config
        v.summary += f" {text}"
        v.evidence = cevs + v.evidence
        v.named = [Named(r, "candidate", "root-config-minority", RULES["root-config-minority"], cevs[:2]) for r in odd]
    ring = ring_neighbour(res) if not v.named else None
    if ring is not None:
        r, revs = ring
        v.summary += (
            f" Ranks that lost their connection to one and the same peer all neighbour rank {r} in Gloo's ring: it may "
            "have left first."
        )
        v.evidence = revs + v.evidence
        v.named = [Named(r, "candidate", "gloo-ring-neighbour", RULES["gloo-ring-neighbour"], revs[:3])]
    quiet = quiet_departures(res)
    if quiet and not v.named:
        left = [r for r, _ in quiet]
        v.summary += (
            f" {ranks_word(left).capitalize()} printed no error, no exit and no place in torchrun's failure report, "
            f"and {'its' if len(left) == 1 else 'their'} last line came before the others' failures: "
            f"{'it' if len(left) == 1 else 'they'} may have left early."
        )
        v.named = [Named(r, "candidate", "quiet-departure", RULES["quiet-departure"], qevs[:3]) for r, qevs in quiet]
        v.evidence = [ev for _, qevs in quiet for ev in qevs[:1]] + v.evidence
    return v


def _detected(res: Resolved) -> list[int]:
    """Where the failure surfaced: ranks that printed an error, a timeout or a mismatch."""
    return sorted(
        r
        for r, st in res.ranks.items()
        if st.first_error is not None or st.timeouts or st.size_mismatch is not None or st.fingerprints
    )


def _name_ranks(res: Resolved, v: Verdict) -> None:
    """Every guilty rank carries the rule that named it and its own evidence lines."""
    have = {n.rank for n in v.named}
    for r in v.guilty:
        if r in have:
            continue
        rule = v.rule or "waiting-rank"
        mine = [e for e in v.evidence if res.rank_of(e.key) == r]
        v.named.append(Named(r, "guilty", rule, RULES[rule], (mine or v.evidence)[:4]))
    order = {r: i for i, r in enumerate(v.guilty)}
    v.named.sort(key=lambda n: (n.role != "guilty", order.get(n.rank, len(order))))


def _suggestions(res: Resolved, v: Verdict) -> list[str]:
    out = list(v.suggestions)
    any_nccl = any(t.backend == "nccl" for st in res.ranks.values() for _, t, _ in st.timeouts)
    any_gloo = any(t.backend == "gloo" for st in res.ranks.values() for _, t, _ in st.timeouts)
    has_seq = any(st.status is not None for st in res.ranks.values()) or reference(res) is not None
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
    ref = reference(res)
    out: dict[int, str] = {}
    for r, st in res.ranks.items():
        if r in v.guilty and v.kind == "straggler":
            out[r] = f"never reached {v.collective or 'the collective'}"
        elif st.first_own is not None:
            out[r] = f"error: {st.first_own[1].type}"
        elif crashed_silently(res, st):
            out[r] = f"crashed ({st.signal})"
        elif st.signal in EXTERNAL and st.exit_pid not in res.acc.sigterm_pids and not timed_out(st):
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


def _first(res: Resolved) -> Verdict:
    """The questions, in order; see the module docstring. A desync found only from where the stacks stopped gives
    way to a logged root setting or a not-in-group warning; an undecided desync, to any rule that decides."""
    d = desync(res)
    if d is not None and d.kind != "undecided" and not (d.named and d.named[0].rule == "stack-minority"):
        return d
    if d is not None and d.kind != "undecided":
        return config_verdict(res) or not_in_group(res) or d
    v = config_verdict(res) or not_in_group(res) or init_failure(res) or first_cause(res)
    v = v or exit_without_error(res) or left_early(res) or flight_straggler(res) or _straggler(res)
    return v or d or _undecided(res)


def conclude(res: Resolved) -> Verdict:
    v = _first(res)
    _name_ranks(res, v)
    v.detected = _detected(res)
    v.suggestions = _suggestions(res, v)
    v.statuses = _statuses(res, v)
    return v
