"""Distributed-training canon: each older or newer wording is answered by its grounded entry,
and other programs' look-alike lines get no answer."""

from __future__ import annotations

import pytest

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text


@pytest.fixture(scope="module")
def canon_index():
    return load_index()


def first_pattern_finding(text: str, index) -> str | None:
    findings = [f for f in diagnose_text(text, index).findings if f.matched_by == "pattern"]
    return findings[0].id if findings else None


ANSWERED = [
    # a real ALLREDUCE watchdog timeout carried by the abort message: a grounded entry, not the seed
    (
        "RuntimeError: NCCL communicator was aborted on rank 0.  Original reason for failure was: [Rank 0] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=35582, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for "
        "1800366 milliseconds before timing out.",
        "pytorch/nccl-watchdog-timeout-legacy",
    ),
    # the seed's own wording is still answered by the seed
    (
        "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: "
        "AllReduce timed out after 600000 ms",
        "pytorch/nccl-timeout-allreduce",
    ),
    # 1.x abort with no rank
    ("RuntimeError: NCCL communicator was aborted.", "pytorch/nccl-communicator-aborted"),
    # DeepSpeed before 0.8.1: no 'DeepSpeed Op Builder' prefix
    (
        "Exception: Installed CUDA version 11.8 does not match the version torch was compiled with 11.7, unable to "
        "compile cuda/cpp extensions without a matching cuda version.",
        "deepspeed/cuda-version-mismatch",
    ),
    # Gloo without the 'typically caused by' hint (torch 1.x)
    (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer "
        "[18.25.6.30]:28048",
        "pytorch/gloo-peer-connection-lost",
    ),
    # TCPStore's bare 1.x message, with the rendezvous frame above it
    (
        '  File "/opt/conda/lib/python3.6/site-packages/torch/distributed/rendezvous.py", line 131, in '
        "_env_rendezvous_handler\n    store = TCPStore(master_addr, master_port, start_daemon)\n"
        "RuntimeError: Address already in use",
        "pytorch/tcpstore-address-in-use",
    ),
    # NCCL 2.29+ names the socket function ncclOsSocket*Connect (src/os/linux.cc)
    (
        "node1:11:22 [0] os/linux.cc:302 NCCL WARN ncclOsSocketPollConnect: connect to 10.0.0.4<56849> failed : "
        "Connection refused",
        "nccl/socket-connect-failed",
    ),
    # Gloo before 2023: a refused connection named with its peer address
    (
        "RuntimeError: [/opt/conda/conda-bld/pytorch_1682343967769/work/third_party/gloo/gloo/transport/tcp/pair.cc:799] "
        "connect [172.31.71.170]:13195: Connection refused",
        "pytorch/gloo-connect-refused",
    ),
    # the DDP warning in its torch 1.8 wording (no 'in the forward pass')
    (
        "[W reducer.cpp:1050] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find "
        "any unused parameters. This flag results in an extra traversal of the autograd graph every iteration",
        "pytorch/ddp-find-unused-parameters-warning",
    ),
    # NCCL 2.22+ appends the errno to the shared-memory WARN
    (
        "host:1:2 [0] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE "
        "(size 9637888), error: No space left on device (28)",
        "nccl/shm-segment-create-failed",
    ),
]


@pytest.mark.parametrize(("text", "expected"), ANSWERED)
def test_each_wording_is_answered_by_its_entry(canon_index, text: str, expected: str) -> None:
    assert first_pattern_finding(text, canon_index) == expected


UNRELATED = [
    "Error: listen EADDRINUSE: address already in use :::3000",
    "RuntimeError: Address already in use (os error 98)",
    "RuntimeError: bind: Address already in use [system:98]",
    "OSError: [Errno 98] Address already in use",
    "RuntimeError: Address already in use",
    "[WARNING] DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version torch was compiled with "
    "12.4.Detected `DS_SKIP_CUDA_CHECK=1`: Allowing this combination of CUDA, but it may result in unexpected behavior.",
]


@pytest.mark.parametrize("text", UNRELATED)
def test_look_alike_lines_get_no_pattern_answer(canon_index, text: str) -> None:
    assert first_pattern_finding(text, canon_index) is None


def test_nccl_proxy_wrapper_ranks_below_the_socket_error_it_wraps(canon_index) -> None:
    """The proxy service's 'Failed to execute operation' only says that an operation it ran failed (retcode 6, a
    system error): the socket error logged just before it is the cause, and comes first (NVIDIA/nccl#795)."""
    log = (
        "a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from "
        "10.200.84.247<58355> failed : Broken pipe\n"
        "a100-st-p4d24xlarge-22:183006:183220 [1] NCCL INFO proxy.cc:991 -> 6\n"
        "a100-st-p4d24xlarge-22:183006:183220 [1] proxy.cc:1119 NCCL WARN [Proxy Service 9] Failed to execute "
        "operation Connect from rank 9, retcode 6\n"
    )
    ids = [f.id for f in diagnose_text(log, canon_index).findings]
    assert ids[0] == "nccl/socket-call-failed" and ids[-1] == "nccl/proxy-operation-failed", ids
