"""The triage's literal prefilter: a line reaches its extractors (`extract.py`) only if it holds one of these.

Apart from the extractors, so that the matcher's index (which puts them in its hyperscan database, so that
`diagnose` reads an input once) does not import them. Case-sensitive byte strings: the fixed parts of the
formats the extractors read; the sections (§) are /work/shared/reference/nccl-message-formats.md's.
"""

from __future__ import annotations

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
    b"distributed_c10d.py:",
    b"does not belong to the given group",  # distributed_c10d.py _warn_not_in_group
    b"_src=",  # a logged root setting: broadcast_src=1, reduce_dst=0, src_rank=3 (RootConfig)
    b"_dst=",
    b"_root=",
    b"src_rank",
    b"dst_rank",
    b"root_rank",  # a py-spy dump frame of a collective: "    all_reduce (…/distributed_c10d.py:2501)"
)
