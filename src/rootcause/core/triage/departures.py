"""Ranks that went away without the error a crash leaves, and ranks the application itself singles out:

- a rank that left early and cleanly (exit 0: uneven inputs) while the others waited in the next collective;
- a rank that stopped itself (a logged line, then `sys.exit(1)`) with no traceback;
- a rank that failed at initialisation (a wrong world size, a store nobody serves) while the others waited;
- a rank PyTorch warned about: a collective called with a group the rank is not in (the call was skipped);
- a rank whose logged root setting (`broadcast_src`, `reduce_dst` …) differs from every other rank's.

Each names a rank only on the evidence given in its docstring; docs/triage.md has the table.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.rules import RULES
from rootcause.core.triage.state import Ev, FailureRecord, RankAcc
from rootcause.core.triage.verdict import Named, Verdict, hosts_of, on_hosts, ranks_word, timed_out

_PEER_ADDR = re.compile(r"by peer \[(?P<ip>[^\]]{1,100})\]:(?P<port>\d{1,5})")


def _victim(st: RankAcc) -> bool:
    """It timed out, or lost a peer, or its DETAIL check failed because a peer had gone: a consequence."""
    return timed_out(st) or (st.first_cascade is not None and st.first_own is None)


def _killed(res: Resolved, st: RankAcc) -> bool:
    """Died of a signal that torchrun did not send it itself."""
    return st.signal is not None and st.exit_pid not in res.acc.sigterm_pids


def _quiet(st: RankAcc) -> bool:
    """A log with no error, timeout or mismatch of its own."""
    return st.has_log and st.first_error is None and not st.timeouts and not st.fingerprints


def _verdict(res: Resolved, kind: str, rule: str, ranks: list[int], summary: str, evs: list[Ev], conf: str) -> Verdict:
    v = Verdict(kind, summary, ranks, hosts_of(res, ranks), conf, None, evs[:12], rule=rule)
    mine = {r: [e for e in evs if res.rank_of(e.key) == r] for r in ranks}
    v.named = [Named(r, "guilty", rule, RULES[rule], (mine[r] or evs)[:4]) for r in ranks]
    return v


def _agents(res: Resolved) -> list[tuple[list[FailureRecord], range]]:
    """torchrun's failure reports, one per agent (console): its records and the global ranks it ran."""
    by_src: dict[int, list[FailureRecord]] = {}
    for rec in res.acc.failures:
        by_src.setdefault(rec.ev.src, []).append(rec)
    out: list[tuple[list[FailureRecord], range]] = []
    for src, recs in by_src.items():
        offsets = {rec.rank - rec.local_rank for rec in recs if rec.local_rank is not None}
        if len(offsets) != 1:
            continue
        offset = offsets.pop()
        locals_seen = {rec.local_rank for rec in recs if rec.local_rank is not None}
        locals_seen |= res.acc.sources[src].local_ranks  # its --tee lines ([defaultN]:)
        size = max(locals_seen) + 1
        if len(by_src) == 1 and offset == 0 and res.world_size is not None and res.world_size <= 1 << 16:
            size = max(size, res.world_size)  # one agent ran every rank that left a log
        out.append((recs, range(offset, offset + size)))
    return out


def left_early(res: Resolved) -> Verdict | None:
    """A rank that torchrun's failure report leaves out (it exited 0 before the agent saw a failure) and whose log
    shows no error, while every rank the report lists with a log is a victim (a timeout, a lost peer)."""
    found: list[int] = []
    evs: list[Ev] = []
    for recs, ranks in _agents(res):
        listed = {rec.rank for rec in recs}
        gone = [r for r in ranks if r not in listed and r in res.ranks and _quiet(res.ranks[r])]
        gone = [r for r in gone if res.ranks[r].exit_code is None]
        logged = [res.ranks[r] for r in listed if r in res.ranks and res.ranks[r].has_log]
        victims = [r for r in listed if r in res.ranks and _victim(res.ranks[r])]
        gone = [r for r in gone if _gone_before(res.ranks[r], [res.ranks[v] for v in victims])]
        if not gone or not victims or any(st.first_own is not None or _killed(res, st) for st in logged):
            continue
        found += gone
        evs += [ev for r in gone if (ev := res.ranks[r].seen_ev) is not None]
        evs += [rec.ev for rec in sorted(recs, key=lambda rec: rec.rank)][:3]
        evs += [st.first_cascade[0] for r in victims[:3] if (st := res.ranks[r]).first_cascade is not None]
    if not found or len(found) * 2 >= len(res.ranks):
        return None
    found.sort()
    summary = (
        f"{ranks_word(found).capitalize()}{on_hosts(res, found)} left early and cleanly: torchrun's failure report "
        f"lists every other rank of {'its' if len(found) == 1 else 'their'} agent but not "
        f"{'it' if len(found) == 1 else 'them'} (exit code 0) and {'its' if len(found) == 1 else 'their'} log "
        "shows no error, while the other ranks waited in the next collective and timed out or lost their peer. "
        "Uneven inputs do this (one rank with fewer batches): give every rank as many steps, or use "
        "`torch.distributed.algorithms.Join`."
    )
    return _verdict(res, "straggler", "left-early", found, summary, evs, "medium")


def _gone_before(st: RankAcc, victims: list[RankAcc]) -> bool:
    """A rank the second read saw (`seen_last`: its last line per input) left before the others failed: in an
    input that holds some victim's failure, its last line precedes the first of them. A rank without it passes."""
    if not st.seen_last:
        return True
    fails = [v.first_cascade[0] for v in victims if v.first_cascade is not None]
    shared = [(ev.line, st.seen_last[ev.src]) for ev in fails if ev.src in st.seen_last]
    return bool(shared) and all(last < line for line, last in shared)


def quiet_departures(res: Resolved) -> list[tuple[int, list[Ev]]]:
    """Candidates only, from the second read: ranks seen in the logs (`seen_last`) with no error, no exit code and no
    place in torchrun's failure report, whose last line precedes the failures of the ranks that timed out or lost
    their peer (in the same input). Earliest last line first. None when they would be half the ranks or more."""
    if not res.acc.failures:
        return []
    listed = {rec.rank for rec in res.acc.failures}
    victims = [st for st in res.ranks.values() if _victim(st)]
    found = [
        r
        for r, st in res.ranks.items()
        if st.seen_last and r not in listed and _quiet(st) and st.exit_code is None and _gone_before(st, victims)
    ]
    if not found or not victims or len(found) * 2 >= len(res.ranks):
        return []
    found.sort(key=lambda r: (min(res.ranks[r].seen_last.values()), r))
    fails = [st.first_cascade[0] for st in victims if st.first_cascade is not None][:2]
    return [(r, ([ev] if (ev := res.ranks[r].seen_ev) is not None else []) + fails) for r in found]


def exit_without_error(res: Resolved) -> Verdict | None:
    """A rank that exited with a non-zero code of its own (not a signal, not torchrun's SIGTERM) and whose log
    holds no error, while the others timed out or lost their peer: it stopped itself (`sys.exit(1)`)."""
    found = [
        r
        for r, st in res.ranks.items()
        if st.exit_code is not None
        and st.exit_code > 0
        and st.signal is None
        and st.exit_pid not in res.acc.sigterm_pids
        and _quiet(st)
    ]
    victims = [r for r, st in res.ranks.items() if r not in found and _victim(st)]
    if not found or not victims or len(found) * 2 >= len(res.ranks):
        return None
    evs = [ev for r in found if (ev := res.ranks[r].exit_ev) is not None]
    evs += [st.first_cascade[0] for r in victims[:3] if (st := res.ranks[r]).first_cascade is not None]
    codes = sorted({res.ranks[r].exit_code for r in found})  # type: ignore[type-var]
    summary = (
        f"{ranks_word(found).capitalize()}{on_hosts(res, found)} stopped "
        f"{'itself' if len(found) == 1 else 'themselves'}: exit code {', '.join(map(str, codes))} "
        "with no traceback or error line (an application check that "
        f"calls sys.exit, such as a NaN-loss guard: read the last lines of {'its' if len(found) == 1 else 'their'} "
        f"log). The timeouts and lost peers of {ranks_word(victims)} followed."
    )
    return _verdict(res, "crash-first", "exit-without-error", found, summary, evs, "medium")


def init_failure(res: Resolved) -> Verdict | None:
    """Initialisation: a rank waiting in the store for the key of a rank beyond the world size has the wrong world
    size itself; otherwise, when several ranks time out waiting for the key of one and the same rank, that rank
    never published it (it failed to join: a wrong store address, a crash before init)."""
    world = _agreed_world(res)
    waits = {r: st.store_wait for r, st in res.ranks.items() if st.store_wait is not None}
    if not waits:
        return None
    beyond = sorted(r for r, (_, w) in waits.items() if world is not None and w.peer is not None and w.peer >= world)
    if world is not None and beyond and len(beyond) * 2 < len(res.ranks):
        evs = [waits[r][0] for r in beyond]
        peers = sorted({waits[r][1].peer for r in beyond})  # type: ignore[type-var]
        summary = (
            f"{ranks_word(beyond).capitalize()}{on_hosts(res, beyond)} waited at initialisation for the store key "
            f"of rank {', '.join(map(str, peers))}, but the job has {world} ranks (0-{world - 1}): "
            f"{'it was' if len(beyond) == 1 else 'they were'} given a wrong world size (or rank), and the others "
            "waited for it."
        )
        return _verdict(res, "crash-first", "init-beyond-world", beyond, summary, evs, "high")
    named = Counter(w.peer for _, w in waits.values() if w.peer is not None)
    if len(named) != 1:
        return None
    peer, count = named.most_common(1)[0]
    if count < 2 or peer in waits or peer is None or (world is not None and peer >= world):
        return None
    evs = [ev for ev, _ in waits.values()][:4]
    st = res.ranks.get(peer)
    if st is not None and st.first_error is not None:
        evs.insert(0, st.first_error[0])
    summary = (
        f"At initialisation {ranks_word(list(waits))} timed out waiting in the store for the key of rank {peer}"
        f"{on_hosts(res, [peer])}, which never published it: rank {peer} failed to join the process group"
        + (f" ({st.first_error[1].type}: {st.first_error[1].message[:160]})" if st and st.first_error else "")
        + "."
    )
    return _verdict(res, "straggler", "store-key-wait", [peer], summary, evs, "medium")


def _agreed_world(res: Resolved) -> int | None:
    """The world size the launcher and the ranks' own prefixes agree on (not a rank's own wrong belief)."""
    agents = _agents(res)
    if agents:
        return max(r.stop for _, r in agents)
    return res.world_size


def not_in_group(res: Resolved) -> Verdict | None:
    """PyTorch's warning `Running OP on global rank N which does not belong to the given group`: the call was a
    no-op on rank N, which then ran one collective fewer than the others. Named when a minority of ranks warned."""
    warned = {r: st.not_in_group for r, st in res.ranks.items() if st.not_in_group is not None}
    if not warned or len(warned) * 2 >= max(len(res.ranks), 2):
        return None
    ranks = sorted(warned)
    failing = any(_victim(st) or st.first_error is not None for st in res.ranks.values())
    if not failing:
        return None
    ops = sorted({w.op for _, w in warned.values()})
    summary = (
        f"{ranks_word(ranks).capitalize()}{on_hosts(res, ranks)} called {', '.join(ops)} with a process group "
        f"{'it does' if len(ranks) == 1 else 'they do'} not belong to: PyTorch warned and skipped the call, so "
        f"{'it' if len(ranks) == 1 else 'they'} ran one collective fewer than the others, which then waited or "
        "mismatched. Pass the group the rank is in (or the default group)."
    )
    evs = [ev for ev, _ in warned.values()]
    return _verdict(res, "desync", "not-in-group", ranks, summary, evs, "high")


def root_config(res: Resolved) -> tuple[list[int], str, list[Ev]] | None:
    """A logged root setting (`broadcast_src=1` …) on which one value is held by most ranks (at least 3, more than
    twice the others) and another by a few: those few called the rooted collective with another root."""
    for name in sorted({n for st in res.ranks.values() for n in st.roots}):
        values = {r: st.roots[name] for r, st in res.ranks.items() if name in st.roots}
        counts = Counter(v for v, _ in values.values())
        if len(values) < 3 or len(counts) != 2:
            continue
        (major, n_major), (_, n_minor) = counts.most_common(2)
        if n_major < 2 * n_minor:
            continue
        odd = sorted(r for r, (v, _) in values.items() if v != major)
        rest = [r for r in values if r not in odd]
        text = (
            f"{ranks_word(odd).capitalize()}{on_hosts(res, odd)} logged {name}="
            f"{', '.join(sorted({str(values[r][0]) for r in odd}))} where {ranks_word(rest)} logged "
            f"{name}={major}: a rooted collective (broadcast, reduce, gather, scatter) called with a "
            "different root on these ranks does not match the others'."
        )
        evs = [values[r][1] for r in odd] + [values[r][1] for r in sorted(values) if r not in odd][:2]
        return odd, text, evs
    return None


def config_verdict(res: Resolved) -> Verdict | None:
    """`root_config` as a verdict when the job failed (some rank timed out or errored), else None."""
    found = root_config(res)
    if found is None or not any(_victim(st) or st.first_error is not None for st in res.ranks.values()):
        return None
    odd, text, evs = found
    return _verdict(res, "desync", "root-config-minority", odd, text, evs, "medium")


def ring_neighbour(res: Resolved) -> tuple[int, list[Ev]] | None:
    """Candidate only: two or more ranks lost their connection to one and the same peer address (ip:port, one
    process), and in Gloo's ring (a rank talks to rank - 1 and rank + 1) exactly one other rank neighbours all of
    them. Needs a world size that no absent rank can shrink: an explicit one (NCCL's nranks, the PG banner), or the
    agents' rank offsets (node k starts at k × nproc) when two or more agents reported."""
    world = _ring_world(res)
    if world is None or world < 3:
        return None
    lost: dict[str, list[tuple[int, Ev]]] = {}
    for r, st in res.ranks.items():
        if st.first_cascade is None or st.first_cascade[1].category != "peer" or st.timeouts:
            continue
        m = _PEER_ADDR.search(st.first_cascade[1].message)
        if m is not None:
            lost.setdefault(m.group(0), []).append((r, st.first_cascade[0]))
    found: set[int] = set()
    evs: list[Ev] = []
    for items in lost.values():
        ranks = {r for r, _ in items}
        if len(ranks) < 2:
            continue
        common = set.intersection(*[{(r - 1) % world, (r + 1) % world} for r in ranks]) - ranks
        if len(common) == 1:
            found |= common
            evs += [ev for _, ev in items]
    return (found.pop(), evs) if len(found) == 1 else None


def _ring_world(res: Resolved) -> int | None:
    if res.acc.world_sizes:
        return max(res.acc.world_sizes)
    agents = _agents(res)
    if len(agents) == 1 and agents[0][1].start == 0:  # one agent: every rank of it seen by the second read
        span = agents[0][1]
        if all(r in res.ranks and res.ranks[r].seen_last for r in span):
            return span.stop
    offsets = sorted({r.start for _, r in agents})
    if len(offsets) < 2 or offsets[0] != 0:
        return None
    step = offsets[1] - offsets[0]
    if step <= 0 or any(b - a != step for a, b in pairwise(offsets)):
        return None
    return offsets[-1] + step
