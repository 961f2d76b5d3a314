"""What the Flight Recorder dumps conclude, next to the logs: a mismatch at one sequence id (desync), ranks
behind the frontier (straggler), ranks with no dump (suspects: they may have died first)."""

from __future__ import annotations

from rootcause.core.triage.flight import STATE, Op
from rootcause.core.triage.resolve import Resolved
from rootcause.core.triage.rules import RULES
from rootcause.core.triage.state import Ev
from rootcause.core.triage.verdict import Named, Verdict, hosts_of, on_hosts, ranks_word

FR_HINT = "Compare the dumps with PyTorch's own analyser too: `torchfrtrace DIR` (torch/distributed/flight_recorder)."
CATEGORY_WORDS = {
    "COLLECTIVE_TYPE_MISMATCH": "different operations",
    "SIZE_OR_SYNTAX_MISMATCH": "different sizes",
    "COLLECTIVE_DTYPE_MISMATCH": "different dtypes",
    STATE: "different states",
}


def op_ev(res: Resolved, rank: int, op: Op) -> Ev:
    """The dump entry as evidence: the dump file, entry number (1-based), a one-line rendering."""
    return Ev(res.flight_src[rank], op.index + 1, op.text(), None, None, None, "flight-recorder", ("g", rank))


def flight_desync(res: Resolved) -> Verdict | None:
    fr = res.flight
    if fr is None or fr.mismatch is None:
        return None
    m = fr.mismatch
    pg = f" of process group {m.pg!r}" if m.pg not in ("", "0") else ""
    summary = (
        f"The Flight Recorder dumps disagree at collective_seq_id {m.seq}{pg} ({m.category}: "
        f"{CATEGORY_WORDS.get(m.category, m.category)}): {m.detail}. "
    )
    named = [
        Named(
            r,
            "guilty" if m.clear else "candidate",
            "flight-recorder-mismatch",
            f"its dump records {m.ops[r].op} input_sizes={m.ops[r].input_sizes} at collective_seq_id {m.seq}, "
            "unlike the majority",
            [op_ev(res, r, m.ops[r])],
        )
        for r in m.culprits
    ]
    others = [r for r in sorted(m.ops) if r not in m.culprits][:2]
    evs = [op_ev(res, r, m.ops[r]) for r in m.culprits[:6]] + [op_ev(res, r, m.ops[r]) for r in others]
    if m.clear:
        summary += f"{ranks_word(m.culprits).capitalize()}{on_hosts(res, m.culprits)} called something else."
        v = Verdict("desync", summary, m.culprits, hosts_of(res, m.culprits), "high", f"#{m.seq}", evs)
    else:
        summary += "With no majority, the dumps cannot tell which side is wrong: check the code path of each."
        v = Verdict("undecided", summary, [], [], "low", f"#{m.seq}", evs)
    v.named = named
    return v


def flight_straggler(res: Resolved) -> Verdict | None:
    """Ranks whose dump stops before the frontier of a process group the others reached."""
    fr = res.flight
    if fr is None or not fr.behind:
        return None
    b = max(fr.behind, key=lambda item: (item.pg in ("", "0"), len(fr.dumps) - len(item.ranks)))
    if len(b.ranks) * 2 > len(fr.dumps) and len(fr.dumps) > 2:
        return None  # most ranks are "behind": the frontier is one rank running ahead, not a straggler
    late = sorted(b.ranks)
    named = []
    for r in late:
        ops = fr.dumps[r].ops.get((b.pg, False), {})
        last = ops.get(b.ranks[r])
        evs = [op_ev(res, r, last)] if last is not None else []
        named.append(
            Named(
                r,
                "guilty",
                "flight-recorder-behind",
                f"its dump stops at collective_seq_id {b.ranks[r]}, the others reached {b.frontier}",
                evs,
            )
        )
    detail = ", ".join(f"rank {r} at #{b.ranks[r]}" for r in late[:6])
    summary = (
        f"{ranks_word(late).capitalize()}{on_hosts(res, late)} never reached collective_seq_id {b.frontier}, which the "
        f"other ranks' Flight Recorder dumps record: {detail}."
    )
    evs = [e for n in named for e in n.evidence]
    ahead = next((r for r in sorted(fr.dumps) if r not in b.ranks), None)
    if ahead is not None:
        ops = fr.dumps[ahead].ops.get((b.pg, False), {})
        if b.frontier in ops:
            evs.append(op_ev(res, ahead, ops[b.frontier]))
    v = Verdict("straggler", summary, late, hosts_of(res, late), "high", f"#{b.frontier}", evs)
    v.named = named
    return v


def missing_dump_candidates(res: Resolved) -> list[Named]:
    """Ranks of a recorded group with no dump, while the others have one: they may have died first."""
    fr = res.flight
    if fr is None or not fr.missing:
        return []
    reason = RULES["flight-recorder-missing"]
    out = []
    for r in fr.missing[:16]:
        st = res.ranks.get(r)
        evs = [e for e in ((st.exit_ev, st.last) if st else ()) if e is not None][:2]
        if not evs:
            evs = [
                op_ev(res, r2, next(iter(ops.values())))
                for r2, d in list(fr.dumps.items())[:1]
                for ops in list(d.ops.values())[:1]
                if ops
            ]
        out.append(Named(r, "candidate", "flight-recorder-missing", reason, evs))
    return out
