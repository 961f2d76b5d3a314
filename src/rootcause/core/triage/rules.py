"""Every rule that can name a rank, with the evidence it needs. docs/triage.md explains each one;
the ids are stable (they appear in the JSON report as ``conclusion.named_ranks[].rule``)."""

from __future__ import annotations

RULES: dict[str, str] = {
    # desync
    "detail-fingerprint": "TORCH_DISTRIBUTED_DEBUG=DETAIL compared the collective fingerprints of the ranks; "
    "the ranks outside the majority called something else",
    "nccl-seq-mismatch": "at one sequence number of one process group the watchdog timeouts name different "
    "operations or sizes; the ranks outside the majority called something else",
    "desync-report-op": "the desync report of each rank names the collective it timed out in; the ranks outside "
    "the majority were in another operation",
    "stack-minority": "the Python tracebacks show each rank inside a collective; the ranks in a different "
    "collective, or at a different line of the program, than the majority are the suspects",
    "flight-recorder-mismatch": "the Flight Recorder dumps, aligned by sequence id per process group, show "
    "different operations, sizes or dtypes; the ranks outside the majority called something else",
    "gloo-ring-sender": "Gloo's size check fired on the receiving rank; a ring all_reduce receives from rank+1 "
    "(gloo/allreduce.cc: recvRank = rank + 1), so the sender of the oversized message is a suspect",
    "gloo-size-receiver": "Gloo's size check fired on this rank: it expected a smaller message, which is also "
    "what a rank whose own tensor is smaller expects",
    "not-in-group": "PyTorch warned that the rank called a collective with a group it does not belong to; the "
    "call was skipped, so the rank ran one collective fewer than the others",
    "root-config-minority": "the rank logged a root setting (broadcast_src, reduce_dst …) that differs from the "
    "value every other rank logged",
    # what happened first
    "exit-without-error": "the rank exited with a non-zero code of its own (not a signal) and its log holds no "
    "error, while the others timed out or lost their peer: it stopped itself",
    "init-beyond-world": "at initialisation the rank waited for the store key of a rank beyond the job's world "
    "size: it was given a wrong world size or rank",
    "own-error-first": "the rank failed with an error of its own (not a timeout, a lost peer or a tear-down) "
    "before the others' timeouts",
    "silent-crash": "the process died of SIGSEGV/SIGBUS/SIGILL/SIGFPE, or a SIGABRT no watchdog explains, with "
    "no error line",
    "killed-by-signal": "the process was killed from outside (SIGKILL, a SIGTERM torchrun did not send …) with "
    "no error of its own",
    "network-host": "NCCL transport warnings (IB completions, async events, sockets) name this host most often",
    # straggler
    "behind-last-enqueued": "the rank's last enqueued collective is older than the one the others timed out in",
    "desync-report-lagging": "the other ranks' desync report (TORCH_NCCL_DESYNC_DEBUG) names this rank",
    "nccl-ras-behind": "NCCL's RAS report (ncclras, 2.24+) lists this rank as having launched fewer operations "
    "than the others of its communicator",
    "monitored-barrier": "monitoredBarrier names this rank as not having reached the barrier",
    "flight-recorder-behind": "its Flight Recorder dump stops before the sequence id the other ranks reached",
    "flight-recorder-missing": "every other rank left a Flight Recorder dump and this one did not (it may have "
    "died first)",
    "left-early": "torchrun's failure report lists every other rank of its agent but not this one (exit code 0), "
    "its log shows no error, and the others timed out or lost their peer in the next collective",
    "store-key-wait": "at initialisation several ranks timed out waiting in the store for this rank's key: it "
    "never joined the process group",
    "no-timeout-alive": "the rank was alive to the end but never timed out while the others did: it never "
    "reached the collective",
    "gloo-ring-neighbour": "candidate: ranks that lost their connection to one and the same peer address all "
    "neighbour this rank in Gloo's ring (rank - 1, rank + 1)",
    "missing-log": "every rank with a log reached the collective; the rank left no log",
    "quiet-departure": "candidate: the rank's lines (read a second time for their prefixes) show no error and "
    "end before the others' failures, and torchrun's failure report leaves it out",
    # undecided
    "waiting-rank": "the rank reported the failure (a timeout or an error) but the logs do not show who caused it",
}
