"""The conclusion logic on small, hand-made multi-rank inputs (formats as in test_triage_extract)."""

from __future__ import annotations

from triage_support import triage_texts

T = "[rank{r}]:[E304 10:{m:02d}:{s:02d}.001000000 ProcessGroupNCCL.cpp:632] "


def timeout(r: int, seq: int, op: str = "ALLREDUCE", numel: int = 1024, m: int = 41, s: int = 7) -> str:
    return (
        T.format(r=r, m=m, s=s) + f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
        f"OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
    )


def status(r: int, seq: int, enq: int, done: int, m: int = 41, s: int = 7) -> str:
    return (
        T.format(r=r, m=m, s=s) + f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure detected by watchdog at work "
        f"sequence id: {seq} PG status: last enqueued work: {enq}, last completed work: {done}\n"
    )


def init(host: str, r: int, n: int, dev: int) -> str:
    return f"{host}:{100 + r}:{100 + r} [{dev}] NCCL INFO comm 0x1 rank {r} nranks {n} cudaDev {dev} busId {dev}a000 - Init COMPLETE\n"


def test_straggler_from_sequence_numbers() -> None:
    logs = {
        f"rank{r}.log": init("h1" if r < 2 else "h2", r, 4, r % 2) + timeout(r, 50) + status(r, 50, 50, 49)
        for r in (0, 1, 3)
    }
    logs["rank2.log"] = init("h2", 2, 4, 0) + (
        "[rank2]:[E304 10:41:08.001 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 2] Received a dump "
        "signal due to a collective timeout from  rank 0 and we will try our best to dump the debug info. Last enqueued "
        "NCCL work: 48, last completed NCCL work: 48.This is most likely caused by incorrect usages\n"
    )
    report = triage_texts(logs)
    c = report.conclusion
    assert (c.kind, c.guilty_ranks, c.guilty_hosts, c.confidence) == ("straggler", [2], ["h2"], "high")
    assert c.collective == "ALLREDUCE #50"
    assert report.ranks[2].status == "never reached ALLREDUCE #50"
    assert report.ranks[2].last_enqueued == 48


def test_desync_from_different_sizes() -> None:
    logs = {f"r{r}": timeout(r, 9, numel=4096 if r != 5 else 4000) for r in range(8)}
    c = triage_texts(logs).conclusion
    assert (c.kind, c.guilty_ranks, c.confidence) == ("desync", [5], "high")
    assert "NumelIn 4000" in c.summary


def test_desync_ignores_different_pgs() -> None:
    """Sequence numbers count per process group: #9 of a subgroup is not #9 of the world."""
    logs = {
        "r0": timeout(0, 9) + status(0, 9, 9, 8),
        "r1": timeout(1, 9, op="BROADCAST")
        + T.format(r=1, m=41, s=7)
        + "[PG ID 3 PG GUID 7(tp) Rank 0]  failure detected by watchdog at work sequence id: 9 PG status: last "
        "enqueued work: 9, last completed work: 8\n",
    }
    assert triage_texts(logs).conclusion.kind != "desync"


def test_crash_first_by_time() -> None:
    """An own error before the first timeout is the cause; one after it is part of the cascade."""
    early = "2025-03-04 10:30:00,000 - INFO - step 10\n[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
    late = "2025-03-04 10:45:00,000 - INFO - shutting down\n[rank2]: ValueError: teardown noise\n"
    logs = {"r0": timeout(0, 77), "r1": early, "r2": timeout(2, 77) + late, "r3": timeout(3, 77)}
    c = triage_texts(logs).conclusion
    assert (c.kind, c.guilty_ranks) == ("crash-first", [1])
    assert "illegal memory access" in c.summary


def test_killed_without_error() -> None:
    console = (
        "[default0]:[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:7085: Connection reset by peer.\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-12-02_14:41:51\n  host      : node7\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : -9 (pid: 25451)  (SIGKILL)\n  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 25451\n"
    )
    c = triage_texts({"console.log": console}).conclusion
    assert (c.kind, c.guilty_ranks, c.guilty_hosts) == ("killed", [1], ["node7"])
    assert "dmesg" in c.summary


def test_sigterm_from_torchrun_is_not_a_kill() -> None:
    console = (
        "[default0]:[rank0]: RuntimeError: [/x/unbound_buffer.cc:78] Timed out waiting 5000ms for recv operation to complete\n"
        "W1202 14:40:51.868000 24393 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 24539 closing "
        "signal SIGTERM\nFailures:\n[1]:\n  time      : 2026-12-02_14:40:52\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 24539)  (SIGTERM)\n  error_file: <N/A>\n"
        "  traceback : Signal 15 (SIGTERM) received by PID 24539\n"
    )
    c = triage_texts({"console.log": console}).conclusion
    assert (c.kind, c.guilty_ranks) == ("straggler", [1])


def test_network_peer_named_by_many() -> None:
    def warn(host: str, r: int, peer: str) -> str:
        return (
            f"[default{r % 8}]:{host}:{900 + r}:{950 + r} [{r % 8}] transport/net_ib.cc:2121 NCCL WARN NET/IB: Got "
            f"completion from peer {peer}<4000{r}> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_{r % 8}\n"
        )

    def boot(host: str, r: int, ip: str) -> str:
        return f"[default{r % 8}]:{host}:{900 + r}:{900 + r} [{r % 8}] NCCL INFO Bootstrap : Using eth0:{ip}<0>\n" + (
            f"[default{r % 8}]:{init(host, r, 24, r % 8)}"
        )

    logs = {
        "a.log": boot("a", 1, "10.0.0.1") + warn("a", 1, "10.0.0.3"),
        "b.log": boot("b", 9, "10.0.0.2") + warn("b", 9, "10.0.0.3"),
        "c.log": boot("c", 17, "10.0.0.3") + timeout(17, 5).replace("[rank17]:", "[default1]:[rank17]:"),
    }
    c = triage_texts(logs).conclusion
    assert (c.kind, c.guilty_hosts, c.guilty_ranks) == ("network", ["c"], [17])


def test_undecided_without_sequence_numbers_says_what_to_enable() -> None:
    gloo = (
        "[rank{r}]: RuntimeError: [/x/unbound_buffer.cc:78] Timed out waiting 5000ms for recv operation to complete\n"
    )
    report = triage_texts({f"r{r}": gloo.format(r=r) for r in range(3)})
    c = report.conclusion
    assert c.kind == "undecided" and c.guilty_ranks == []
    assert any("TORCH_DISTRIBUTED_DEBUG=DETAIL" in s for s in c.suggestions)


def test_undecided_nccl_suggests_flight_recorder_and_nccl_debug() -> None:
    bare = "[rank{r}]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank {r}.\n"
    logs = {f"r{r}": timeout(r, 5).replace("SeqNum=5, ", "") + bare.format(r=r) for r in range(4)}  # 2.0-style, no seq
    c = triage_texts(logs).conclusion
    assert c.kind == "undecided"
    text = " ".join(c.suggestions)
    for knob in ("TORCH_NCCL_DUMP_ON_TIMEOUT", "NCCL_DEBUG=INFO", "TORCH_NCCL_DESYNC_DEBUG"):
        assert knob in text


def test_missing_rank_by_elimination_is_low_confidence() -> None:
    logs = {f"rank{r}.log": init("h", r, 4, r) + timeout(r, 7) + status(r, 7, 7, 6) for r in (0, 1, 2)}
    report = triage_texts(logs, ranks={f"rank{r}.log": r for r in range(3)})
    c = report.conclusion
    assert report.missing_ranks == [3]
    assert (c.kind, c.guilty_ranks, c.confidence) == ("straggler", [3], "low")
    assert any("--log-dir" in s for s in c.suggestions)


def test_missing_rank_without_sequence_numbers_is_undecided() -> None:
    logs = {f"rank{r}.log": init("h", r, 4, r) + timeout(r, 7).replace("SeqNum=7, ", "") for r in (0, 1, 2)}
    report = triage_texts(logs, ranks={f"rank{r}.log": r for r in range(3)})
    assert report.conclusion.kind == "undecided"
    assert "rank 3" in report.conclusion.summary


def test_no_ranks_at_all() -> None:
    report = triage_texts({"x.log": "hello\nworld\n"})
    assert report.conclusion.kind == "undecided" and report.ranks == {}


def test_slurm_labels_name_the_ranks() -> None:
    text = "".join(f"{r:>2}: " + timeout(r, 3, numel=8 if r != 11 else 16).split("]:", 1)[1] for r in range(12))
    c = triage_texts({"slurm-1.out": text}).conclusion
    assert (c.kind, c.guilty_ranks) == ("desync", [11])


def test_glog_named_rank_without_prefix() -> None:
    """1.x logs have no [rankN]: prefix; the rank named in the message's [Rank N] is used."""
    line = (
        "[E ProcessGroupNCCL.cpp:737] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
        "OpType={op}, Timeout(ms)=1800000) ran for 1800422 milliseconds before timing out.\n"
    )
    text = "".join(line.format(r=r, op="ALLREDUCE" if r != 2 else "ALLGATHER") for r in range(5))
    c = triage_texts({"job.log": text}).conclusion
    assert (c.kind, c.guilty_ranks) == ("desync", [2])
