"""Folding one line's facts into the accumulator's state: per-rank evidence, the global lists and the
timeline groups. A mixin of ``state.Accumulator``, whose state it reads and writes; its methods resolve
on the accumulator's class like its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rootcause.core.normalize import parameterise
from rootcause.core.triage import extract as x
from rootcause.core.triage.acc_state import MAX_PER_KIND, MAX_ROOTS, RankAcc, SourceInfo, better_status
from rootcause.core.triage.events import Ev, Key
from rootcause.core.triage.stacks import MAX_FRAMES, is_c10d, stack_of
from rootcause.core.triage.torchrun_report import SIGNALS, exit_summary

MAX_GLOBAL = 64


class FactFolding:
    """The facts of one line, each to where it is kept (the state is set up by ``Accumulator.__init__``)."""

    sources: list[SourceInfo]
    hints: dict[Key, tuple[int, int]]
    ip_host: dict[str, str]
    world_sizes: list[int]
    sigterm_pids: set[int]
    death_signals: list[Ev]
    lagging: list[tuple[Ev, x.Lagging]]
    barriers: list[tuple[Ev, x.BarrierFail]]
    ras: list[tuple[Ev, x.RasCount]]
    _line_timeout: bool
    _attempt: int

    if TYPE_CHECKING:

        def _acc(self, key: Key) -> RankAcc: ...

        def _group(self, kind: str, summary: str, ev: Ev, key: Key, sig: str | None = None) -> None: ...

        def _flush_block(self, src: int) -> None: ...

        def _block_field(self, src: int, fact: x.BlockField, e: Ev) -> None: ...

    def _fact(self, src: int, key: Key, acc: RankAcc, ev: Ev, fact: x.Fact, lf: x.LineFacts) -> None:
        e = with_kind(ev, type(fact).__name__.lower())
        if isinstance(fact, x.TraceStart):
            acc.frames = []
        elif isinstance(fact, x.Frame):
            if fact.innermost_first:  # a py-spy frame line: only the collective's frame reaches us
                acc.frames = []
            if len(acc.frames) < MAX_FRAMES:
                acc.frames.append((with_kind(ev, "stack"), fact))
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
                if acc.status is None or better_status((e, fact), acc.status):
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
                self._group("nccl-warn", f"NCCL WARN ({fact.category}): {short(fact.message)}", e, key)
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
            kind, f"{fact.type}: {short(fact.message)}", e, key, sig=f"{fact.type} {parameterise(fact.message)[:120]}"
        )


def with_kind(ev: Ev, kind: str) -> Ev:
    return Ev(ev.src, ev.line, ev.text, ev.t, ev.lo, ev.shown, kind, ev.key)


def short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _timeout_summary(t: x.Timeout) -> str:
    if t.backend == "gloo":
        return f"Gloo collective timed out after {t.timeout_ms} ms"
    what = f"{t.op} #{t.seq}" if t.seq is not None else f"{t.op}"
    numel = f"NumelIn {t.numel_in}, NumelOut {t.numel_out}; " if t.numel_in is not None else ""
    return f"{what} timed out ({numel}timeout {t.timeout_ms} ms)"
