"""What every part of the conclusion shares: the verdict, the collective the ranks timed out in, and
how events are ordered in time (a line's own timestamp, or only a lower bound)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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


@dataclass
class Named:
    """A rank a rule named: guilty (the verdict's own) or a candidate (undecided, most likely first)."""

    rank: int
    role: str
    rule: str
    reason: str
    evidence: list[Ev] = field(default_factory=list)


@dataclass
class Verdict:
    """``guilty``: who caused it. ``detected``: where it surfaced (filled in by `conclude`). ``rule``:
    the rule (see `rules.RULES`) that named the guilty ranks when ``named`` does not say it per rank.
    ``candidates``: when undecided, the suspects, most likely first."""

    kind: str
    summary: str
    guilty: list[int] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    confidence: str = "low"
    collective: str | None = None
    evidence: list[Ev] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    statuses: dict[int, str] = field(default_factory=dict)
    rule: str | None = None
    named: list[Named] = field(default_factory=list)
    detected: list[int] = field(default_factory=list)


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


def ranks_word(ranks: list[int] | set[int]) -> str:
    return f"rank {ranks_list[0]}" if len(ranks_list := sorted(set(ranks))) == 1 else f"ranks {ranges(ranks_list)}"


def hosts_of(res: Resolved, ranks: list[int]) -> list[str]:
    hosts: list[str] = []
    for r in ranks:
        host = res.ranks[r].host if r in res.ranks else None
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def on_hosts(res: Resolved, ranks: list[int]) -> str:
    hosts = hosts_of(res, ranks)
    return f" (on {', '.join(hosts[:8])}{' …' if len(hosts) > 8 else ''})" if hosts else ""


def when_text(ev: Ev) -> str:
    if ev.shown is None:
        return ""
    return f" at {ev.shown}" if ev.t is not None else f" (after {ev.shown.lstrip('≥ ')})"


def short(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class Ref:
    """The collective the other ranks timed out in."""

    pg: str | None
    seq: int
    op: str | None
    ranks: list[int]
    evs: list[Ev]

    def label(self) -> str:
        pg = f", PG {self.pg}" if self.pg not in (None, "0") else ""
        return f"{self.op or 'collective'} #{self.seq}{pg}"


def nccl_timeouts(res: Resolved) -> dict[tuple[str, int], dict[int, tuple[Ev, x.Timeout]]]:
    by_coll: dict[tuple[str, int], dict[int, tuple[Ev, x.Timeout]]] = {}
    for r, st in res.ranks.items():
        for ev, t, pg in st.timeouts:
            if t.backend == "nccl" and t.seq is not None:
                by_coll.setdefault((pg or "0", t.seq), {}).setdefault(r, (ev, t))
    return by_coll


def reference(res: Resolved) -> Ref | None:
    by_coll = nccl_timeouts(res)
    if not by_coll:
        return None
    (pg, seq), members = max(by_coll.items(), key=lambda kv: (len(kv[1]), kv[0][0] == "0", -kv[0][1]))
    ops = Counter(t.op for _, t in members.values())
    evs = sorted((ev for ev, _ in members.values()), key=Ev.order)
    return Ref(pg, seq, ops.most_common(1)[0][0], sorted(members), evs)


def timed_out(st: RankAcc) -> bool:
    return bool(st.timeouts) or (st.first_cascade is not None and st.first_cascade[1].category == "timeout")


def cascade_start(res: Resolved) -> float | None:
    times: list[float] = []
    for st in res.ranks.values():
        for ev, _, _ in st.timeouts:
            if ev.t is not None:
                times.append(ev.t)
        if st.first_cascade is not None and st.first_cascade[0].t is not None:
            times.append(st.first_cascade[0].t)
    return min(times) if times else None


def earlier(a: Ev, b: Ev) -> bool | None:
    """Whether a happened before b, when the logs can tell."""
    if a.t is not None and b.t is not None:
        if abs(a.t - b.t) <= SLACK_S and a.src != b.src:
            return None
        return a.order() < b.order()
    if a.src == b.src:
        return a.line < b.line
    return None


def surely_before(a: Ev | None, b: Ev | None) -> bool:
    """a has its own timestamp, and it is earlier than anything b could be (b's lower bound)."""
    return a is not None and b is not None and a.t is not None and b.lo is not None and a.t + SLACK_S < b.lo


def pick_evidence(evs: list[Ev], guilty: list[int], res: Resolved, limit: int = 12) -> list[Ev]:
    """Evidence of the guilty ranks first, then a few of the others."""
    mine = [e for e in evs if res.rank_of(e.key) in guilty]
    rest = [e for e in evs if res.rank_of(e.key) not in guilty]
    return (mine[: limit // 2] + rest)[:limit] if mine else evs[:limit]
