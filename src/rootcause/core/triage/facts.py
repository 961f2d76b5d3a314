"""The typed facts the line extractors find: one cleaned log line in, a `LineFacts` out (see `extract`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Timeout:
    backend: str  # nccl | gloo
    seq: int | None = None
    op: str | None = None
    numel_in: int | None = None
    numel_out: int | None = None
    timeout_ms: int | None = None
    elapsed_ms: int | None = None


@dataclass(slots=True)
class PgStatus:
    seq: int | None
    enqueued: int | None
    completed: int | None
    started: int | None = None
    pg: str | None = None


@dataclass(slots=True)
class DumpSignal:
    from_rank: int | None  # None: "this local rank" (its own watchdog fired)
    own: bool


@dataclass(slots=True)
class NcclInit:
    rank: int
    nranks: int
    cuda_dev: int
    bus_id: str


@dataclass(slots=True)
class NcclLocal:
    local_rank: int
    nnodes: int


@dataclass(slots=True)
class NcclAddr:
    ifname: str
    ip: str


@dataclass(slots=True)
class NcclWarn:
    category: str  # ib | socket | cuda | config | other
    message: str
    peer: str | None = None  # ip or host of the remote end
    hca: str | None = None  # local NIC
    status: str | None = None


@dataclass(slots=True)
class Raised:
    type: str
    message: str
    category: str  # own | timeout | peer | desync | abort | signal | wrapper
    peer: str | None = None


@dataclass(slots=True)
class RasCount:
    """NCCL RAS (`ncclras`, NCCL 2.24+, src/ras/client_support.cc) under a communicator's MISMATCH warning:
    "  %d ranks have launched up to operation %ld" (``rank`` None, ``count`` ranks), or one outlier
    "  Rank %d has launched up to operation %ld -- GPU …" / "  Rank %d has not launched any operations -- …"
    (``ops`` 0). The rank is the rank in the communicator."""

    rank: int | None
    ops: int
    count: int = 1
    node: str | None = None


@dataclass(slots=True)
class TraceStart:
    """'Traceback (most recent call last):' (frames follow, outermost first)."""


@dataclass(slots=True)
class Frame:
    """One Python stack frame: a traceback's 'File "f", line n, in func', or a py-spy dump's
    '    func (f:n)' (innermost first, so ``innermost_first``)."""

    file: str
    line: int
    func: str
    innermost_first: bool = False


@dataclass(slots=True)
class Fingerprint:
    """ProcessGroupWrapper: this rank's collective and a peer's, which differ."""

    rank: int
    seq: int
    op: str
    shape: str | None
    other_rank: int
    other_seq: int
    other_op: str
    other_shape: str | None
    dtype: str | None = None
    other_dtype: str | None = None


@dataclass(slots=True)
class SizeMismatch:
    detail: str


@dataclass(slots=True)
class Lagging:
    ranks: list[int]
    how: str  # never-joined | joined-not-finished | finished-not-joined
    seq: int | None = None


@dataclass(slots=True)
class DesyncAt:
    rank: int
    op: str
    seq: int


@dataclass(slots=True)
class BarrierFail:
    ranks: list[int]
    timeout_ms: int


@dataclass(slots=True)
class WorldSize:
    size: int


@dataclass(slots=True)
class NotInGroup:
    """`Running all_reduce on global rank 2 which does not belong to the given group.` (distributed_c10d.py
    `_warn_not_in_group`): the call was skipped on that rank."""

    op: str
    rank: int


@dataclass(slots=True)
class StoreWait:
    """`DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/4`: the store key a rank waited
    for; Gloo's full-mesh connect waits for one key per peer, ending in that peer's rank."""

    key: str
    peer: int | None


@dataclass(slots=True)
class RootConfig:
    """A logged setting that names a root rank (`broadcast_src=1`, `reduce_dst=0`, `src_rank: 3`)."""

    name: str
    value: int


@dataclass(slots=True)
class AgentExit:
    exit_code: int
    local_rank: int
    pid: int


@dataclass(slots=True)
class AgentSignal:
    pid: int | None
    signal: str
    death: bool  # True: the launcher itself received the signal


@dataclass(slots=True)
class BlockHeading:
    root: bool


@dataclass(slots=True)
class BlockField:
    name: str
    value: str


Fact = (
    RasCount
    | TraceStart
    | Frame
    | Timeout
    | PgStatus
    | DumpSignal
    | NcclInit
    | NcclLocal
    | NcclAddr
    | NcclWarn
    | Raised
    | Fingerprint
    | SizeMismatch
    | Lagging
    | DesyncAt
    | BarrierFail
    | WorldSize
    | AgentExit
    | AgentSignal
    | BlockHeading
    | BlockField
    | NotInGroup
    | StoreWait
    | RootConfig
)


@dataclass(slots=True)
class LineFacts:
    facts: list[Fact]
    pg_rank: int | None = None  # rank named in a PyTorch PG prefix "[PG … Rank 3]" / "[Rank 3]"
    pg: str | None = None
    nccl_host: str | None = None  # "host:pid:tid [dev]" prefix of NCCL's own lines
    nccl_pid: int | None = None
    nccl_dev: int | None = None
