"""NCCL's own lines (`host:pid:tid [dev] NCCL INFO/WARN …`): init, local rank, addresses, transport warnings,
and the RAS client's per-rank operation counts. Formats: /work/shared/reference/nccl-message-formats.md (§5)."""

from __future__ import annotations

import re

from rootcause.core.triage.facts import (
    Fact,
    NcclAddr,
    NcclInit,
    NcclLocal,
    NcclWarn,
    RasCount,
)

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
