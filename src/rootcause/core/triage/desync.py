"""Desync: ranks that called different operations, or the same one with different sizes, at one
sequence number (ProcessGroupWrapper fingerprints, the WorkNCCL of the timeouts of one process group,
the desync report, Gloo's size check)."""

from __future__ import annotations

from rootcause.core.triage import extract as x
from rootcause.core.triage.flight_verdict import flight_desync
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.state import Ev
from rootcause.core.triage.verdict import (
    SIZE_CHECKED_OPS,
    Named,
    Verdict,
    hosts_of,
    nccl_timeouts,
    pick_evidence,
    ranks_word,
)

DETAIL_HINT = (
    "Set TORCH_DISTRIBUTED_DEBUG=DETAIL: every collective is first checked across ranks, and a mismatch names "
    "the ranks, the operation, the sequence number and the shapes."
)


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
        parts.append(f"{ranks_word(members)} {fmt.format(*sig)}")
    return "; ".join(parts)


def _shape(shape: str | None, dtype: str | None) -> str:
    return (shape or "") + (f" {dtype}" if dtype else "")


def desync(res: Resolved) -> Verdict | None:
    # ProcessGroupWrapper fingerprints (TORCH_DISTRIBUTED_DEBUG=DETAIL)
    own: dict[int, tuple[int, str, str, Ev]] = {}
    said: dict[int, tuple[int, str, str, Ev]] = {}
    for st in res.ranks.values():
        for ev, fp in st.fingerprints:
            own.setdefault(fp.rank, (fp.seq, fp.op, _shape(fp.shape, fp.dtype), ev))
            said.setdefault(fp.other_rank, (fp.other_seq, fp.other_op, _shape(fp.other_shape, fp.other_dtype), ev))
    for r, item in said.items():
        own.setdefault(r, item)
    if len(own) >= 2:
        groups: dict[tuple[object, ...], list[int]] = {}
        for r, (seq, op, shape, _) in own.items():
            groups.setdefault((seq, op, shape), []).append(r)
        if len(groups) > 1:
            guilty, clear = _majority(groups)
            seqs = sorted({seq for seq, _, _, _ in own.values()})
            what = "operation" if len({op for _, op, _, _ in own.values()}) > 1 else "tensor shapes or dtypes"
            summary = (
                f"Ranks called different collectives at sequence number {', '.join(map(str, seqs))} "
                f"(different {what}): {_describe_groups(groups, 'ran {1} [{2}] (SeqNum {0})')}. "
            )
            summary += (
                f"{ranks_word(guilty).capitalize()} differ from the majority."
                if clear
                else "With no majority, the logs cannot tell which side is wrong: check the code path of each."
            )
            evs = sorted({id(item[3]): item[3] for item in own.values()}.values(), key=Ev.order)
            op_word = "/".join(sorted({op for _, op, _, _ in own.values()}))
            return Verdict(
                "desync",
                summary,
                guilty,
                hosts_of(res, guilty),
                "high" if clear else "medium",
                f"{op_word} #{seqs[0]}",
                evs[:12],
                rule="detail-fingerprint",
            )
    # Flight Recorder dumps aligned by sequence id
    recorded = flight_desync(res)
    if recorded is not None:
        return recorded
    # NCCL timeouts: same process group and sequence number, different op or size
    for (pg, seq), members in sorted(nccl_timeouts(res).items(), key=lambda kv: -len(kv[1])):
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
                f"{ranks_word(guilty).capitalize()} called something other than the majority."
                if clear
                else "With no majority, the logs cannot tell which side is wrong."
            )
            evs = sorted((ev for ev, _ in members.values()), key=Ev.order)
            ops = "/".join(sorted({str(k[0]) for k in groups}))
            return Verdict(
                "desync",
                summary,
                guilty,
                hosts_of(res, guilty),
                "high" if clear else "medium",
                f"{ops} #{seq}",
                pick_evidence(evs, guilty, res),
                rule="nccl-seq-mismatch",
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
            return Verdict(
                "desync", summary, guilty, hosts_of(res, guilty), "medium", f"#{seq}", evs[:12], rule="desync-report-op"
            )
    # the Python stacks: ranks in different collectives or at different lines of the program
    # Gloo's size check (no fingerprints): the receiver got a message larger than it expected
    return stack_desync(res) or gloo_size_check(res)


ROOTED = {"reduce", "gather"}  # many-to-one: the rank left waiting in it may be the innocent root


def stack_desync(res: Resolved) -> Verdict | None:
    """Ranks whose tracebacks show them in different collectives, or calling one from different lines."""
    stacks = {r: st.stack for r, st in res.ranks.items() if st.stack is not None}
    if len(stacks) < 2:
        return None
    with_line = all(stk.user_file is not None for _, stk, _ in stacks.values())
    groups: dict[tuple[object, ...], list[int]] = {}
    for r, (_, stk, _) in stacks.items():
        groups.setdefault(stk.key() if with_line else (stk.collective,), []).append(r)
    if len(groups) < 2:
        return None
    odd, clear = _majority(groups)
    rooted = sorted({stacks[r][1].collective for r in odd} & ROOTED)  # type: ignore[index]
    if rooted:
        clear = False  # the ranks that only send have returned: the root itself is among the ranks left in it
    parts = []
    for _, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1])):
        parts.append(f"{ranks_word(members)} {stacks[members[0]][1].where()}")  # type: ignore[index]
    summary = f"The ranks' stacks show them in different places: {'; '.join(parts)}. "
    named = []
    for r in odd:
        _, stk, evs = stacks[r]  # type: ignore[misc]
        reason = f"rank {r} was {stk.where()}, unlike the majority"
        named.append(Named(r, "guilty" if clear else "candidate", "stack-minority", reason, evs))
    evs = [e for r in odd for e in stacks[r][2]]  # type: ignore[index]
    evs += [stacks[r][0] for r in sorted(stacks) if r not in odd][:3]  # type: ignore[index]
    if clear:
        summary += f"{ranks_word(odd).capitalize()} ran a different program path than the others (a desync)."
        kinds = "/".join(sorted({str(k[0]) for k in groups}))
        v = Verdict("desync", summary, odd, hosts_of(res, odd), "medium", kinds, evs)
    else:
        summary += (
            f"{', '.join(rooted)} returns early on the ranks that only send, so its root is among the ranks left "
            "in it: the stacks cannot tell which rank took the wrong path."
            if rooted
            else "With no majority, the stacks cannot tell which side took the wrong path."
        )
        v = Verdict("undecided", summary, [], [], "low", None, evs, [DETAIL_HINT])
    v.named = named
    return v


def gloo_size_check(res: Resolved) -> Verdict | None:
    """Gloo's `op.preamble.length <= op.nbytes` fired on the receiving rank. Either the sender's
    tensor is larger, or the receiver's own is smaller: one line cannot tell them apart. A ring
    all_reduce (gloo/allreduce.cc, the algorithm ProcessGroupGloo's CPU all_reduce uses) receives from
    rank + 1, so that rank comes first, then the receiver. Other evidence (stacks, Flight Recorder,
    DETAIL) decides; here the answer is `undecided` with those candidates."""
    sized = {r: st.size_mismatch for r, st in res.ranks.items() if st.size_mismatch}
    if not sized:
        return None
    receivers = sorted(sized)
    world = res.world_size or (max(res.ranks) + 1 if res.ranks else 0)
    named: list[Named] = []
    for d in receivers:
        ev = sized[d][0]  # type: ignore[index]
        if world > 1:
            sender = (d + 1) % world
            if sender not in receivers and all(n.rank != sender for n in named):
                reason = (
                    f"rank {d} received an oversized message; in a ring all_reduce rank {d} receives from rank {sender}"
                )
                named.append(Named(sender, "candidate", "gloo-ring-sender", reason, [ev]))
    for d in receivers:
        ev = sized[d][0]  # type: ignore[index]
        reason = f"rank {d} expected a smaller message: its own tensor may be the smaller one"
        named.append(Named(d, "candidate", "gloo-size-receiver", reason, [ev]))
    detail = next(iter(sized.values()))[1].detail  # type: ignore[index]
    cands = [n.rank for n in named]
    summary = (
        f"A collective size mismatch (desync): Gloo's size check fired on {ranks_word(receivers)} ({detail}). "
        "The ranks called the same collective with different tensor sizes, or different collectives, but the check "
        f"cannot say which side is wrong. Candidates, most likely first: {', '.join(map(str, cands))} "
        "(the ring all_reduce sender of the oversized message, then the receiver)."
    )
    evs = sorted((item[0] for item in sized.values()), key=Ev.order)  # type: ignore[index]
    v = Verdict("undecided", summary, [], [], "low", None, evs[:12], [DETAIL_HINT])
    v.named = named
    return v
