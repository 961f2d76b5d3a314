"""Streaming accumulation: candidate lines in, per-rank state and bounded evidence out.

A line is attributed to a provisional key while streaming, because the rank it belongs to may
only become known later (a ``[default3]:`` prefix whose global rank appears further on, an NCCL
``host:pid`` whose ``Init COMPLETE`` line comes later, a file whose lines name its rank). `resolve`
turns the keys into global ranks at the end and merges what they gathered.

Everything kept is bounded: a few events per rank and kind, a capped set of timeline groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rootcause.core.normalize import parameterise, strip_framing
from rootcause.core.triage import extract as x
from rootcause.core.triage.clock import last_time, line_time
from rootcause.core.triage.events import Ev, Key
from rootcause.core.triage.stacks import MAX_FRAMES, Stack, is_c10d, stack_of
from rootcause.core.triage.torchrun_report import SIGNALS, FailureRecord, exit_summary, failure_record

MAX_TEXT = 500
MAX_PER_KIND = 4
MAX_GROUPS = 300
MAX_GROUP_KEYS = 8192
MAX_GLOBAL = 64
MAX_ROOTS = 8
# torchrun's log prefix, "E1205 13:15:43.400000 22922 …": the agent's pid
_GLOG_PID = re.compile(r"(?:^|\s)[EWIF]\d{4} [\d:.]{6,20} (\d{1,9}) ")
_ATTEMPT = re.compile(r"(?:^|[/\\])attempt_(\d{1,4})[/\\]")


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
        if o.status is not None and (self.status is None or _better_status(o.status, self.status)):
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


def _better_status(new: tuple[Ev, x.PgStatus], old: tuple[Ev, x.PgStatus]) -> bool:
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


class Accumulator:
    """Every input's candidate lines, folded into bounded state."""

    def __init__(self) -> None:
        self.sources: list[SourceInfo] = []
        self.keys: dict[Key, RankAcc] = {}
        self.hints: dict[Key, tuple[int, int]] = {}  # provisional key -> (nranks, rank) from NCCL Init COMPLETE
        self.ip_host: dict[str, str] = {}
        self.world_sizes: list[int] = []
        self.sigterm_pids: set[int] = set()
        self.death_signals: list[Ev] = []
        self.failures: list[FailureRecord] = []
        self.lagging: list[tuple[Ev, x.Lagging]] = []
        self.barriers: list[tuple[Ev, x.BarrierFail]] = []
        self.ras: list[tuple[Ev, x.RasCount]] = []
        self.groups: dict[str, Group] = {}
        self.dropped_groups = 0
        self._line_timeout = False
        self._attempt = 0  # the attempt of the line being read (torchrun --max-restarts)
        self.console_restarts = False  # a console showed a second failed attempt
        self.path_attempts: set[int] = set()

    @property
    def restarted(self) -> bool:
        """Whether the inputs hold several attempts of the job: only the first one's lines then count."""
        return self.console_restarts or (0 in self.path_attempts and max(self.path_attempts) > 0)

    # -- sources ----------------------------------------------------------------------------
    def open_source(self, name: str, rank: int | None) -> int:
        m = _ATTEMPT.search(name)
        attempt = int(m.group(1)) if m else 0
        self.sources.append(SourceInfo(name, rank, path_attempt=attempt))
        if m:
            self.path_attempts.add(attempt)
        idx = len(self.sources) - 1
        if rank is not None:
            acc = self._acc(("s", idx) if attempt == 0 else ("a", attempt, ("s", idx)))
            acc.has_log = True
        return idx

    def close_source(self, idx: int, lines: int, size: int) -> None:
        info = self.sources[idx]
        info.lines, info.bytes = lines, size
        self._flush_block(idx)

    # -- one line ---------------------------------------------------------------------------
    def line(self, src: int, line_no: int, raw: str, context: bytes = b"") -> None:
        info = self.sources[src]
        clean = strip_framing(raw)
        facts = x.extract(clean.text)
        stamp = line_time(raw) if facts.facts else None
        exact = stamp is not None
        if stamp is None and facts.facts:
            before = last_time(context.decode("utf-8", "replace")) if context else None
            if before is not None and (info.carried is None or before[0] > info.carried[0]):
                info.carried = before
            stamp = (info.carried[0], f"≥ {info.carried[1]}") if info.carried else None
        elif stamp is not None:
            info.carried = stamp
        if clean.local_rank is not None:
            info.local_ranks.add(clean.local_rank)
        if clean.rank is not None:
            info.prefix_ranks.add(clean.rank)
            if clean.local_rank is not None:
                info.local_to_global[clean.local_rank] = clean.rank
        key = self._key(src, clean.rank, clean.local_rank, facts)
        self._attempt = self._attempt_of(info, facts, raw)
        if self._attempt:
            key = ("a", self._attempt, key)
        acc = self._acc(key)
        acc.has_log = True
        if src not in acc.sources and len(acc.sources) < 8:
            acc.sources.append(src)
        if facts.nccl_host is not None:
            acc.host = acc.host or facts.nccl_host
            acc.pid = acc.pid or facts.nccl_pid
            if acc.gpu is None:
                acc.gpu = facts.nccl_dev
        if not facts.facts:
            return
        lo = stamp[0] if stamp else None
        ev = Ev(src, line_no, raw[:MAX_TEXT], lo if exact else None, lo, stamp[1] if stamp else None, "", key)
        acc.last = ev
        self._line_timeout = any(isinstance(f, x.Timeout) for f in facts.facts)
        for fact in facts.facts:
            self._fact(src, key, acc, ev, fact, facts)

    def _attempt_of(self, info: SourceInfo, facts: x.LineFacts, text: str) -> int:
        """Which attempt a line belongs to: each torchrun agent logs one "failed (exitcode: …)" line per failed
        attempt, and its failure report after the last one (it describes the last attempt). Agents are told apart
        by the pid of their glog prefix, so the consoles of several agents in one file are no restart."""
        block = any(isinstance(f, x.BlockHeading | x.BlockField) for f in facts.facts)
        attempt = max(info.exits - 1, 0) if block else info.exits
        if any(isinstance(f, x.AgentExit) for f in facts.facts):
            m = _GLOG_PID.search(text)
            agent = int(m.group(1)) if m else -1
            info.agent_exits[agent] = info.agent_exits.get(agent, 0) + 1
            info.exits = max(info.agent_exits.values())
            self.console_restarts |= info.exits > 1
        return max(attempt, info.path_attempt)

    def _key(self, src: int, rank: int | None, local: int | None, facts: x.LineFacts) -> Key:
        if rank is not None:
            return ("g", rank)
        if local is not None:
            return ("l", src, local)
        if facts.nccl_host is not None and facts.nccl_pid is not None:
            return ("p", facts.nccl_host, facts.nccl_pid, src)
        if facts.pg_rank is not None and facts.pg in (None, "0"):
            return ("q", src, facts.pg_rank)
        return ("s", src)

    def _acc(self, key: Key) -> RankAcc:
        acc = self.keys.get(key)
        if acc is None:
            acc = self.keys[key] = RankAcc()
        return acc

    def _fact(self, src: int, key: Key, acc: RankAcc, ev: Ev, fact: x.Fact, lf: x.LineFacts) -> None:
        e = _with_kind(ev, type(fact).__name__.lower())
        if isinstance(fact, x.TraceStart):
            acc.frames = []
        elif isinstance(fact, x.Frame):
            if fact.innermost_first:  # a py-spy frame line: only the collective's frame reaches us
                acc.frames = []
            if len(acc.frames) < MAX_FRAMES:
                acc.frames.append((_with_kind(ev, "stack"), fact))
            if acc.stack is None and is_c10d(fact):
                found = stack_of([f for _, f in acc.frames])
                if found is not None:
                    evs = [fe for fe, f in acc.frames if f.line == found.user_line and f.file == found.user_file][-1:]
                    evs.append(acc.frames[-1][0])
                    acc.stack = (evs[0], found, evs)
        elif isinstance(fact, x.Timeout):
            seen = any(t.seq == fact.seq and t.op == fact.op and t.backend == fact.backend for _, t, _ in acc.timeouts)
            if not seen and len(acc.timeouts) < MAX_PER_KIND:
                acc.timeouts.append((e, fact, None))
            as_error = x.Raised("collective timeout", _timeout_summary(fact), "timeout")
            if acc.first_error is None or e.order() < acc.first_error[0].order():
                acc.first_error = (e, as_error)
            if acc.first_cascade is None or e.order() < acc.first_cascade[0].order():
                acc.first_cascade = (e, as_error)
            self._group("timeout", _timeout_summary(fact), e, key)
        elif isinstance(fact, x.PgStatus):
            pg = lf.pg or "0"
            if fact.seq is not None:  # the status line names the process group of the timeout just reported
                acc.timeouts = [
                    (te, t, pg if t.seq == fact.seq and tpg is None else tpg) for te, t, tpg in acc.timeouts
                ]
            if pg == "0":
                fact.pg = pg
                if acc.status is None or _better_status((e, fact), acc.status):
                    acc.status = (e, fact)
        elif isinstance(fact, x.DumpSignal):
            if acc.dump is None:
                acc.dump = (e, fact)
            who = "its own watchdog" if fact.own else f"rank {fact.from_rank}"
            self._group("dump-signal", f"flight-recorder dump signalled by {who}", e, key)
        elif isinstance(fact, x.NcclInit):
            if fact.nranks >= acc.nranks:
                acc.nranks = fact.nranks
                acc.gpu, acc.bus_id = fact.cuda_dev, fact.bus_id
            hint_key = key[:3] if key[0] == "p" else key
            best = self.hints.get(hint_key)
            if best is None or fact.nranks > best[0]:
                self.hints[hint_key] = (fact.nranks, fact.rank)
            self.world_sizes.append(fact.nranks)
        elif isinstance(fact, x.NcclLocal):
            acc.local_rank = fact.local_rank if acc.local_rank is None else acc.local_rank
        elif isinstance(fact, x.NcclAddr):
            if lf.nccl_host is not None:
                self.ip_host.setdefault(fact.ip, lf.nccl_host)
            if fact.ip not in acc.ips and len(acc.ips) < 4:
                acc.ips.append(fact.ip)
        elif isinstance(fact, x.NcclWarn):
            acc.warn_count += 1
            if len(acc.warns) < MAX_PER_KIND:
                acc.warns.append((e, fact))
            if fact.category == "cuda":
                self._raised(src, key, acc, e, x.Raised("NCCL WARN", fact.message, "own"))
            else:
                self._group("nccl-warn", f"NCCL WARN ({fact.category}): {_short(fact.message)}", e, key)
        elif isinstance(fact, x.Raised):
            self._raised(src, key, acc, e, fact)
        elif isinstance(fact, x.Fingerprint):
            if len(acc.fingerprints) < MAX_PER_KIND:
                acc.fingerprints.append((e, fact))
            mine, theirs = f"{fact.op}[{fact.shape or ''}]", f"{fact.other_op}[{fact.other_shape or ''}]"
            summary = f"collective mismatch at SeqNum {fact.seq}: {mine} vs {theirs}"
            self._group("desync", summary, e, key)
        elif isinstance(fact, x.SizeMismatch):
            acc.size_mismatch = acc.size_mismatch or (e, fact)
        elif isinstance(fact, x.DesyncAt):
            acc.desync_at = acc.desync_at or (e, fact)
        elif isinstance(fact, x.RasCount):
            if len(self.ras) < MAX_GLOBAL:
                self.ras.append((e, fact))
            if fact.rank is not None:
                self._group("ras", f"NCCL RAS: rank {fact.rank} has launched up to operation {fact.ops}", e, key)
        elif isinstance(fact, x.Lagging | x.BarrierFail):
            target = self.lagging if isinstance(fact, x.Lagging) else self.barriers
            if len(target) < MAX_GLOBAL:
                target.append((e, fact))  # type: ignore[arg-type]
            label = fact.how if isinstance(fact, x.Lagging) else "failed to pass monitoredBarrier"
            self._group("lagging", f"ranks {fact.ranks} {label}", e, key)
        elif isinstance(fact, x.WorldSize):
            self.world_sizes.append(fact.size)
        elif isinstance(fact, x.AgentExit):
            lkey: Key = ("x", src, fact.local_rank, fact.pid)
            if self._attempt:
                lkey = ("a", self._attempt, lkey)
            target_acc = self._acc(lkey)
            target_acc.exit_code = fact.exit_code
            target_acc.exit_pid = fact.pid
            target_acc.signal = SIGNALS.get(-fact.exit_code) if fact.exit_code < 0 else None
            target_acc.exit_ev = e
            self._group("exit", exit_summary(fact.exit_code, target_acc.signal), e, lkey)
        elif isinstance(fact, x.AgentSignal):
            if fact.death:
                if len(self.death_signals) < MAX_GLOBAL:
                    self.death_signals.append(e)
                self._group("launcher", f"the launcher received {fact.signal} and shut the workers down", e, key)
            else:
                if fact.pid is not None:
                    self.sigterm_pids.add(fact.pid)
                self._group("launcher", f"torchrun sent {fact.signal} to the remaining workers", e, key)
        elif isinstance(fact, x.NotInGroup):
            acc.not_in_group = acc.not_in_group or (e, fact)
            self._group("warning", f"{fact.op} skipped on rank {fact.rank}: not in the given group", e, key)
        elif isinstance(fact, x.StoreWait):
            acc.store_wait = acc.store_wait or (e, fact)
        elif isinstance(fact, x.RootConfig):
            if fact.name not in acc.roots and len(acc.roots) < MAX_ROOTS:
                acc.roots[fact.name] = (fact.value, e)
        elif isinstance(fact, x.BlockHeading):
            self._flush_block(src)
            self.sources[src].block_root = fact.root
        elif isinstance(fact, x.BlockField):
            self._block_field(src, fact, e)

    def _raised(self, src: int, key: Key, acc: RankAcc, e: Ev, fact: x.Raised) -> None:
        info = self.sources[src]
        if fact.category == "pending":
            info.pending_cpp[key] = fact.type
            return
        if fact.type == "C++ exception" and key in info.pending_cpp:
            fact.type = info.pending_cpp.pop(key)
        if fact.category == "wrapper":
            return
        if acc.first_error is None:
            acc.first_error = (e, fact)
        if fact.category == "own":
            if acc.first_own is None:
                acc.first_own = (e, fact)
        elif fact.category != "signal" and acc.first_cascade is None:
            acc.first_cascade = (e, fact)
        if fact.category == "timeout" and self._line_timeout:
            return  # the timeout on this line is already on the timeline
        kind = "error" if fact.category == "own" else fact.category
        self._group(
            kind, f"{fact.type}: {_short(fact.message)}", e, key, sig=f"{fact.type} {parameterise(fact.message)[:120]}"
        )

    # -- torchrun's failure block ----------------------------------------------------------
    def _block_field(self, src: int, fact: x.BlockField, e: Ev) -> None:
        info = self.sources[src]
        if fact.name == "time":
            self._flush_block(src)
        info.block[fact.name] = (fact.value, e)
        if fact.name == "traceback":
            self._flush_block(src)

    def _flush_block(self, src: int) -> None:
        info = self.sources[src]
        block, info.block = info.block, {}
        rec = failure_record(block, info.block_root, self._attempt)
        if rec is None:
            return
        if len(self.failures) < 4 * MAX_GROUP_KEYS:
            self.failures.append(rec)
        self._group("exit", exit_summary(rec.exit_code, rec.signal), _with_kind(rec.ev, "exit"), ("g", rec.rank))

    # -- timeline ---------------------------------------------------------------------------
    def _group(self, kind: str, summary: str, ev: Ev, key: Key, sig: str | None = None) -> None:
        sig = f"{kind}|{sig or summary}"
        group = self.groups.get(sig)
        if group is None:
            if len(self.groups) >= MAX_GROUPS:
                self.dropped_groups += 1
                return
            group = self.groups[sig] = Group(kind, summary, _with_kind(ev, kind))
        elif ev.order() < group.first.order():
            group.first = _with_kind(ev, kind)
        group.count += 1
        if len(group.keys) < MAX_GROUP_KEYS:
            group.keys.add(key)


def _with_kind(ev: Ev, kind: str) -> Ev:
    return Ev(ev.src, ev.line, ev.text, ev.t, ev.lo, ev.shown, kind, ev.key)


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _timeout_summary(t: x.Timeout) -> str:
    if t.backend == "gloo":
        return f"Gloo collective timed out after {t.timeout_ms} ms"
    what = f"{t.op} #{t.seq}" if t.seq is not None else f"{t.op}"
    numel = f"NumelIn {t.numel_in}, NumelOut {t.numel_out}; " if t.numel_in is not None else ""
    return f"{what} timed out ({numel}timeout {t.timeout_ms} ms)"
