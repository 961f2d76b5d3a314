"""PyTorch Flight Recorder dumps: read them safely, then compare the ranks per process group.

A dump is one file per rank, written by ProcessGroupNCCL's dump-on-timeout (or on demand through
`torch._C._distributed_c10d._dump_fr_trace()`, which Gloo also fills in torch 2.13) to
`$TORCH_FR_DUMP_TEMP_FILE<rank>` (older name `TORCH_NCCL_DEBUG_INFO_TEMP_FILE`). Its schema
(torch/csrc/distributed/c10d/FlightRecorder*.cpp, read by torch/distributed/flight_recorder):

    {"version": "2.10", "pg_config": {name: {"name", "desc", "ranks": "[0, 1]"}},
     "pg_status": {pg_id: {"last_enqueued_collective", "last_started_collective", "last_completed_collective"}},
     "comm_lib_version": str, "nccl_comm_state": {...},
     "entries": [{"record_id", "pg_id", "process_group": [name, desc], "collective_seq_id", "p2p_seq_id",
                  "op_id", "profiling_name": "nccl:all_reduce", "time_created_ns", "input_sizes", "input_dtypes",
                  "output_sizes", "output_dtypes", "state": "scheduled|started|completed", "is_p2p",
                  "timeout_ms", "duration_ms", "retired", "frames": [{"name", "filename", "line"}]}]}

Pickle (the default) or JSON. This is hostile input: `flight_load` reads it with bounded work and memory
(no globals, capped opcodes, memo and keys; values rendered to bounded text), and the comparison works in
the number of entries, never in the span of their sequence ids; anything else is one `DumpError`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rootcause.core.triage.flight_load import MAX_DUMP_BYTES as MAX_DUMP_BYTES  # re-exported
from rootcause.core.triage.flight_load import DumpError, load_object, render
from rootcause.core.triage.flight_load import looks_like_dump as looks_like_dump  # re-exported

MAX_ENTRIES = 200_000
MAX_GROUPS = 4096
MAX_RANKS = 1 << 20  # members of a group, or the world size, taken into account for missing dumps
_RANK_AT_END = re.compile(r"(\d{1,7})(?:\.(?:json|pkl|pickle|bin))?$")


def rank_from_name(name: str) -> int | None:
    """The rank a dump's file name ends with: `nccl_trace_rank_3`, `host-a12_fr_trace_rank_3.json`, `…rank3`."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    m = _RANK_AT_END.search(base)
    return int(m.group(1)) if m else None


def load_dump(data: bytes, name: str) -> dict[str, Any]:
    """Pickle or JSON into a dict, or DumpError."""
    obj = load_object(data, name)
    if not isinstance(obj, dict) or not isinstance(obj.get("entries"), list):
        raise DumpError(f"{name}: not a Flight Recorder dump (no 'entries' list at the top level)")
    if len(obj["entries"]) > MAX_ENTRIES:
        raise DumpError(f"{name}: {len(obj['entries'])} entries, more than {MAX_ENTRIES}")
    return obj


@dataclass(frozen=True, slots=True)
class Op:
    """One recorded collective or p2p operation, as the analyser compares them."""

    index: int  # position in `entries`
    pg: str
    seq: int
    p2p: bool
    op: str
    input_sizes: str
    output_sizes: str
    dtypes: str
    state: str

    def text(self) -> str:
        kind = "p2p_seq_id" if self.p2p else "collective_seq_id"
        return (
            f"entries[{self.index}]: pg {self.pg} {kind}={self.seq} {self.op} input_sizes={self.input_sizes} "
            f"output_sizes={self.output_sizes} dtypes={self.dtypes} state={self.state}"
        )


@dataclass
class Dump:
    name: str
    rank: int
    version: str
    ops: dict[tuple[str, bool], dict[int, Op]] = field(default_factory=dict)  # (pg, p2p) -> seq -> op
    pg_ranks: dict[str, list[int]] = field(default_factory=dict)


def _s(value: Any, limit: int = 200) -> str:
    return render(value, limit)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) < 19:
        return int(value)
    return None


def _ranks(value: Any) -> list[int] | None:
    """A group's `ranks`: a list of ints, or its JSON text ("[0, 1]"); None when it is neither."""
    if isinstance(value, str) and len(value) < 1 << 20:
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    if isinstance(value, list) and len(value) <= MAX_RANKS and all(type(r) is int for r in value):
        return value
    return None


def parse_dump(data: bytes, name: str, rank: int | None = None) -> Dump:
    obj = load_dump(data, name)
    own = _int(obj.get("rank"))
    rank = own if own is not None else rank if rank is not None else rank_from_name(name)
    if rank is None:
        raise DumpError(f"{name}: the rank is neither in the dump nor at the end of the file name")
    dump = Dump(name, rank, _s(obj.get("version", "?"), 20))
    config = obj.get("pg_config")
    if isinstance(config, dict):
        for key, pg in list(config.items())[:MAX_GROUPS]:
            if isinstance(pg, dict):
                parsed = _ranks(pg.get("ranks"))
                if parsed is not None:
                    dump.pg_ranks[_s(pg.get("name", key), 100)] = parsed
    for i, e in enumerate(obj["entries"]):
        if not isinstance(e, dict):
            raise DumpError(f"{name}: entries[{i}] is not an object")
        p2p = e.get("is_p2p") is True
        seq = _int(e.get("p2p_seq_id" if p2p else "collective_seq_id"))
        if seq is None:
            raise DumpError(f"{name}: entries[{i}] has no integer {'p2p_seq_id' if p2p else 'collective_seq_id'}")
        pg = e.get("process_group")
        pg_name = _s(pg[0], 100) if isinstance(pg, list | tuple) and pg else _s(e.get("pg_id", "0"), 100)
        profiling = _s(e.get("profiling_name", "?"), 100)
        op = profiling.split(":", 1)[1] if ":" in profiling else profiling
        dtypes = _s([e.get("input_dtypes"), e.get("output_dtypes")])
        item = Op(
            i,
            pg_name,
            seq,
            p2p,
            op,
            _s(e.get("input_sizes")),
            _s(e.get("output_sizes")),
            dtypes,
            _s(e.get("state", "?"), 20),
        )
        dump.ops.setdefault((pg_name, p2p), {})[seq] = item
    return dump


# -- comparison across ranks ----------------------------------------------------------------
# The categories of PyTorch's own analyser (torch/distributed/flight_recorder/components/types.py MatchState).
TYPE = "COLLECTIVE_TYPE_MISMATCH"
SIZE = "SIZE_OR_SYNTAX_MISMATCH"
DTYPE = "COLLECTIVE_DTYPE_MISMATCH"
STATE = "COLLECTIVE_STATE_MISMATCH"


@dataclass
class Mismatch:
    pg: str
    seq: int
    category: str
    culprits: list[int]  # ranks outside the majority (all of them when there is no majority)
    clear: bool
    detail: str
    ops: dict[int, Op]


@dataclass
class Behind:
    pg: str
    frontier: int  # the highest sequence id any rank of the group reached
    ranks: dict[int, int]  # rank -> its last sequence id


@dataclass
class FlightReport:
    dumps: dict[int, Dump]
    mismatch: Mismatch | None
    behind: list[Behind]
    missing: list[int]  # members of a recorded group with no dump


def _compare(a: Op, b: Op) -> str | None:
    if a.op != b.op:
        return TYPE
    if (a.input_sizes, a.output_sizes) != (b.input_sizes, b.output_sizes):
        return SIZE
    if a.dtypes != b.dtypes:
        return DTYPE
    return None


def compare(dumps: dict[int, Dump], world: int | None = None) -> FlightReport:
    """Per process group: align by sequence id (collective_seq_id, p2p_seq_id apart), the first sequence id whose
    ops differ (type, then sizes, then dtypes), the frontier and the ranks behind it, and missing dumps."""
    groups: set[tuple[str, bool]] = {k for d in dumps.values() for k in d.ops}
    first: Mismatch | None = None
    behind: list[Behind] = []
    for key in sorted(groups):
        pg, p2p = key
        per_rank = {r: d.ops[key] for r, d in dumps.items() if d.ops.get(key)}
        if len(per_rank) < 2:
            continue
        # ring buffers wrap: compare only from the latest first sequence id (align_trace_from_beginning)
        start = max(min(ops) for ops in per_rank.values())
        last = {r: max(ops) for r, ops in per_rank.items()}
        frontier = max(last.values())
        if not p2p:  # the sequence ids present, in order: never the span between them (0 and 10**17)
            for seq in sorted({s for ops in per_rank.values() for s in ops if s >= start}):
                have = {r: ops[seq] for r, ops in per_rank.items() if seq in ops}
                if len(have) < 2:
                    continue
                sigs: dict[tuple[str, str, str, str], list[int]] = {}
                for r, op in have.items():
                    sigs.setdefault((op.op, op.input_sizes, op.output_sizes, op.dtypes), []).append(r)
                if len(sigs) > 1 and (first is None or seq < first.seq):
                    counts = Counter({k: len(v) for k, v in sigs.items()})
                    top = counts.most_common(2)
                    clear = top[0][1] > top[1][1]
                    major = top[0][0] if clear else None
                    culprits = sorted(r for k, rs in sigs.items() if k != major for r in rs)
                    ref = have[sigs[top[0][0]][0]]
                    cat = next((c for r in culprits if (c := _compare(ref, have[r])) is not None), TYPE)
                    detail = "; ".join(
                        f"ranks {','.join(map(str, rs))}: {k[0]} input_sizes={k[1]} dtypes={k[3]}"
                        for k, rs in sorted(sigs.items(), key=lambda kv: -len(kv[1]))
                    )
                    first = Mismatch(pg, seq, cat, culprits, clear, detail, have)
                    break
        late = {r: s for r, s in last.items() if s < frontier}
        if late:
            behind.append(Behind(pg, frontier, late))
    members: set[int] = set()
    for d in dumps.values():
        for ranks in d.pg_ranks.values():
            members |= set(ranks)
            if len(members) > MAX_RANKS:
                break
    if world and world <= MAX_RANKS:
        members |= set(range(world))
    missing = sorted(members - set(dumps)) if dumps else []
    return FlightReport(dumps, first, behind, missing)
