"""The rules of core/triage/departures.py on small hand-made inputs: each names a rank on its evidence, and
stays silent where that evidence is ambiguous (never an innocent rank)."""

from __future__ import annotations

from triage_support import triage_texts

GLOO_TIMEOUT = (
    "[rank{r}]: RuntimeError: [/x/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete\n"
)
PEER = "[rank{r}]: RuntimeError: [/x/pair.cc:553] Connection closed by peer [127.0.0.1]:3459. GLHF\n"


def failure_block(entries: list[tuple[int, str]]) -> str:
    """torchrun's report: (rank, exitcode text) per failed worker, the first one as the root cause."""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "Failures:"]
    for n, (rank, code) in enumerate(entries[1:], 1):
        out += [f"[{n}]:", "  time      : 2026-12-05_13:10:26", "  host      : localhost"]
        out += [f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code}", "  traceback : x"]
    rank, code = entries[0]
    out += ["Root Cause (first observed failure):", "[0]:", "  time      : 2026-12-05_13:10:26"]
    out += ["  host      : localhost", f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code}"]
    out += ["  traceback : x"]
    return "\n".join(out) + "\n"


def config(r: int, value: int, name: str = "reduce_dst") -> str:
    return f"rank {r}: config: {name}={value} world_size=4\n"


def test_a_rank_the_report_leaves_out_left_early() -> None:
    logs = {f"rank{r}.log": PEER.format(r=r) for r in (0, 1, 2)}
    logs["rank3.log"] = "rank 3: epoch done after 2 batches\n[rank3]: Warning: nothing\n"
    sent = "".join(f"W1205 1 api.py:1028] Sending process {pid} closing signal SIGTERM\n" for pid in (11, 12))
    logs["console.log"] = sent + failure_block([(0, "1 (pid: 10)"), (1, "-15 (pid: 11)"), (2, "-15 (pid: 12)")])
    c = triage_texts(logs, {f"rank{r}.log": r for r in range(4)}).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("straggler", [3], "left-early")
    # a SIGTERM torchrun did not send is a kill from outside: then nobody left early
    logs["console.log"] = failure_block([(0, "1 (pid: 10)"), (1, "-15 (pid: 11)"), (2, "-15 (pid: 12)")])
    c = triage_texts(logs, {f"rank{r}.log": r for r in range(4)}).conclusion
    assert 3 not in c.guilty_ranks


def test_no_early_exit_when_a_listed_rank_failed_on_its_own() -> None:
    logs = {f"rank{r}.log": PEER.format(r=r) for r in (0, 1)}
    logs["rank2.log"] = "[rank2]: ValueError: bad batch\n"
    logs["rank3.log"] = "rank 3: epoch done\n[rank3]: Warning: nothing\n"
    logs["console.log"] = failure_block([(2, "1 (pid: 12)"), (0, "-15 (pid: 10)"), (1, "-15 (pid: 11)")])
    c = triage_texts(logs, {f"rank{r}.log": r for r in range(4)}).conclusion
    assert (c.kind, c.guilty_ranks) == ("crash-first", [2])


def test_a_rank_that_exits_1_without_an_error_stopped_itself() -> None:
    logs = {f"rank{r}.log": GLOO_TIMEOUT.format(r=r) for r in (0, 1, 3)}
    logs["rank2.log"] = "rank 2: loss is nan at step 2, stopping\n[rank2]: Warning: nothing\n"
    logs["console.log"] = failure_block(
        [(2, "1 (pid: 12)"), (0, "1 (pid: 10)"), (1, "1 (pid: 11)"), (3, "1 (pid: 13)")]
    )
    c = triage_texts(logs, {f"rank{r}.log": r for r in range(4)}).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("crash-first", [2], "exit-without-error")


def test_store_waits_name_the_rank_that_never_joined_or_the_one_with_a_wrong_world() -> None:
    wait = "[default{r}]:torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/{k}\n"
    block = failure_block([(r, "1 (pid: 1)") for r in range(4)])
    c = triage_texts({"console.log": "".join(wait.format(r=r, k=1) for r in (0, 2, 3)) + block}).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("straggler", [1], "store-key-wait")
    beyond = wait.format(r=2, k=4) + "".join(f"[default{r}]:" + GLOO_TIMEOUT.format(r=r) for r in (0, 1, 3))
    c = triage_texts({"console.log": beyond + block}).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("crash-first", [2], "init-beyond-world")
    # waits for different ranks: no single rank is named by them
    mixed = wait.format(r=0, k=1) + wait.format(r=1, k=2) + wait.format(r=2, k=3)
    c = triage_texts({"console.log": mixed + block}).conclusion
    assert not any(n.rule == "store-key-wait" for n in c.named_ranks)


def test_the_not_in_group_warning_names_its_rank_only_on_a_minority() -> None:
    warn = "[rank{r}]: UserWarning: Running all_reduce on global rank {r} which does not belong to the given group.\n"
    logs = {f"rank{r}.log": GLOO_TIMEOUT.format(r=r) for r in (0, 1, 3)}
    logs["rank2.log"] = warn.format(r=2)
    c = triage_texts(logs).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("desync", [2], "not-in-group")
    most = {f"rank{r}.log": warn.format(r=r) + GLOO_TIMEOUT.format(r=r) for r in range(4)}
    assert all(n.rule != "not-in-group" for n in triage_texts(most).conclusion.named_ranks)


def test_a_logged_root_that_differs_names_its_rank_and_many_values_name_none() -> None:
    logs = {f"rank{r}.log": config(r, 0) + GLOO_TIMEOUT.format(r=r) for r in (0, 1, 3)}
    logs["rank2.log"] = config(2, 1) + GLOO_TIMEOUT.format(r=2)
    c = triage_texts(logs).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("desync", [2], "root-config-minority")
    # a per-stage setting (pipeline stages each with their own source) is no mismatch
    staged = {f"rank{r}.log": config(r, r // 2, "stage_src") + GLOO_TIMEOUT.format(r=r) for r in range(4)}
    assert all(n.rule != "root-config-minority" for n in triage_texts(staged).conclusion.named_ranks)
    # without a failure the odd rank is only a candidate
    quiet = {f"rank{r}.log": config(r, 1 if r == 2 else 0) for r in range(4)}
    c = triage_texts(quiet, {f"rank{r}.log": r for r in range(4)}).conclusion
    assert (c.kind, c.candidates) == ("undecided", [2])


def test_restarts_read_the_first_attempt_only() -> None:
    attempt0 = "[default1]:[rank1]: ValueError: bad batch at step 2\n" + "".join(
        PEER.format(r=r).replace("[rank", f"[default{r}]:[rank") for r in (0, 2, 3)
    )
    agent = "E1205 13:15:43.400000 1 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
    attempt1 = "[default2]:[rank2]: FileNotFoundError: checkpoint ckpt/step_2.pt not found\n"
    text = attempt0 + agent + "local_rank: 1 (pid: 11) of binary: python\n" + attempt1
    text += agent + "local_rank: 2 (pid: 22) of binary: python\n" + failure_block([(2, "1 (pid: 22)")])
    c = triage_texts({"console.log": text}).conclusion
    assert (c.kind, c.guilty_ranks) == ("crash-first", [1]), c.summary
    # without the second attempt's exit line, a late line is still read
    single = attempt0 + agent + "local_rank: 1 (pid: 11) of binary: python\n" + attempt1
    assert 2 in triage_texts({"console.log": single}).conclusion.detected_by


def test_two_agents_in_one_file_are_no_restart() -> None:
    """srun with one torchrun per node writes both agents' lines to one file: each logs one failure."""
    agent = "E1205 13:15:43.400000 {pid} torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
    text = "[default0]:[rank0]: ValueError: bad batch\n"
    text += agent.format(pid=100) + "local_rank: 0 (pid: 11) of binary: python\n"
    text += "[default1]:[rank3]: RuntimeError: [/x/pair.cc:553] Connection closed by peer [127.0.0.1]:3459. GLHF\n"
    text += agent.format(pid=200) + "local_rank: 1 (pid: 22) of binary: python\n"
    c = triage_texts({"slurm.out": text}).conclusion
    assert (c.kind, c.guilty_ranks) == ("crash-first", [0]) and 3 in c.detected_by
