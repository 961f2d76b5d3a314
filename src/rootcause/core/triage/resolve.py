"""Provisional keys to global ranks, once every input has been read."""

from __future__ import annotations

from dataclasses import dataclass, field

from rootcause.core.triage.flight import FlightReport
from rootcause.core.triage.state import Accumulator, Key, RankAcc


@dataclass
class Resolved:
    acc: Accumulator
    ranks: dict[int, RankAcc]
    key_rank: dict[Key, int | None]
    world_size: int | None
    missing: list[int]
    orphans: list[RankAcc] = field(default_factory=list)
    flight: FlightReport | None = None
    flight_src: dict[int, int] = field(default_factory=dict)  # rank -> the source index of its dump

    def rank_of(self, key: Key) -> int | None:
        if key[0] == "g":
            return key[1]  # type: ignore[return-value]
        return self.key_rank.get(key)


def _source_ranks(acc: Accumulator) -> dict[int, int]:
    """The one rank a whole input belongs to, where it has one.

    Evidence, strongest first: the [rankN]: prefixes of its lines; NCCL's Init COMPLETE line for its
    process; the rank of a sibling file in the same folder (torchrun's stdout.log beside stderr.log);
    the rank in its path (which, in a torchrun --log-dir of a multi-node job, is the local rank).
    """
    hinted: dict[int, set[int]] = {}
    pg_named: dict[int, set[int]] = {}
    for key in acc.keys:
        if key[0] == "p":
            hint = acc.hints.get(key[:3])
            if hint is not None:
                hinted.setdefault(key[3], set()).add(hint[1])  # type: ignore[arg-type]
        elif key[0] == "q":
            pg_named.setdefault(key[1], set()).add(key[2])  # type: ignore[arg-type]
    strong: dict[int, int] = {}
    weak: dict[int, int] = {}
    for idx, info in enumerate(acc.sources):
        if len(info.prefix_ranks) > 1 or info.local_ranks:
            continue  # a combined log of several ranks, or torchrun's console (--tee): the rest is the launcher's
        if len(info.prefix_ranks) == 1:
            strong[idx] = next(iter(info.prefix_ranks))
        elif len(hinted.get(idx, ())) == 1:
            strong[idx] = next(iter(hinted[idx]))
        elif info.rank is not None:
            weak[idx] = info.rank
        elif len(pg_named.get(idx, ())) == 1:
            weak[idx] = next(iter(pg_named[idx]))
    by_dir: dict[tuple[str, int | None], int] = {}
    for idx, rank in strong.items():
        info = acc.sources[idx]
        by_dir.setdefault((_folder(info.name), info.rank), rank)
    out = dict(strong)
    for idx, rank in weak.items():
        info = acc.sources[idx]
        out[idx] = by_dir.get((_folder(info.name), info.rank), rank)
    return out


def _folder(name: str) -> str:
    cut = max(name.rfind("/"), name.rfind("\\"))
    return name[:cut] if cut >= 0 else ""


def _resolve_key(acc: Accumulator, key: Key, src_rank: dict[int, int], pid_rank: dict[int, int]) -> int | None:
    kind = key[0]
    if kind == "a":  # a later attempt's line: dropped when the inputs hold the first attempt too
        return None if acc.restarted else _resolve_key(acc, key[2], src_rank, pid_rank)  # type: ignore[arg-type]
    if kind == "g":
        return key[1]  # type: ignore[return-value]
    if kind == "s":
        return src_rank.get(key[1])  # type: ignore[call-overload]
    if kind == "l":
        src, local = key[1], key[2]
        info = acc.sources[src]  # type: ignore[call-overload]
        if local in info.local_to_global:
            return info.local_to_global[local]
        hint = acc.hints.get(key)
        if hint is not None:
            return hint[1]
        offsets = {g - loc for loc, g in info.local_to_global.items()}
        if len(offsets) == 1:  # one node's console: global = node offset + local, as for the ranks seen with both
            return local + offsets.pop()
        return local if not info.prefix_ranks else None  # type: ignore[return-value]
    if kind == "p":
        hint = acc.hints.get(key[:3])
        return hint[1] if hint is not None else src_rank.get(key[3])  # type: ignore[call-overload]
    if kind == "q":
        return src_rank.get(key[1], key[2])  # type: ignore[call-overload]
    if kind == "x":  # torchrun's "failed (exitcode: …) local_rank: L (pid: P)"
        src, local, pid = key[1], key[2], key[3]
        if pid in pid_rank:
            return pid_rank[pid]
        return acc.sources[src].local_to_global.get(local)  # type: ignore[call-overload]
    return None


def _pid_ranks(acc: Accumulator) -> dict[int, int]:
    out: dict[int, int] = {rec.pid: rec.rank for rec in acc.failures if rec.pid is not None}
    for key in acc.keys:
        if key[0] == "p" and key[:3] in acc.hints:
            out.setdefault(key[2], acc.hints[key[:3]][1])  # type: ignore[arg-type]
    return out


def _first_attempt_only(acc: Accumulator) -> None:
    """With restarts, the first attempt's first failure is the root: the later attempts' failures (a stale store,
    re-initialisation errors on every rank) and torchrun's report of the last attempt are its consequences."""
    if not acc.restarted:
        return
    acc.failures = [rec for rec in acc.failures if rec.attempt == 0]
    acc.lagging = [item for item in acc.lagging if item[0].key[0] != "a"]
    acc.barriers = [item for item in acc.barriers if item[0].key[0] != "a"]
    acc.ras = [item for item in acc.ras if item[0].key[0] != "a"]
    acc.death_signals = [ev for ev in acc.death_signals if ev.key[0] != "a"]


def resolve(acc: Accumulator) -> Resolved:
    _first_attempt_only(acc)
    src_rank = _source_ranks(acc)
    pid_rank = _pid_ranks(acc)
    key_rank: dict[Key, int | None] = {}
    ranks: dict[int, RankAcc] = {}
    orphans: list[RankAcc] = []
    # merge in a stable order: keys that name the rank directly first
    order = {"g": 0, "s": 1, "l": 2, "q": 3, "p": 4, "x": 5}
    for key in sorted(acc.keys, key=lambda k: (order.get(str(k[0]), 9), str(k))):
        rank = _resolve_key(acc, key, src_rank, pid_rank)
        key_rank[key] = rank
        state = acc.keys[key]
        if rank is None:
            if key[0] != "a":
                orphans.append(state)
            continue
        if rank in ranks:
            ranks[rank].absorb(state)
        else:
            ranks[rank] = state
    for rec in acc.failures:
        state = ranks.setdefault(rec.rank, RankAcc())
        if rec.exit_code is not None:
            state.exit_code = rec.exit_code
            state.signal = rec.signal or state.signal
            state.exit_pid = rec.pid or state.exit_pid
            state.exit_ev = state.exit_ev or rec.ev
        state.local_rank = state.local_rank if state.local_rank is not None else rec.local_rank
        if state.host is None and rec.host:
            state.host = rec.host.split(".", 1)[0]
        state.root_cause_block |= rec.root
    sizes = [s for s in acc.world_sizes if s > 0]
    if ranks:
        sizes.append(max(ranks) + 1)
    world = max(sizes) if sizes else None
    seen = {r for r, s in ranks.items() if s.has_log or s.exit_ev is not None}
    missing = [r for r in range(world or 0) if r not in seen] if world is not None and world <= 1 << 16 else []
    return Resolved(acc, dict(sorted(ranks.items())), key_rank, world, missing, orphans)
