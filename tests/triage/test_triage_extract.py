"""Line extractors, one format per PyTorch / NCCL generation.

Gloo and torchrun lines are copied from real runs of torch 2.13 on this machine (tests/fixtures/real);
the NCCL lines are built from the format strings of the sources named beside each case (the reference
note /work/shared/reference/nccl-message-formats.md lists them by version).
"""

from __future__ import annotations

import pytest

from rootcause.core.normalize import strip_framing
from rootcause.core.triage import extract as x
from rootcause.core.triage.clock import last_time, line_time
from rootcause.core.triage.torchrun_report import parse_exit as _parse_exit


def facts(line: str) -> list[x.Fact]:
    return x.extract(strip_framing(line).text).facts


def one(line: str, kind: type) -> x.Fact:
    found = [f for f in facts(line) if isinstance(f, kind)]
    assert found, f"no {kind.__name__} in {line!r}: {facts(line)}"
    return found[0]


# -- §2.1 watchdog timeouts --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "seq", "op", "numel", "timeout", "ran"),
    [
        # 1.10-1.13 (P1.13 ProcessGroupNCCL.cpp:290-317): no Numel fields
        (
            "[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=21, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800422 milliseconds before timing out.",
            21, "ALLREDUCE", None, 1800000, 1800422,
        ),
        # 2.1+ (P2.6 :432-450), c10 prefix of 2.4+ with the unpadded month of real logs
        (
            "[rank0]:[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=20585, OpType=ALLREDUCE, NumelIn=1259621, NumelOut=1259621, Timeout(ms)=600000) "
            "ran for 600000 milliseconds before timing out.",
            20585, "ALLREDUCE", 1259621, 600000, 600000,
        ),
        # 1.x blocking wait carries TensorShape (P1.13 :519-531)
        (
            "[Rank 1] Caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, TensorShape=[1024, 4], "
            "Timeout(ms)=60000) ran for 60017 milliseconds before timing out.",
            7, "BROADCAST", None, 60000, 60017,
        ),
        # 2.4+ blocking wait (P2.6 :752)
        (
            "[Rank 2] Work WorkNCCL(SeqNum=9, OpType=_ALLGATHER_BASE, NumelIn=4, NumelOut=32, Timeout(ms)=5000) "
            "timed out in blocking wait.",
            9, "_ALLGATHER_BASE", 4, 5000, None,
        ),
    ],
)  # fmt: skip
def test_watchdog_timeout(line: str, seq: int, op: str, numel: int | None, timeout: int, ran: int | None) -> None:
    t = one(line, x.Timeout)
    assert isinstance(t, x.Timeout)
    assert (t.backend, t.seq, t.op, t.numel_in, t.timeout_ms, t.elapsed_ms) == ("nccl", seq, op, numel, timeout, ran)


def test_async_exception_is_not_a_timeout() -> None:
    line = (
        "[rank34]:[E902 23:04:51.007010642 ProcessGroupNCCL.cpp:1568] [Rank 34] Collective WorkNCCL(SeqNum=20118, "
        "OpType=ALLREDUCE, NumelIn=50331648, NumelOut=50331648, Timeout(ms)=600000) raised the following async exception: "
        "NCCL error: remote process exited or there was a network error, NCCL version 2.23.4"
    )
    assert not [f for f in facts(line) if isinstance(f, x.Timeout)]
    raised = one(line, x.Raised)
    assert isinstance(raised, x.Raised) and raised.category == "peer"


# -- §2.2 PG status lines ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "seq", "enq", "done", "started"),
    [
        ("[rank3]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 3] Timeout at NCCL work: 902, last enqueued NCCL work: 902, "
         "last completed NCCL work: 901.", 902, 902, 901, None),  # 2.3
        ("[PG 0 (default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 5, last "
         "enqueued NCCL work: 6, last completed NCCL work: 4.", 5, 6, 4, None),  # 2.4-2.5
        ("[PG ID 0 PG GUID 0 Rank 1] Work timeout is detected by watchdog at work: 8, last enqueued NCCL work: 8, "
         "last completed NCCL work: 7.", 8, 8, 7, None),  # 2.5/2.6 dev
        ("[rank0]:[E709 17:05:38.162814866 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure "
         "detected by watchdog at work sequence id: 20585 PG status: last enqueued work: 20589, last completed work: "
         "20584", 20585, 20589, 20584, None),  # 2.6+ (P2.6 :2166-2174)
        ("[PG ID 0 PG GUID 0(default_pg) Rank 4]  failure detected by watchdog at work sequence id: 39 PG status: last "
         "enqueued work: 39, last started work: 19 (_ALLGATHER_BASE), last completed work: 17", 39, 39, 17, 19),  # ~2.13
        ("[PG ID 0 PG GUID 0(default_pg) Rank 0] NCCL Work update periodically: last enqueued NCCL work: 12, last "
         "completed NCCL work: 12.", None, 12, 12, None),  # 2.4+ INFO
        ("[rank1]:[E1218 20:27:21.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 1]  failure detected by "
         "watchdog at work sequence id: 1 PG status: last enqueued work: 547, last completed work: -1", 1, 547, -1, None),
    ],
)  # fmt: skip
def test_pg_status(line: str, seq: int | None, enq: int, done: int, started: int | None) -> None:
    st = one(line, x.PgStatus)
    assert isinstance(st, x.PgStatus)
    assert (st.seq, st.enqueued, st.completed, st.started) == (seq, enq, done, started)


@pytest.mark.parametrize(
    ("line", "from_rank", "own", "enq"),
    [
        # P2.6 :1585-1602: "from  rank 7" with two spaces (extraMsg " rank 7"), no space after ".This"
        ("[rank6]:[E703 21:51:54.112142364 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID 0(default_pg) Rank 6] Received a "
         "dump signal due to a collective timeout from  rank 7 and we will try our best to dump the debug info. Last "
         "enqueued NCCL work: 56116, last completed NCCL work: 56116.This is most likely caused by incorrect usages",
         7, False, 56116),
        ("[PG ID 0 PG GUID 0(default_pg) Rank 3] Received a dump signal due to a collective timeout from this local rank "
         "and we will try our best to dump the debug info. Last enqueued NCCL work: 1, last completed NCCL work: -1.This",
         None, True, 1),
    ],
)  # fmt: skip
def test_dump_signal(line: str, from_rank: int | None, own: bool, enq: int) -> None:
    d = one(line, x.DumpSignal)
    assert isinstance(d, x.DumpSignal) and (d.from_rank, d.own) == (from_rank, own)
    st = one(line, x.PgStatus)
    assert isinstance(st, x.PgStatus) and st.enqueued == enq and st.seq is None


def test_pg_prefix_rank_and_group() -> None:
    lf = x.extract("[PG ID 2 PG GUID 5(tp) Rank 1] failure detected by watchdog at work sequence id: 3 PG status: "
                   "last enqueued work: 3, last completed work: 2")  # fmt: skip
    assert (lf.pg_rank, lf.pg) == (1, "2")
    assert x.extract("[PG 0 (default_pg) Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed "
                     "NCCL work: 0.").pg_rank == 3  # fmt: skip


# -- §2.9 desync report, ProcessGroupWrapper fingerprints, Gloo ----------------------------------


def test_desync_report_lines() -> None:
    # TraceUtils.h retrieveDesyncReport: each piece starts with "\n\t"
    at = one("\t - [3] Timeout at collective: ALLREDUCE, #78", x.DesyncAt)
    assert isinstance(at, x.DesyncAt) and (at.rank, at.op, at.seq) == (3, "ALLREDUCE", 78)
    lag = one("\t - To our best knowledge, ranks [5, 7] are the lagging ranks that caused this timeout. They never "
              "joined any collectives", x.Lagging)  # fmt: skip
    assert isinstance(lag, x.Lagging) and lag.ranks == [5, 7] and lag.how == "never-joined"
    lag = one(
        "\t     [0, 1, 2] finished collective #41207, but didn't join collective #41208 (count from 1)", x.Lagging
    )
    assert isinstance(lag, x.Lagging) and lag.how == "finished-not-joined" and lag.seq == 41207
    lag = one("\t   - [47] joined but didn't finish collective #41207 (count from 1)", x.Lagging)
    assert isinstance(lag, x.Lagging) and lag.ranks == [47]


def test_fingerprint_mismatch_real_torch_2_13() -> None:
    line = (
        "[default0]:[rank0]: RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Float, "
        "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 1 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=0, OpType=BROADCAST, TensorShape=[4], TensorDtypes=Float, "
        "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following "
        "aspects:   Op type: ALLREDUCEvs BROADCAST"
    )
    fp = one(line, x.Fingerprint)
    assert isinstance(fp, x.Fingerprint)
    assert (fp.rank, fp.seq, fp.op, fp.shape, fp.other_rank, fp.other_op) == (0, 0, "ALLREDUCE", "4", 1, "BROADCAST")
    raised = one(line, x.Raised)
    assert isinstance(raised, x.Raised) and raised.category == "desync"


def test_fingerprint_without_tensors() -> None:
    # ProcessGroupWrapper.cpp operator<<: no comma before OpType when there are no tensors
    line = ("Detected mismatch between collectives on ranks. Rank 1 is running collective: "
            "CollectiveFingerPrint(SequenceNumber=4OpType=BARRIER), but Rank 0 is running collective: "
            "CollectiveFingerPrint(SequenceNumber=4OpType=ALLREDUCE).")  # fmt: skip
    fp = one(line, x.Fingerprint)
    assert isinstance(fp, x.Fingerprint) and (fp.op, fp.other_op, fp.shape) == ("BARRIER", "ALLREDUCE", None)


def test_gloo_lines_real_torch_2_13() -> None:
    t = one("[default0]:[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer"
            ".cc:78] Timed out waiting 5000ms for recv operation to complete", x.Timeout)  # fmt: skip
    assert isinstance(t, x.Timeout) and (t.backend, t.timeout_ms) == ("gloo", 5000)
    r = one("[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection "
            "closed by peer [127.0.0.1]:3492. This is typically caused by a remote worker crashing.", x.Raised)  # fmt: skip
    assert isinstance(r, x.Raised) and (r.category, r.peer) == ("peer", "127.0.0.1")
    s = one("[default0]:  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
            " op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't match expected size. Is there a "
            "distributed collective mismatch in your code?", x.SizeMismatch)  # fmt: skip
    assert isinstance(s, x.SizeMismatch) and "8" in s.detail
    b = one("[default0]:[rank0]:[E1202 14:45:58.688566301 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed to pass "
            "monitoredBarrier in 5000 ms", x.BarrierFail)  # fmt: skip
    assert isinstance(b, x.BarrierFail) and b.ranks == [1]
    b = one("[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 5000 ms", x.BarrierFail)
    assert isinstance(b, x.BarrierFail) and b.ranks == [1, 3]


# -- §5 NCCL's own lines -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "rank", "nranks", "dev", "bus"),
    [
        ("node-a:41000:41000 [0] NCCL INFO comm 0x55d0c6a1b2c0 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE",
         0, 16, 0, "18000"),  # <=2.17
        ("gpu-a03:7121:7121 [5] NCCL INFO comm 0x55d3 rank 21 nranks 32 cudaDev 5 nvmlDev 5 busId ab000 commId "
         "0x5eed1234abcd0011 - Init COMPLETE", 21, 32, 5, "ab000"),  # 2.18-2.20
        ("node-b:41077:41077 [3] NCCL INFO ncclCommInitRankConfig comm 0x55d9 rank 11 nranks 16 cudaDev 3 nvmlDev 3 "
         "busId 5d000 commId 0x5eed1234abcd0011 - Init COMPLETE", 11, 16, 3, "5d000"),  # 2.21+
    ],
)  # fmt: skip
def test_nccl_init_complete(line: str, rank: int, nranks: int, dev: int, bus: str) -> None:
    lf = x.extract(strip_framing(line).text)
    init = next(f for f in lf.facts if isinstance(f, x.NcclInit))
    assert (init.rank, init.nranks, init.cuda_dev, init.bus_id) == (rank, nranks, dev, bus)
    assert lf.nccl_host is not None and lf.nccl_pid is not None


def test_nccl_addresses_and_local_rank() -> None:
    a = one("ib-node-05:9102:9102 [2] NCCL INFO Bootstrap : Using eth0:10.10.0.5<0>", x.NcclAddr)
    assert isinstance(a, x.NcclAddr) and (a.ifname, a.ip) == ("eth0", "10.10.0.5")
    a = one("h:1:1 [0] NCCL INFO Bootstrap: Using ib0:192.168.1.7<0>", x.NcclAddr)  # 2.24+
    assert isinstance(a, x.NcclAddr) and a.ip == "192.168.1.7"
    a = one("h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.1.2.3<0>", x.NcclAddr)
    assert isinstance(a, x.NcclAddr) and a.ip == "10.1.2.3"
    loc = one("h:1:1 [3] NCCL INFO comm 0x1 rank 11 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0", x.NcclLocal)
    assert isinstance(loc, x.NcclLocal) and (loc.local_rank, loc.nnodes) == (3, 2)


@pytest.mark.parametrize(
    ("line", "peer", "status", "hca"),
    [
        ("h:1:2 [0] transport/net_ib.cc:1120 NCCL WARN NET/IB : Got completion from peer 10.0.0.7<53211> with error 12, "
         "opcode 0, len 0, vendor err 129", "10.0.0.7", "12", None),  # 2.10-2.17
        ("h:1:2 [0] transport/net_ib.cc:1364 NCCL WARN NET/IB : Got completion from peer 10.0.0.7<53211> with error 12, "
         "opcode 0, len 0, vendor err 129 (Send) localGid ::ffff:10.0.0.5 remoteGid ::ffff:10.0.0.7", "10.0.0.7", "12",
         None),  # 2.18-2.20
        ("h:1:2 [0] transport/net_ib.cc:2121 NCCL WARN NET/IB: Got completion from peer 10.10.0.6<43042> with status=12 "
         "opcode=0 len=0 vendor err 129 (Send) hca mlx5_2", "10.10.0.6", "12", "mlx5_2"),  # 2.23-2.28.3
        ("[2026-01-05 03:12:44] h:1:2 [0] transport/net_ib/p2p.cc:688 (ncclIbTest) NCCL WARN NET/IB: Got completion from "
         "peer 10.0.0.9<40001> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 Send hca "
         "mlx5_1", "10.0.0.9", "IBV_WC_RETRY_EXC_ERR(12)", "mlx5_1"),  # 2.29+ with the 2.26+ timestamp, HEAD (func)
    ],
)  # fmt: skip
def test_ib_completion_error(line: str, peer: str, status: str, hca: str | None) -> None:
    w = one(line, x.NcclWarn)
    assert isinstance(w, x.NcclWarn) and (w.category, w.peer, w.status, w.hca) == ("ib", peer, status, hca)


def test_socket_and_async_warnings() -> None:
    w = one("\nnode-3:77:90 [1] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
            "node-17<41234>", x.NcclWarn)  # fmt: skip
    assert isinstance(w, x.NcclWarn) and (w.category, w.peer) == ("socket", "node-17")
    w = one("h:1:2 [0] misc/socket.cc:60 NCCL WARN Net : Connection closed by remote peer 10.0.0.3<1234>", x.NcclWarn)
    assert isinstance(w, x.NcclWarn) and w.peer == "10.0.0.3"
    w = one(
        "h:1:2 [0] transport/net_ib.cc:99 NCCL WARN NET/IB : mlx5_3:1 Got async error event: port error", x.NcclWarn
    )
    assert isinstance(w, x.NcclWarn) and (w.category, w.hca) == ("ib", "mlx5_3")
    w = one("h:1:2 [0] enqueue.cc:10 NCCL WARN Cuda failure 'out of memory'", x.NcclWarn)
    assert isinstance(w, x.NcclWarn) and w.category == "cuda"


# -- §4.4 torchrun -----------------------------------------------------------------------------


def test_torchrun_agent_lines_real_torch_2_13() -> None:
    e = one("E1202 14:40:52.186000 24393 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
            "local_rank: 0 (pid: 24538) of binary: /work/main/.venv/bin/python", x.AgentExit)  # fmt: skip
    assert isinstance(e, x.AgentExit) and (e.exit_code, e.local_rank, e.pid) == (1, 0, 24538)
    s = one("W1202 14:40:51.868000 24393 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 24539 "
            "closing signal SIGTERM", x.AgentSignal)  # fmt: skip
    assert isinstance(s, x.AgentSignal) and (s.pid, s.signal, s.death) == (24539, "SIGTERM", False)
    d = one("I0101 00:00:00.000000 1 torch/distributed/elastic/agent/server/api.py:1] Received Signals.SIGTERM death "
            "signal, shutting down workers", x.AgentSignal)  # fmt: skip
    assert isinstance(d, x.AgentSignal) and d.death and d.signal == "SIGTERM"


@pytest.mark.parametrize(
    ("value", "traceback", "expected"),
    [
        ("-15 (pid: 24539)  (SIGTERM)", "Signal 15 (SIGTERM) received by PID 24539", (-15, 24539, "SIGTERM")),  # 2.13
        ("1 (pid: 24538) ", "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", (1, 24538, None)),
        ("-6 (pid: 123)", "Signal 6 (SIGABRT) received by PID 123", (-6, 123, "SIGABRT")),  # 1.13-2.6
        ("-9 (pid: 7)", "", (-9, 7, "SIGKILL")),
    ],
)  # fmt: skip
def test_failure_block_exit(value: str, traceback: str, expected: tuple[int, int, str | None]) -> None:
    assert _parse_exit(value, traceback) == expected


def test_failure_block_fields() -> None:
    assert isinstance(one("Root Cause (first observed failure):", x.BlockHeading), x.BlockHeading)
    f = one("  rank      : 1 (local_rank: 1)", x.BlockField)
    assert isinstance(f, x.BlockField) and (f.name, f.value) == ("rank", "1 (local_rank: 1)")
    f = one("  exitcode  : -15 (pid: 24539)  (SIGTERM)", x.BlockField)
    assert isinstance(f, x.BlockField) and f.name == "exitcode"


# -- exceptions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "type_", "category"),
    [
        ("[default1]:[rank1]: KeyError: 'labels'", "KeyError", "own"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 226.00 MiB. GPU 0 has a total capacity of 15.70 "
         "GiB", "torch.OutOfMemoryError", "own"),
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "RuntimeError", "own"),
        ("torch.distributed.DistBackendError: NCCL communicator was aborted on rank 2. Original reason for failure was: "
         "...", "torch.distributed.DistBackendError", "abort"),
        ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
         "ncclRemoteError", "peer"),
        ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
         "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
         "torch.distributed.DistBackendError", "own"),
        ("RuntimeError: Rank 2 successfully reached monitoredBarrier, but received errors while waiting for send/recv "
         "from rank 0. Please check rank 0 logs for faulty rank.", "RuntimeError", "peer"),
        ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError", "wrapper"),
    ],
)  # fmt: skip
def test_exception_classification(line: str, type_: str, category: str) -> None:
    r = one(line, x.Raised)
    assert isinstance(r, x.Raised) and (r.type, r.category) == (type_, category)


def test_benign_lines_are_not_exceptions() -> None:
    assert not facts("2025-03-04 10:15:01,512 - WARNING - dataset - Skipping corrupt sample 18231: DecodeError('x')")
    assert not facts("step 4700 | loss 1.6471 | lr 3.0e-04 | grad_norm 0.938")
    assert not facts("node-b:41077:41077 [3] NCCL INFO Channel 00/0 : 11 -> 12 via P2P/CUMEM/read")


# -- timestamps --------------------------------------------------------------------------------


def test_timestamps() -> None:
    c10 = line_time("[rank0]:[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught")
    assert c10 is not None and c10[1] == "07-09 17:05:38"  # month unpadded; 9-digit monotonic fraction ignored
    glog = line_time("E1202 14:40:52.186000 24393 torch/distributed/elastic/multiprocessing/api.py:1002] failed")
    assert glog is not None and glog[1] == "12-02 14:40:52.186"
    assert c10[0] < glog[0]
    iso = line_time("2025-03-04 10:14:56,015 - INFO - trainer - step 900")
    nccl = line_time("[2025-03-04 10:14:57] node:1:2 [0] misc/socket.cc:50 NCCL WARN x")
    block = line_time("  time      : 2025-03-04_10:14:58")
    assert iso is not None and nccl is not None and block is not None
    assert iso[0] < nccl[0] < block[0]
    assert line_time("step 900 | loss 1.0") is None
    assert last_time("2025-03-04 10:14:56,015 - INFO - a\nno time here\n") == iso
