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

Pickle (the default) or JSON. This is hostile input: the pickle is read by an Unpickler that refuses
every global (only the opcodes of plain dicts, lists, tuples, strings, numbers, booleans and None can
run), sizes and counts are bounded, and anything else is one `DumpError`.
"""

from __future__ import annotations

import json
import pickle
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rootcause.errors import UsageError

MAX_DUMP_BYTES = 64 << 20
MAX_ENTRIES = 200_000
MAX_GROUPS = 4096
_RANK_AT_END = re.compile(r"(\d{1,7})(?:\.(?:json|pkl|pickle|bin))?$")


class DumpError(UsageError):
    """A file that is not a readable Flight Recorder dump (one line: what is wrong)."""


class _NoGlobals(pickle.Unpickler):
    """Plain containers and scalars only: any global (a class, a function such as os.system) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise DumpError(f"refused to load a pickle global ({module}.{name}): not a plain Flight Recorder dump")

    def persistent_load(self, pid: Any) -> Any:
        raise DumpError("refused a pickle persistent id: not a plain Flight Recorder dump")


class _Reader:
    """The file-like view of bytes the Unpickler reads from (read and readline only)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self._data) if n < 0 else self._pos + n
        out = self._data[self._pos : end]
        self._pos += len(out)
        return out

    def readline(self) -> bytes:
        nl = self._data.find(b"\n", self._pos)
        return self.read(-1 if nl < 0 else nl + 1 - self._pos)


def looks_like_dump(head: bytes) -> bool:
    """The first bytes of a file: a pickle (protocol 2+) or a JSON object that names Flight Recorder keys."""
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return True
    text = head.lstrip()[:4096]
    keys = (b'"pg_config"', b'"version"', b'"collective_seq_id"', b'"pg_status"')
    return text[:1] == b"{" and b'"entries"' in text and any(k in text for k in keys)


def rank_from_name(name: str) -> int | None:
    """The rank a dump's file name ends with: `nccl_trace_rank_3`, `host-a12_fr_trace_rank_3.json`, `…rank3`."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    m = _RANK_AT_END.search(base)
    return int(m.group(1)) if m else None


def load_dump(data: bytes, name: str) -> dict[str, Any]:
    """Pickle or JSON into a dict, or DumpError."""
    if len(data) > MAX_DUMP_BYTES:
        raise DumpError(f"{name}: {len(data)} bytes, more than the {MAX_DUMP_BYTES} a Flight Recorder dump may have")
    try:
        obj = _NoGlobals(_Reader(data)).load() if data[:1] == b"\x80" else json.loads(data.decode("utf-8"))
    except DumpError as exc:
        raise DumpError(f"{name}: {exc}") from None
    except RecursionError:
        raise DumpError(f"{name}: nested too deeply to be a Flight Recorder dump") from None
    except (pickle.UnpicklingError, ValueError, EOFError, TypeError, IndexError, KeyError, AttributeError) as exc:
        raise DumpError(f"{name}: not a Flight Recorder dump ({type(exc).__name__}: {str(exc)[:200]})") from None
    except MemoryError:
        raise DumpError(f"{name}: too large to read") from None
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
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) < 19:
        return int(value)
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
                ranks = pg.get("ranks")
                parsed = json.loads(ranks) if isinstance(ranks, str) and len(ranks) < 1 << 20 else ranks
                if isinstance(parsed, list) and all(isinstance(r, int) for r in parsed):
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
        if not p2p:
            for seq in range(start, frontier + 1):
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
    if world:
        members |= set(range(world))
    missing = sorted(members - set(dumps)) if dumps else []
    return FlightReport(dumps, first, behind, missing)
