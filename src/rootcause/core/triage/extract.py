"""Line extractors: one cleaned log line in, typed facts out.

Every format comes from the library's own source; /work/shared/reference/nccl-message-formats.md
collects them by version with their sources (the section is named on each regex below).
Every regex is a simple linear-time pattern: no nested quantifiers, no backreferences.
Each extractor is guarded by a cheap substring test, so most lines cost one `in` check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Literal prefilter: a line reaches the extractors only if it contains one of these.
# (Case-sensitive byte strings; they are the fixed parts of the formats below.)
KEYWORDS: tuple[bytes, ...] = (
    b"collective operation timeout",  # §2.1 watchdog timeout
    b"timed out in",  # §2.1 blocking wait, monitoredBarrier
    b"detected by watchdog",  # §2.2 PG status (2.3–2.5 and 2.6+)
    b"Timeout at NCCL work",  # §2.2 (2.3–2.5)
    b"ast enqueued",  # §2.2 periodic update, §2.11 dump signal
    b"dump signal",  # §2.11
    b"signal dumping",  # §2.11 "First PG on this rank to signal dumping."
    b"async exception",  # §2.6
    b"NCCL WARN",  # §5.1
    b"Init COMPLETE",  # §5.2
    b"localRank",  # §5.2 "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d"
    b"Using",  # §5.2 "Bootstrap : Using", "NET/IB : Using … OOB", "NET/Socket : Using"
    b"initialization options",  # §2.12 init banner (2.4+)
    b"Error",
    b"Exception",
    b"what():",  # std::terminate
    b"terminate called",
    b"Timed out waiting",  # §4.1 Gloo
    b"closed by peer",  # §4.1 Gloo
    b"Read error",  # §4.1 Gloo
    b"monitoredBarrier",  # §4.2
    b"Detected mismatch",  # ProcessGroupWrapper fingerprint check
    b"expected size",  # Gloo "Received data size doesn't match expected size"
    b"lagging",  # §2.9 desync report
    b"joined but",  # §2.9
    b"finished collective",  # §2.9
    b"Timeout at collective",  # §2.9
    b"communicator was aborted",  # §2.8
    b"exitcode",  # §4.4 ChildFailedError block, agent "failed (exitcode: …)"
    b"closing signal",  # §4.4 agent
    b"death signal",  # §4.4 agent
    b"Root Cause",  # §4.4
    b"Failures:",  # §4.4
    b"time      :",  # §4.4 block fields
    b"host      :",
    b"rank      :",
    b"error_file:",
    b"traceback :",
    b"CUDA error",
    b"out of memory",
    b"Terminating the process",  # §2.10/§2.11 FATAL tear-down
    b"watchdog got stuck",  # §2.10
    b"watchdog thread terminated",  # §2.5
    b"Some NCCL operations",  # §2.4
    b"launched up to operation",  # NCCL RAS (ncclras, 2.24+) src/ras/client_support.cc
    b"not launched any operations",  # NCCL RAS
    b"Traceback (most recent call last)",  # Python tracebacks: console, stderr.log, error.json's py_callstack
    b'File "',  # a traceback frame (CPython traceback.py: '  File "{}", line {}, in {}')
    b'File \\"',  # the same frame inside error.json's JSON string
    b"distributed_c10d.py:",  # a py-spy dump frame of a collective: "    all_reduce (…/distributed_c10d.py:2501)"
)

# ---------------------------------------------------------------------------------------------
# facts


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
)


@dataclass(slots=True)
class LineFacts:
    facts: list[Fact]
    pg_rank: int | None = None  # rank named in a PyTorch PG prefix "[PG … Rank 3]" / "[Rank 3]"
    pg: str | None = None
    nccl_host: str | None = None  # "host:pid:tid [dev]" prefix of NCCL's own lines
    nccl_pid: int | None = None
    nccl_dev: int | None = None


# ---------------------------------------------------------------------------------------------
# formats

# §5.1 NCCL line prefix (src/debug.cc, v2.10.3 :148-157, v2.18.3 :172-181, HEAD :286-365); a 2.26+
# "[YYYY-MM-DD HH:MM:SS] " timestamp before it is removed by strip_framing.
_NCCL_LINE = re.compile(
    r"(?:^|\s)(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] "
    r"(?:(?P<file>[\w./-]+):(?P<ln>\d+) (?:\(\w+\) )?NCCL (?P<w>WARN)|[\d.]+ [\w:]+ NCCL TRACE|NCCL INFO) ?(?P<msg>.*)$"
)
# §5.2 Init COMPLETE: ≤2.17 "comm %p rank %d nranks %d cudaDev %d busId %lx - Init COMPLETE";
# 2.18+ adds "nvmlDev %d" and "commId"; 2.21+ puts the API name first (src/init.cc per tag).
_INIT = re.compile(
    r"comm \S+ rank (?P<rank>\d+) nranks (?P<nranks>\d+) cudaDev (?P<dev>\d+)(?: nvmlDev \d+)?"
    r" busId (?P<bus>[0-9a-fA-F]+)"
)
# §5.2 "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"
_LOCAL = re.compile(r"nNodes (?P<nnodes>\d+) localRanks \d+ localRank (?P<local>\d+)")
# §5.2 "Bootstrap : Using eth0:10.1.2.3<0>" (2.24+: "Bootstrap: Using"), "NET/IB : Using … ; OOB eth0:10.1.2.3<0>",
# "NET/Socket : Using [0]eth0:10.1.2.3<0>"; the address is "%s<%s>" (src/misc/socket.cc ncclSocketToString).
_BOOTSTRAP = re.compile(r"Bootstrap ?: Using (?:\[\d+\])?(?P<if>[^\s:]+):(?P<ip>[^\s<]+)<\d+>")
_OOB = re.compile(r"OOB (?P<if>[^\s:]+):(?P<ip>[^\s<]+)<\d+>")
_NET_SOCKET = re.compile(r"NET/Socket : Using \[0\](?P<if>[^\s:]+):(?P<ip>[^\s<]+)<\d+>")
# §5.3 IB completion error, every generation: "with error %d, opcode" (≤2.20), "with status=%d opcode="
# (2.21–2.28.3), "with status=%s(%d) opcode=%s(%d)" (2.28.9+); "hca %s" from 2.23 (src/transport/net_ib*.cc).
_IB_COMPLETION = re.compile(
    r"Got completion from peer (?P<peer>[^\s<]+)<\d+> with (?:error |status=)"
    r"(?:(?P<sname>[A-Za-z_]\w*)\()?(?P<code>\d+)"
)
_HCA = re.compile(r" hca (?P<hca>[\w.:-]+)")
# §5.3 IB async events: "NET/IB : Got async event : %s" (≤2.18), "NET/IB : %s:%d Got async error event: %s" (2.21+),
# "NET/IB : %s:%d async fatal event: %s" (HEAD).
_IB_ASYNC = re.compile(r"NET/IB ?: (?:(?P<hca>[\w.-]+):\d+ )?(?:Got )?(?:async|non-fatal async)\b")
# §5.3 sockets: "socketProgress: Connection closed by remote peer %s" (≤2.17 "Net : Connection closed …"),
# "socketProgressOpt: Call to recv from %s failed", "socketStartConnect: Connect to %s failed".
_SOCKET_PEER = re.compile(r"(?:closed by remote peer|Call to \w+ from|Connect to) (?P<peer>[^\s<]+)<\d+>")
_SUBNET = re.compile(r"same subnet as remote address (?P<peer>[^\s<]+)")

# §1b PG prefix: "[Rank r]" (1.10–2.2, and WorkNCCL in every 2.x), "[PG u Rank r]" (2.3), "[PG u (desc) Rank r]" (2.4),
# "[PG ID i PG GUID g(desc) Rank r]" (2.5+); ProcessGroupNCCL::createLogPrefix().
_PG_PREFIX = re.compile(
    r"\[(?:PG ID (?P<pgid>\d+) PG GUID [^\s\]]+(?: \([^)\]]*\))?|PG (?P<uid>\d+)(?: \([^)\]]*\))?) Rank (?P<r>\d+)\]"
)
_RANK_PREFIX = re.compile(r"\[Rank (?P<r>\d+)\]")

# §2.1 WorkNCCL as printed by operator<<: 1.10–1.13 SeqNum/OpType[/TensorShape]/Timeout, 2.0 without Numel,
# 2.1+ with NumelIn/NumelOut (P2.6 ProcessGroupNCCL.cpp:432-450).
_WORK = re.compile(
    r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:, TensorShape=\[[^\]]*\])?"
    r"(?:, NumelIn=(?P<nin>-?\d+), NumelOut=(?P<nout>-?\d+))?, Timeout\(ms\)=(?P<to>\d+)\)"
)
_RAN_FOR = re.compile(r"\) ran for (?P<ran>\d+) milliseconds before timing out")
# §2.2 PG status lines.
_STATUS_OLD = re.compile(
    r"(?:Timeout at NCCL work|detected by watchdog at work): (?P<seq>-?\d+), "
    r"last enqueued NCCL work: (?P<enq>-?\d+), last completed NCCL work: (?P<done>-?\d+)"
)
_STATUS_NEW = re.compile(
    r"failure detected by watchdog at work sequence id: (?P<seq>-?\d+) PG status: last enqueued work: (?P<enq>-?\d+),"
    r"(?: last started work: (?P<st>-?\d+)(?: \(\w+\))?,)? last completed work: (?P<done>-?\d+)"
)
_STATUS_PERIODIC = re.compile(
    r"last enqueued \w+ work: (?P<enq>-?\d+),(?: last started \w+ work: (?P<st>-?\d+),)? "
    r"last completed \w+ work: (?P<done>-?\d+)",
    re.IGNORECASE,
)
# §2.11 "Received a dump signal due to a collective timeout from <this local rank| rank N> and we will try …"
_DUMP_FROM = re.compile(
    r"dump signal due to a collective timeout from +(?:(?P<self>this local rank)|rank (?P<from>\d+))"
)
# §2.12 "ProcessGroupNCCL initialization options: size: <n>, global rank: <r>, …" (2.4+)
_INIT_OPTIONS = re.compile(r"initialization options: size: (?P<size>\d+)")

# §4.1 Gloo transport (gloo/transport/tcp/unbound_buffer.cc, pair.cc; address.cc "[<ip>]:<port>").
_GLOO_TIMEOUT = re.compile(r"Timed out waiting (?P<ms>\d+)ms for (?P<what>recv|send) operation to complete")
_GLOO_PEER = re.compile(
    r"(?:Connection closed by peer|Read error|Socket closed|Write timeout|Read timeout) \[(?P<ip>[^\]]+)\]"
)
# §4.2 monitoredBarrier (ProcessGroupGloo.cpp): "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 5000 ms",
# "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 5000 ms".
_BARRIER = re.compile(r"Ranks? (?P<ranks>\d+(?:, \d+)*) failed to pass monitoredBarrier in (?P<ms>\d+) ms")
# ProcessGroupWrapper.cpp (TORCH_DISTRIBUTED_DEBUG=DETAIL): "Detected mismatch between collectives on ranks. Rank <r>
# is running collective: <fp>, but Rank <r2> is running collective: <fp2>." with operator<< of CollectiveFingerPrint:
# "CollectiveFingerPrint(SequenceNumber=<n>, OpType=<OP>, TensorShape=[<sizes>], TensorDtypes=…" (no tensors:
# "CollectiveFingerPrint(SequenceNumber=<n>OpType=<OP>)").
_FP_RANK = re.compile(
    r"Rank (?P<r>\d+) is running collective: CollectiveFingerPrint\(SequenceNumber=(?P<seq>\d+),? ?"
    r"OpType=(?P<op>\w+)(?:, TensorShape=\[(?P<shape>[^\]]*)\])?"
)
_SIZE_MISMATCH = re.compile(r"(?<!\d)(?P<a>\d+) vs (?P<b>\d+)\. Received data size doesn't match expected size")
# §2.9 desync report (torch/csrc/distributed/c10d/TraceUtils.h retrieveDesyncReport, identical 1.13 → 2.6).
_DESYNC_AT = re.compile(r"\[(?P<r>\d+)\] Timeout at collective: (?P<op>\w+), #(?P<seq>\d+)")
_NEVER_JOINED = re.compile(r"ranks \[(?P<ranks>[\d, ]*)\] are the lagging ranks")
_JOINED_NOT_FINISHED = re.compile(r"\[(?P<ranks>[\d, ]*)\] joined but didn't finish collective #(?P<seq>\d+)")
_FINISHED_NOT_JOINED = re.compile(r"\[(?P<ranks>[\d, ]*)\] finished collective #(?P<seq>\d+), but didn't join")

# §4.4 torchrun: agent lines (elastic/multiprocessing/api.py) and the ChildFailedError block (errors/__init__.py).
_AGENT_FAILED = re.compile(r"failed \(exitcode: (?P<code>-?\d+)\) local_rank: (?P<lr>\d+) \(pid: (?P<pid>\d+)\)")
_AGENT_SIGTERM = re.compile(r"Sending process (?P<pid>\d+) closing signal (?P<sig>SIG\w+)")
_AGENT_DEATH = re.compile(r"Received (?:Signals\.)?(?P<sig>SIG\w+|\d+) death signal")
_BLOCK_FIELD = re.compile(r"^(?P<name>time|host|rank|exitcode|error_file|traceback) *: ?(?P<value>.*)$")

# Python exception lines "pkg.module.SomeError: message"; C++ "terminate called after throwing an instance of 'T'"
# and "  what():  message".
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))(?:: ?(?P<msg>.*))?$")
_TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'")
_WHAT = re.compile(r"^\s*what\(\): +(?P<msg>.*)$")
_ASYNC = re.compile(r"raised the following async exception: (?P<msg>.*)$")

_TIMEOUT_WORDS = (
    "collective operation timeout",
    "Timed out waiting",
    "timed out in blocking wait",
    "timed out in call to wait",
    "failed to pass monitoredBarrier",
    "wait timeout after",
    "Socket Timeout",
    "detected a collective timeout",
    "Timeout at NCCL work",
)
_PEER_WORDS = (
    # ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL): the monitored barrier it runs before each collective
    # failed because another rank had gone (ProcessGroupWrapper.cpp runCollectiveChecks)
    "Monitored Barrier encountered error",
    "closed by peer",
    "closed by remote peer",
    "Connection reset by peer",
    "Read error",
    "Socket closed",
    "Broken pipe",
    "caused pair closure",
    "remote process exited",
    "ncclRemoteError",
    "unhandled system error",
    "ncclSystemError",
    "received errors while waiting for send/recv",
    "DistNetworkError",
)
_DESYNC_WORDS = ("Detected mismatch between collectives", "doesn't match expected size", "collective mismatch")
_ABORT_WORDS = (
    "communicator was aborted",
    "watchdog thread terminated",
    "Some NCCL operations have failed",
    "Terminating the process after attempting to dump",
    "watchdog got stuck",
    "Heartbeat monitor timed out",
    "dump signal",
    "Process Group destroyed",
    "Process Group shutdown",
)


_TEARDOWN_WORDS = (
    "Terminating the process after attempting to dump",
    "watchdog got stuck",
    "Some NCCL operations have failed",
    "watchdog thread terminated with exception",
)


def classify(type_: str, message: str) -> str:
    """Whose failure is this? own, or a consequence of another rank's (timeout, peer, desync, abort)."""
    text = f"{type_}: {message}"
    if "ChildFailedError" in type_:
        return "wrapper"
    if type_.endswith("KeyboardInterrupt") or "SignalException" in type_:
        return "signal"
    if any(w in text for w in _DESYNC_WORDS):
        return "desync"
    if any(w in text for w in _TIMEOUT_WORDS):
        return "timeout"
    if any(w in text for w in _PEER_WORDS):
        return "peer"
    if any(w in text for w in _ABORT_WORDS):
        return "abort"
    return "own"


def _ranks(text: str) -> list[int]:
    return [int(p) for p in text.replace(" ", "").split(",") if p.isdigit()]


def _int(value: str | None) -> int | None:
    return None if value is None else int(value)


# ---------------------------------------------------------------------------------------------
# the extractor


def extract(text: str) -> LineFacts:
    """Facts on one line whose framing (ANSI, timestamps, [rankN]:, Slurm labels) is already stripped."""
    out = LineFacts([])
    facts = out.facts
    if "NCCL " in text:
        m = _NCCL_LINE.search(text)
        if m is not None:
            out.nccl_host, out.nccl_pid, out.nccl_dev = m["host"], int(m["pid"]), int(m["dev"])
            _nccl_message(m["msg"], m["w"] is not None, facts)
            if facts or m["w"] is not None:
                return out
    if "Rank " in text:
        m = _PG_PREFIX.search(text)
        if m is not None:
            out.pg_rank, out.pg = int(m["r"]), m["pgid"] or m["uid"]
        else:
            m2 = _RANK_PREFIX.search(text)
            if m2 is not None:
                out.pg_rank = int(m2["r"])
    _torch_message(text, facts)
    return out


def _nccl_message(msg: str, warn: bool, facts: list[Fact]) -> None:
    if "Init COMPLETE" in msg:
        m = _INIT.search(msg)
        if m is not None:
            facts.append(NcclInit(int(m["rank"]), int(m["nranks"]), int(m["dev"]), m["bus"]))
        return
    if "localRank " in msg:
        m = _LOCAL.search(msg)
        if m is not None:
            facts.append(NcclLocal(int(m["local"]), int(m["nnodes"])))
        return
    if "Using" in msg:
        m = _BOOTSTRAP.search(msg) or _OOB.search(msg) or _NET_SOCKET.search(msg)
        if m is not None:
            facts.append(NcclAddr(m["if"], m["ip"]))
        return
    if warn:
        facts.append(_nccl_warn(msg))


def _nccl_warn(msg: str) -> NcclWarn:
    if "Got completion from peer" in msg:
        m = _IB_COMPLETION.search(msg)
        if m is not None:
            hca = _HCA.search(msg)
            status = f"{m['sname']}({m['code']})" if m["sname"] else m["code"]
            return NcclWarn("ib", msg, m["peer"], hca["hca"] if hca else None, status)
    if "NET/IB" in msg and "async" in msg:
        m = _IB_ASYNC.search(msg)
        return NcclWarn("ib", msg, None, m["hca"] if m else None)
    if "remote peer" in msg or " failed" in msg:
        m = _SOCKET_PEER.search(msg)
        if m is not None:
            return NcclWarn("socket", msg, m["peer"])
    if "Cuda failure" in msg or "CUDA" in msg:
        return NcclWarn("cuda", msg)
    if "subnet" in msg or "interface" in msg:
        m = _SUBNET.search(msg)
        return NcclWarn("config", msg, m["peer"] if m else None)
    if "NET/" in msg or "socket" in msg.lower() or "ibv_" in msg:
        return NcclWarn("socket" if "NET/IB" not in msg and "ibv_" not in msg else "ib", msg)
    return NcclWarn("other", msg)


# CPython's traceback.py: '  File "{filename}", line {lineno}, in {name}'; in error.json (torch.distributed.
# elastic's @record) the same text sits in a JSON string, quotes escaped as \\".
_FRAME = re.compile(r'File \\?"(?P<file>[^"\\]{1,400})\\?", line (?P<line>\d{1,9}), in (?P<func>[\w<>.]{1,200})')
# py-spy dump (src/dump.rs): '    {name} ({short_filename}:{line})', innermost frame first.
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>[\w<>.]{1,200}) \((?P<file>[^()\s]{1,400}\.py):(?P<line>\d{1,9})\)\s*$")


def _frames(text: str, facts: list[Fact]) -> bool:
    """Traceback starts and frames on this line, in order; True when the line is (only) a stack line."""
    found = False
    if "Traceback (most recent call last)" in text:
        for i, part in enumerate(text.split("Traceback (most recent call last)")):
            if i:
                facts.append(TraceStart())
            for m in _FRAME.finditer(part):
                facts.append(Frame(m["file"], int(m["line"]), m["func"]))
        return '"message"' not in text  # error.json: its message is read as well
    if 'File "' in text or 'File \\"' in text:
        for m in _FRAME.finditer(text):
            facts.append(Frame(m["file"], int(m["line"]), m["func"]))
            found = True
        return found and '"message"' not in text
    if "distributed_c10d.py:" in text:
        m = _PYSPY_FRAME.match(text)
        if m is not None:
            facts.append(Frame(m["file"], int(m["line"]), m["func"], True))
            return True
    return False


def _torch_message(text: str, facts: list[Fact]) -> None:
    if _frames(text, facts):
        return
    if "WorkNCCL(" in text and ("timeout" in text or "timed out" in text or "timing out" in text):
        m = _WORK.search(text)
        if m is not None:
            ran = _RAN_FOR.search(text, m.end() - 1)
            facts.append(
                Timeout(
                    "nccl",
                    _int(m["seq"]),
                    m["op"],
                    _int(m["nin"]),
                    _int(m["nout"]),
                    int(m["to"]),
                    _int(ran["ran"]) if ran else None,
                )
            )
    if "enqueued" in text:
        m = _STATUS_NEW.search(text) or _STATUS_OLD.search(text)
        if m is not None:
            started = m["st"] if "st" in m.re.groupindex else None
            facts.append(PgStatus(int(m["seq"]), int(m["enq"]), int(m["done"]), _int(started)))
        else:
            m = _STATUS_PERIODIC.search(text)
            if m is not None:
                facts.append(PgStatus(None, int(m["enq"]), int(m["done"]), _int(m["st"])))
    if "dump signal due to" in text:
        m = _DUMP_FROM.search(text)
        if m is not None:
            facts.append(DumpSignal(_int(m["from"]), m["self"] is not None))
    elif "First PG on this rank to signal dumping" in text:
        facts.append(DumpSignal(None, True))
    if "initialization options" in text:
        m = _INIT_OPTIONS.search(text)
        if m is not None:
            facts.append(WorldSize(int(m["size"])))
    if "Timed out waiting" in text and not facts:
        m = _GLOO_TIMEOUT.search(text)
        if m is not None:
            facts.append(Timeout("gloo", timeout_ms=int(m["ms"])))
    if "monitoredBarrier in" in text:
        m = _BARRIER.search(text)
        if m is not None:
            facts.append(BarrierFail(_ranks(m["ranks"]), int(m["ms"])))
    if "is running collective" in text:
        fps = _FP_RANK.findall(text)
        if len(fps) >= 2:
            (r1, s1, o1, sh1), (r2, s2, o2, sh2) = fps[0], fps[1]
            facts.append(Fingerprint(int(r1), int(s1), o1, sh1 or None, int(r2), int(s2), o2, sh2 or None))
    if "expected size" in text:
        m = _SIZE_MISMATCH.search(text)
        if m is not None:
            facts.append(SizeMismatch(f"received {m['a']} bytes, expected at most {m['b']}"))
    _desync_report(text, facts)
    _launcher(text, facts)
    _exception(text, facts)


_RAS_GROUP = re.compile(
    r"^\s*(?P<count>\d+) ranks have (?:launched up to operation (?P<ops>\d+)|not launched any operations)"
)
_RAS_RANK = re.compile(
    r"^\s*Rank (?P<rank>\d+) has (?:launched up to operation (?P<ops>\d+)|not launched any operations)"
    r"(?: -- GPU .*? on node (?P<node>\S+))?"
)


def _ras(text: str, facts: list[Fact]) -> None:
    m = _RAS_RANK.search(text)
    if m is not None:
        facts.append(RasCount(int(m["rank"]), int(m["ops"] or 0), 1, m["node"]))
        return
    g = _RAS_GROUP.search(text)
    if g is not None:
        facts.append(RasCount(None, int(g["ops"] or 0), int(g["count"])))


def _desync_report(text: str, facts: list[Fact]) -> None:
    if "launched up to operation" in text or "not launched any operations" in text:
        _ras(text, facts)
        return
    if "Timeout at collective" in text:
        m = _DESYNC_AT.search(text)
        if m is not None:
            facts.append(DesyncAt(int(m["r"]), m["op"], int(m["seq"])))
    if "lagging ranks" in text:
        m = _NEVER_JOINED.search(text)
        if m is not None:
            facts.append(Lagging(_ranks(m["ranks"]), "never-joined"))
    if "joined but" in text:
        m = _JOINED_NOT_FINISHED.search(text)
        if m is not None:
            facts.append(Lagging(_ranks(m["ranks"]), "joined-not-finished", int(m["seq"])))
    if "finished collective #" in text:
        m = _FINISHED_NOT_JOINED.search(text)
        if m is not None:
            facts.append(Lagging(_ranks(m["ranks"]), "finished-not-joined", int(m["seq"])))


def _launcher(text: str, facts: list[Fact]) -> None:
    if "exitcode" in text and "local_rank:" in text and "failed (" in text:
        m = _AGENT_FAILED.search(text)
        if m is not None:
            facts.append(AgentExit(int(m["code"]), int(m["lr"]), int(m["pid"])))
            return
    if "closing signal" in text:
        m = _AGENT_SIGTERM.search(text)
        if m is not None:
            facts.append(AgentSignal(int(m["pid"]), m["sig"], death=False))
            return
    if "death signal" in text:
        m = _AGENT_DEATH.search(text)
        if m is not None:
            sig = m["sig"]
            facts.append(AgentSignal(None, sig if not sig.isdigit() else f"signal {sig}", death=True))
            return
    if text.startswith("Root Cause (first observed failure)"):
        facts.append(BlockHeading(root=True))
    elif text.startswith("Failures:"):
        facts.append(BlockHeading(root=False))
    stripped = text.strip()
    if " : " in stripped[:12] or stripped.startswith("error_file:"):
        m = _BLOCK_FIELD.match(stripped)
        if m is not None:
            facts.append(BlockField(m["name"], m["value"].strip()))


def _exception(text: str, facts: list[Fact]) -> None:
    if "terminate called" in text:
        m = _TERMINATE.search(text)
        if m is not None:
            facts.append(Raised(m["type"], "", "pending"))
        return
    if "what():" in text:
        m = _WHAT.match(text)
        if m is not None:
            msg = m["msg"].strip()
            facts.append(Raised("C++ exception", msg, classify("", msg), _peer_of(msg)))
        return
    if "async exception" in text:
        m = _ASYNC.search(text)
        if m is not None:
            msg = m["msg"].strip()
            facts.append(Raised("NCCL async error", msg, classify("NCCL", msg), _peer_of(msg)))
        return
    if "Error" in text or "Exception" in text or "Interrupt" in text or "Exit" in text:
        m = _EXCEPTION.match(text.strip())
        if m is not None:
            type_, msg = m["type"], (m["msg"] or "").strip()
            facts.append(Raised(type_, msg, classify(type_, msg), _peer_of(msg)))
            return
    # c10 ERROR/FATAL lines of the tear-down (§2.4, §2.5, §2.10, §2.11): consequences, never causes.
    if any(w in text for w in _TEARDOWN_WORDS):
        facts.append(Raised("ProcessGroupNCCL", text[text.rfind("] ") + 2 :][:300], "abort"))


def _peer_of(message: str) -> str | None:
    if "[" not in message:
        return None
    m = _GLOO_PEER.search(message)
    return m["ip"] if m else None
