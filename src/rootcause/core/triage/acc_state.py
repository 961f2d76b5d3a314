"""What the triage accumulator (``state.Accumulator``) keeps: one rank's state and how two merge,
a timeline group, and one input's state while it is read. Everything kept is bounded."""

from __future__ import annotations

from dataclasses import dataclass, field

from rootcause.core.triage import extract as x
from rootcause.core.triage.events import Ev, Key
from rootcause.core.triage.stacks import Stack

MAX_PER_KIND = 4
MAX_ROOTS = 8


@dataclass
class RankAcc:
    """What one rank (or, while streaming, one provisional key) has shown so far."""

    host: str | None = None
    local_rank: int | None = None
    gpu: int | None = None
    bus_id: str | None = None
    pid: int | None = None
    nranks: int = 0
    has_log: bool = False
    sources: list[int] = field(default_factory=list)
    first_error: tuple[Ev, x.Raised] | None = None
    first_own: tuple[Ev, x.Raised] | None = None
    first_cascade: tuple[Ev, x.Raised] | None = None
    timeouts: list[tuple[Ev, x.Timeout, str | None]] = field(default_factory=list)
    status: tuple[Ev, x.PgStatus] | None = None
    dump: tuple[Ev, x.DumpSignal] | None = None
    exit_code: int | None = None
    signal: str | None = None
    exit_ev: Ev | None = None
    exit_pid: int | None = None
    root_cause_block: bool = False
    warn_count: int = 0
    warns: list[tuple[Ev, x.NcclWarn]] = field(default_factory=list)
    fingerprints: list[tuple[Ev, x.Fingerprint]] = field(default_factory=list)
    desync_at: tuple[Ev, x.DesyncAt] | None = None
    size_mismatch: tuple[Ev, x.SizeMismatch] | None = None
    ips: list[str] = field(default_factory=list)
    last: Ev | None = None
    frames: list[tuple[Ev, x.Frame]] = field(default_factory=list)  # the traceback being read
    not_in_group: tuple[Ev, x.NotInGroup] | None = None
    store_wait: tuple[Ev, x.StoreWait] | None = None
    roots: dict[str, tuple[int, Ev]] = field(default_factory=dict)  # a logged root setting -> (value, line)
    stack: tuple[Ev, Stack, list[Ev]] | None = None  # the first stack that shows the rank in a collective
    seen_last: dict[int, int] = field(default_factory=dict)  # source -> its last line of this rank (second read)
    seen_ev: Ev | None = None  # the last line the second read saw of this rank

    def absorb(self, o: RankAcc) -> None:
        for name in ("host", "local_rank", "gpu", "bus_id", "pid", "exit_code", "signal", "exit_ev", "exit_pid"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(o, name))
        self.nranks = max(self.nranks, o.nranks)
        self.has_log |= o.has_log
        self.root_cause_block |= o.root_cause_block
        self.sources = sorted(set(self.sources) | set(o.sources))[:8]
        for name in (
            "first_error",
            "first_own",
            "first_cascade",
            "desync_at",
            "size_mismatch",
            "stack",
            "not_in_group",
            "store_wait",
        ):
            mine, theirs = getattr(self, name), getattr(o, name)
            if theirs is not None and (mine is None or theirs[0].order() < mine[0].order()):
                setattr(self, name, theirs)
        if o.status is not None and (self.status is None or better_status(o.status, self.status)):
            self.status = o.status
        if o.dump is not None and (self.dump is None or o.dump[0].order() < self.dump[0].order()):
            self.dump = o.dump
        self.timeouts = sorted(self.timeouts + o.timeouts, key=lambda item: item[0].order())[:MAX_PER_KIND]
        self.warns = sorted(self.warns + o.warns, key=lambda item: item[0].order())[:MAX_PER_KIND]
        self.fingerprints = (self.fingerprints + o.fingerprints)[:MAX_PER_KIND]
        self.warn_count += o.warn_count
        self.ips = sorted(set(self.ips) | set(o.ips))[:4]
        for name, seen in o.roots.items():
            if name not in self.roots and len(self.roots) < MAX_ROOTS:
                self.roots[name] = seen
        if o.last is not None and (self.last is None or o.last.order() > self.last.order()):
            self.last = o.last
        if o.seen_ev is not None and (self.seen_ev is None or o.seen_ev.order() > self.seen_ev.order()):
            self.seen_ev = o.seen_ev
        for src, line in o.seen_last.items():
            if src in self.seen_last or len(self.seen_last) < 8:
                self.seen_last[src] = max(line, self.seen_last.get(src, 0))


def better_status(new: tuple[Ev, x.PgStatus], old: tuple[Ev, x.PgStatus]) -> bool:
    """The watchdog's failure report (with a sequence number) beats periodic updates; then the latest."""
    if (new[1].seq is None) != (old[1].seq is None):
        return new[1].seq is not None
    if new[1].seq is not None:
        return new[0].order() < old[0].order()
    return new[0].order() > old[0].order()


@dataclass
class Group:
    """A timeline entry: the same event on many ranks."""

    kind: str
    summary: str
    first: Ev
    keys: set[Key] = field(default_factory=set)
    count: int = 0


@dataclass
class SourceInfo:
    name: str
    rank: int | None
    lines: int = 0
    bytes: int = 0
    carried: tuple[float, str] | None = None
    local_to_global: dict[int, int] = field(default_factory=dict)
    prefix_ranks: set[int] = field(default_factory=set)
    local_ranks: set[int] = field(default_factory=set)
    pending_cpp: dict[Key, str] = field(default_factory=dict)
    block_root: bool = False
    block: dict[str, tuple[str, Ev]] = field(default_factory=dict)
    exits: int = 0  # the most "failed (exitcode: …)" lines of one torchrun agent so far: one per failed attempt
    agent_exits: dict[int, int] = field(default_factory=dict)  # agent pid -> its "failed (exitcode" lines
    path_attempt: int = 0  # torchrun --log-dir's …/attempt_<n>/…
