"""Line extractors: one cleaned log line in, typed facts out. This module holds the literal prefilter, the
PyTorch c10d messages (watchdog, PG status, dumps, Gloo, DETAIL fingerprints, the desync report) and the
entry point; NCCL's own lines, torchrun's and the errors and stacks have their own modules.

Every format comes from the library's own source; /work/shared/reference/nccl-message-formats.md
collects them by version with their sources (the section is named on each regex below).
Every regex is a simple linear-time pattern: no nested quantifiers, no backreferences.
Each extractor is guarded by a cheap substring test, so most lines cost one `in` check.
"""

from __future__ import annotations

import re

from rootcause.core.triage.extract_errors import _exception, _frames, classify
from rootcause.core.triage.extract_launcher import _launcher
from rootcause.core.triage.extract_nccl import _NCCL_LINE, _nccl_message, _ras
from rootcause.core.triage.facts import (
    AgentExit,
    AgentSignal,
    BarrierFail,
    BlockField,
    BlockHeading,
    DesyncAt,
    DumpSignal,
    Fact,
    Fingerprint,
    Frame,
    Lagging,
    LineFacts,
    NcclAddr,
    NcclInit,
    NcclLocal,
    NcclWarn,
    NotInGroup,
    PgStatus,
    Raised,
    RasCount,
    RootConfig,
    SizeMismatch,
    StoreWait,
    Timeout,
    TraceStart,
    WorldSize,
)
from rootcause.core.triage.keywords import KEYWORDS

__all__ = [
    "KEYWORDS",
    "AgentExit",
    "AgentSignal",
    "BarrierFail",
    "BlockField",
    "BlockHeading",
    "DesyncAt",
    "DumpSignal",
    "Fact",
    "Fingerprint",
    "Frame",
    "Lagging",
    "LineFacts",
    "NcclAddr",
    "NcclInit",
    "NcclLocal",
    "NcclWarn",
    "NotInGroup",
    "PgStatus",
    "Raised",
    "RasCount",
    "RootConfig",
    "SizeMismatch",
    "StoreWait",
    "Timeout",
    "TraceStart",
    "WorldSize",
    "classify",
    "extract",
]


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

# §4.2 monitoredBarrier (ProcessGroupGloo.cpp): "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 5000 ms",
# "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 5000 ms".
_BARRIER = re.compile(r"Ranks? (?P<ranks>\d+(?:, \d+)*) failed to pass monitoredBarrier in (?P<ms>\d+) ms")

# ProcessGroupWrapper.cpp (TORCH_DISTRIBUTED_DEBUG=DETAIL): "Detected mismatch between collectives on ranks. Rank <r>
# is running collective: <fp>, but Rank <r2> is running collective: <fp2>." with operator<< of CollectiveFingerPrint:
# "CollectiveFingerPrint(SequenceNumber=<n>, OpType=<OP>, TensorShape=[<sizes>], TensorDtypes=…" (no tensors:
# "CollectiveFingerPrint(SequenceNumber=<n>OpType=<OP>)").
_FP_RANK = re.compile(
    r"Rank (?P<r>\d+) is running collective: CollectiveFingerPrint\(SequenceNumber=(?P<seq>\d+),? ?"
    r"OpType=(?P<op>\w+)(?:, TensorShape=\[(?P<shape>[^\]]*)\])?(?:, TensorDtypes=(?P<dtype>[^,)]*))?"
)

_SIZE_MISMATCH = re.compile(r"(?<!\d)(?P<a>\d+) vs (?P<b>\d+)\. Received data size doesn't match expected size")
# §2.9 desync report (torch/csrc/distributed/c10d/TraceUtils.h retrieveDesyncReport, identical 1.13 → 2.6).
_DESYNC_AT = re.compile(r"\[(?P<r>\d+)\] Timeout at collective: (?P<op>\w+), #(?P<seq>\d+)")

_NEVER_JOINED = re.compile(r"ranks \[(?P<ranks>[\d, ]*)\] are the lagging ranks")

_JOINED_NOT_FINISHED = re.compile(r"\[(?P<ranks>[\d, ]*)\] joined but didn't finish collective #(?P<seq>\d+)")

_FINISHED_NOT_JOINED = re.compile(r"\[(?P<ranks>[\d, ]*)\] finished collective #(?P<seq>\d+), but didn't join")
# distributed_c10d.py _warn_not_in_group (1.x → 2.13)
_NOT_IN_GROUP = re.compile(r"Running (?P<op>\w+) on global rank (?P<rank>\d+) which does not belong to the given group")
# TCPStore wait (c10d/TCPStore.cpp "wait timeout after {}ms, keys: {}"); Gloo's key ends in the peer's rank
_STORE_WAIT = re.compile(r"wait timeout after \d+ms, keys: (?P<key>\S{1,300})")
_KEY_RANK = re.compile(r"/(?P<rank>\d{1,7})$")
# a root setting the job logged: "broadcast_src=1", "reduce_dst: 0", "src_rank=3"
_ROOT_CONFIG = re.compile(
    r"\b(?P<name>\w{0,40}(?:_src|_dst|_root)|src_rank|dst_rank|root_rank)\s?[=:]\s?(?P<v>\d{1,7})\b"
)


def _ranks(text: str) -> list[int]:
    return [int(p) for p in text.replace(" ", "").split(",") if p.isdigit()]


def _int(value: str | None) -> int | None:
    return None if value is None else int(value)


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
            (r1, s1, o1, sh1, d1), (r2, s2, o2, sh2, d2) = fps[0], fps[1]
            facts.append(
                Fingerprint(
                    int(r1), int(s1), o1, sh1 or None, int(r2), int(s2), o2, sh2 or None, d1 or None, d2 or None
                )
            )
    if "expected size" in text:
        m = _SIZE_MISMATCH.search(text)
        if m is not None:
            facts.append(SizeMismatch(f"received {m['a']} bytes, expected at most {m['b']}"))
    _desync_report(text, facts)
    _app_signals(text, facts)
    _launcher(text, facts)
    _exception(text, facts)


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


def _app_signals(text: str, facts: list[Fact]) -> None:
    """What the job and c10d's Python layer say about one rank: a skipped call, a store key waited for, a root."""
    if "does not belong" in text:
        m = _NOT_IN_GROUP.search(text)
        if m is not None:
            facts.append(NotInGroup(m["op"], int(m["rank"])))
    if "wait timeout after" in text:
        m = _STORE_WAIT.search(text)
        if m is not None:
            key = m["key"].rstrip(",.")
            k = _KEY_RANK.search(key)
            facts.append(StoreWait(key, int(k["rank"]) if k else None))
    if "_src" in text or "_dst" in text or "_root" in text or "_rank" in text:
        for m in _ROOT_CONFIG.finditer(text):
            facts.append(RootConfig(m["name"], int(m["v"])))
