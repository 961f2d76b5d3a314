"""Streaming accumulation: candidate lines in, per-rank state and bounded evidence out.

A line is attributed to a provisional key while streaming, because the rank it belongs to may
only become known later (a ``[default3]:`` prefix whose global rank appears further on, an NCCL
``host:pid`` whose ``Init COMPLETE`` line comes later, a file whose lines name its rank). `resolve`
turns the keys into global ranks at the end and merges what they gathered.

Everything kept is bounded: a few events per rank and kind, a capped set of timeline groups.
"""

from __future__ import annotations

import re

from rootcause.core.normalize import strip_framing
from rootcause.core.triage import extract as x
from rootcause.core.triage.acc_state import MAX_PER_KIND, MAX_ROOTS, Group, RankAcc, SourceInfo
from rootcause.core.triage.clock import last_time, line_time
from rootcause.core.triage.events import Ev, Key
from rootcause.core.triage.fact_fold import MAX_GLOBAL, FactFolding, with_kind
from rootcause.core.triage.torchrun_report import FailureRecord, exit_summary, failure_record

__all__ = [
    "MAX_GLOBAL",
    "MAX_GROUPS",
    "MAX_GROUP_KEYS",
    "MAX_PER_KIND",
    "MAX_ROOTS",
    "MAX_TEXT",
    "Accumulator",
    "Ev",
    "FailureRecord",
    "Group",
    "Key",
    "RankAcc",
    "SourceInfo",
]

MAX_TEXT = 500
MAX_GROUPS = 300
MAX_GROUP_KEYS = 8192
# torchrun's log prefix, "E1205 13:15:43.400000 22922 …": the agent's pid
_GLOG_PID = re.compile(r"(?:^|\s)[EWIF]\d{4} [\d:.]{6,20} (\d{1,9}) ")
_ATTEMPT = re.compile(r"(?:^|[/\\])attempt_(\d{1,4})[/\\]")


class Accumulator(FactFolding):
    """Every input's candidate lines, folded into bounded state. Folding the facts of
    a line is its mixin ``fact_fold.FactFolding``; what it keeps is in ``acc_state``."""

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
        self._group("exit", exit_summary(rec.exit_code, rec.signal), with_kind(rec.ev, "exit"), ("g", rec.rank))

    # -- timeline ---------------------------------------------------------------------------
    def _group(self, kind: str, summary: str, ev: Ev, key: Key, sig: str | None = None) -> None:
        sig = f"{kind}|{sig or summary}"
        group = self.groups.get(sig)
        if group is None:
            if len(self.groups) >= MAX_GROUPS:
                self.dropped_groups += 1
                return
            group = self.groups[sig] = Group(kind, summary, with_kind(ev, kind))
        elif ev.order() < group.first.order():
            group.first = with_kind(ev, kind)
        group.count += 1
        if len(group.keys) < MAX_GROUP_KEYS:
            group.keys.add(key)
