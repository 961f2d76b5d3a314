"""Stacks compared across ranks: the collective each rank was in and the line of the program that called it."""

from __future__ import annotations

import json

from triage_support import triage_texts

from rootcause.core.triage.extract import Frame, TraceStart, extract
from rootcause.core.triage.stacks import stack_of

SITE = "/venv/lib/python3.11/site-packages/torch/distributed"


def _traceback(rank: int, line: int, user_call: str, collective: str, c10d_line: int) -> str:
    """A torch 2.13 traceback as torch.distributed's excepthook prints it (see tests/fixtures/triage-real)."""
    p = f"[rank{rank}]:"
    return "\n".join(
        [
            f"{p} Traceback (most recent call last):",
            f'{p}   File "/job/train.py", line 85, in <module>',
            f"{p}     main()",
            f'{p}   File "/job/train.py", line {line}, in step',
            f"{p}     {user_call}",
            f'{p}   File "{SITE}/c10d_logger.py", line 83, in wrapper',
            f"{p}     return func(*args, **kwargs)",
            f'{p}   File "{SITE}/distributed_c10d.py", line {c10d_line}, in {collective}',
            f"{p}     work.wait()",
            f"{p} RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
            "Timed out waiting 3000ms for recv operation to complete",
        ]
    )


def test_frames_from_a_traceback_error_json_and_py_spy() -> None:
    assert extract('  File "/job/train.py", line 61, in step').facts == [Frame("/job/train.py", 61, "step")]
    assert extract("Traceback (most recent call last):").facts == [TraceStart()]
    callstack = 'Traceback (most recent call last):\n  File "/job/t.py", line 20, in main\n    x()\n'
    record = json.dumps(
        {
            "message": {
                "message": "ZeroDivisionError: float division by zero",
                "extraInfo": {"py_callstack": callstack, "timestamp": "1796223892"},
            }
        }
    )
    facts = extract(record).facts
    assert facts[:2] == [TraceStart(), Frame("/job/t.py", 20, "main")]
    pyspy = "    all_reduce (torch/distributed/distributed_c10d.py:2501)"
    assert extract(pyspy).facts == [Frame("torch/distributed/distributed_c10d.py", 2501, "all_reduce", True)]


def test_the_user_frame_is_the_last_one_outside_the_library() -> None:
    frames = [
        Frame("/job/train.py", 85, "<module>"),
        Frame("/job/train.py", 61, "step"),
        Frame(f"{SITE}/c10d_logger.py", 83, "wrapper"),
        Frame(f"{SITE}/distributed_c10d.py", 3151, "broadcast"),
    ]
    stack = stack_of(frames)
    assert stack is not None and (stack.collective, stack.user_line, stack.user_func) == ("broadcast", 61, "step")
    assert stack_of(frames[:2]) is None


def test_the_odd_collective_is_the_suspect_without_debug_mode() -> None:
    texts = {
        f"rank{r}.log": _traceback(r, 61, "dist.broadcast(x, src=0)", "broadcast", 3151)
        if r == 2
        else _traceback(r, 65, "dist.all_reduce(x)", "all_reduce", 3252)
        for r in range(4)
    }
    c = triage_texts(texts).conclusion
    assert (c.kind, c.guilty_ranks, c.detected_by) == ("desync", [2], [0, 1, 2, 3])
    (named,) = c.named_ranks
    assert (named.rank, named.rule) == (2, "stack-minority") and "broadcast" in named.reason
    assert "train.py:61" in c.summary and "train.py:65" in c.summary


def test_same_collective_from_different_lines_is_a_desync() -> None:
    texts = {
        f"rank{r}.log": _traceback(r, 70 if r == 0 else 65, "dist.all_reduce(x)", "all_reduce", 3252) for r in range(3)
    }
    c = triage_texts(texts).conclusion
    assert (c.kind, c.guilty_ranks) == ("desync", [0])


def test_two_ranks_in_different_collectives_are_undecided_candidates() -> None:
    texts = {
        "rank0.log": _traceback(0, 65, "dist.all_reduce(x)", "all_reduce", 3252),
        "rank1.log": _traceback(1, 61, "dist.broadcast(x, src=0)", "broadcast", 3151),
    }
    c = triage_texts(texts).conclusion
    assert (c.kind, c.guilty_ranks, sorted(c.candidates)) == ("undecided", [], [0, 1])
    assert all(n.role == "candidate" and n.rule == "stack-minority" and n.evidence_refs for n in c.named_ranks)


def test_py_spy_dumps_pasted_in_the_logs() -> None:
    """py-spy dump (src/dump.rs): 'Thread 0x… (idle): "MainThread"' then '    func (file:line)', innermost first."""
    texts = {}
    for r in range(3):
        op = "barrier" if r == 1 else "all_reduce"
        texts[f"rank{r}.log"] = (
            f'Thread 0x7F3A2B4C5740 (idle): "MainThread"\n    {op} (torch/distributed/distributed_c10d.py:4790)\n'
            "    wrapper (torch/distributed/c10d_logger.py:83)\n    step (train.py:61)\n"
        )
    c = triage_texts(texts, {f"rank{r}.log": r for r in range(3)}).conclusion
    assert (c.kind, c.guilty_ranks) == ("desync", [1])


def test_nccl_ras_names_the_rank_that_launched_fewer_operations() -> None:
    """`ncclras` output pasted into the log (NCCL src/ras/client_support.cc, 2.24+)."""
    ras = (
        "Warnings\n========\n\n#0-0 (27a079b828ff1a75) MISMATCH\n"
        "  Communicator ranks have different AllReduce operation counts\n"
        "  7 ranks have launched up to operation 6650\n"
        "  Rank 5 has launched up to operation 6649 -- GPU 5 managed by process 4142 on node gpu-b02\n"
    )
    timeout = (
        "[rank0]:[E1203 10:00:00.000000000 ProcessGroupNCCL.cpp:685] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=6650, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for "
        "600011 milliseconds before timing out.\n"
    )
    c = triage_texts({"rank0.log": timeout, "ras.txt": ras}).conclusion
    assert (c.kind, c.guilty_ranks) == ("straggler", [5])
    assert c.named_ranks[0].rule == "nccl-ras-behind"


def test_the_desync_report_names_the_rank_that_did_not_join() -> None:
    """ProcessGroupNCCL's desync debug report (TORCH_NCCL_DESYNC_DEBUG): "[7] finished collective #182, but didn't
    join collective #183"."""
    line = (
        "[rank0]:[E1203 10:00:00.000000000 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
        "\\n\\t - [7] finished collective #182, but didn't join collective #183 (count from 1)\n"
    )
    timeout = (
        "[rank0]:[E1203 10:00:00.000000000 ProcessGroupNCCL.cpp:685] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=183, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for "
        "600011 milliseconds before timing out.\n"
    )
    c = triage_texts({"rank0.log": timeout + line}).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("straggler", [7], "desync-report-lagging")
