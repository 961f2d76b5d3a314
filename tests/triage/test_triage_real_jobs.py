"""Real 4-rank Gloo jobs (torch 2.13, torchrun on loopback; tests/fixtures/triage-real, MANIFEST.yaml records the
guilty rank of each case). Each case in four variants: plain, TORCH_DISTRIBUTED_DEBUG=DETAIL, Flight Recorder, both.

For every variant triage names the guilty rank, or answers `undecided` with it first among the candidates; it
never names only innocent ranks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from triage_support import TESTS, triage_paths

from rootcause.core.triage.rules import RULES

ROOT = TESTS / "fixtures" / "triage-real"
MANIFEST = yaml.safe_load((ROOT / "MANIFEST.yaml").read_text(encoding="utf-8"))
GUILTY = {c["case"]: c["guilty_rank"] for c in MANIFEST["cases"]}
RUNS = [(c["case"], v["name"]) for c in MANIFEST["cases"] for v in c["variants"]]
KIND = {
    "straggler": "straggler",
    "desync-op": "desync",
    "desync-size": "desync",
    "crash-first": "crash-first",
    "sigkill": "killed",
    "barrier": "straggler",
    "two-node": "straggler",
}


def test_the_manifest_covers_every_case_in_four_variants() -> None:
    assert set(GUILTY) == set(KIND)
    for case in KIND:
        assert sorted(v for c, v in RUNS if c == case) == ["detail", "detail-fr", "fr", "plain"]
        for _, variant in [r for r in RUNS if r[0] == case]:
            assert (ROOT / case / variant).is_dir()


def _check(case: str, folder: Path) -> None:
    c = triage_paths(folder).conclusion
    guilty = GUILTY[case]
    if c.kind == "undecided":
        assert c.candidates and c.candidates[0] == guilty, (case, c.candidates, c.summary)
    else:
        assert (c.kind, c.guilty_ranks) == (KIND[case], [guilty]), (case, c.summary)
    for n in c.named_ranks:
        assert n.rule in RULES and n.evidence_refs


@pytest.mark.parametrize(("case", "variant"), RUNS)
def test_real_job(case: str, variant: str) -> None:
    _check(case, ROOT / case / variant)


@pytest.mark.parametrize(("case", "variant"), [r for r in RUNS if r[0] != "two-node"])
def test_real_job_console_alone(case: str, variant: str) -> None:
    """torchrun's --tee console by itself: one log with every rank's lines."""
    _check(case, ROOT / case / variant / "console.log")


@pytest.mark.parametrize("variant", ["plain", "detail"])
def test_desync_size_without_dumps_is_undecided_sender_first(variant: str) -> None:
    c = triage_paths(ROOT / "desync-size" / variant).conclusion
    if variant == "plain":  # Gloo's size check fired on rank 1, which receives from rank 2 in the ring
        assert (c.kind, c.candidates[:2]) == ("undecided", [2, 1])
        assert 1 in c.detected_by
    else:  # DETAIL's fingerprints tell
        assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("desync", [2], "detail-fingerprint")


def test_desync_by_op_is_found_from_the_stacks_alone() -> None:
    c = triage_paths(ROOT / "desync-op" / "plain").conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("desync", [1], "stack-minority")
    assert "broadcast" in c.summary and "all_reduce" in c.summary


def test_docs_explain_every_rule() -> None:
    doc = (TESTS.parent / "docs" / "triage.md").read_text(encoding="utf-8")
    missing = [rule for rule in RULES if f"| `{rule}`" not in doc]
    assert missing == []


# -- the failure modes of scripts/modes.py (MODES.yaml): 4 and 8 ranks, two agents, restarts, DDP, DETAIL ----------
MODES = yaml.safe_load((ROOT / "MODES.yaml").read_text(encoding="utf-8"))["runs"]
# run -> (kind, rule that named the first rank); None: undecided, the guilty rank first among any candidates
EXPECTED: dict[str, tuple[str, str] | None] = {
    "early-exit/manual-4": ("straggler", "left-early"),
    "early-exit/manual-4-detail": ("straggler", "left-early"),
    "early-exit/ddp-8-logdir": ("straggler", "left-early"),
    "early-exit/ddp-2x4": None,  # it was still in destroy_process_group when SIGTERMed: a ring-neighbour candidate
    # rank 7 printed no line the prefilter keeps and torchrun lists ranks 0-6 only: the second read's prefixes show it
    "early-exit/manual-8-tee": ("straggler", "left-early"),
    "self-exit/manual-4": ("crash-first", "exit-without-error"),
    "self-exit/ddp-8": ("crash-first", "exit-without-error"),
    "self-exit/manual-2x2-detail": ("crash-first", "exit-without-error"),
    "init-world-size/manual-4": ("crash-first", "init-beyond-world"),
    "init-world-size/manual-8-detail": ("crash-first", "init-beyond-world"),
    "init-store/manual-4": ("straggler", "store-key-wait"),
    "init-store/manual-2x2": ("straggler", "store-key-wait"),
    "restart/manual-4": ("crash-first", "own-error-first"),
    "restart/ddp-4": ("crash-first", "own-error-first"),
    "restart/manual-8-detail-tee": ("crash-first", "own-error-first"),
    "wrong-group/manual-4": ("desync", "not-in-group"),
    "wrong-group/manual-4-detail": ("desync", "detail-fingerprint"),
    "wrong-group/ddp-8": ("desync", "not-in-group"),
    "dtype/manual-4": None,  # Gloo's size check: the ring sender first, then the receiver
    "dtype/manual-4-detail": ("desync", "detail-fingerprint"),
    "dtype/ddp-8": None,
    "bcast-root/manual-4": None,  # the job did not fail (Gloo broadcast completed): the logged src is a candidate
    "bcast-root/manual-4-detail": None,
    "bcast-root/manual-8": None,
    "reduce-root/manual-4": ("desync", "root-config-minority"),
    "reduce-root/manual-8-detail": ("desync", "root-config-minority"),
}


def test_the_modes_cover_what_the_issue_asks() -> None:
    assert len(MODES) >= 24 and {r["path"] for r in MODES} == set(EXPECTED)
    assert {4, 8} <= {r["world_size"] for r in MODES}
    assert {r["agents"] for r in MODES} == {1, 2} and any(r["max_restarts"] for r in MODES)
    assert {r["style"] for r in MODES} == {"manual", "ddp"} and {r["detail"] for r in MODES} == {True, False}
    assert {"logdir", "tee", "both"} <= {r["layout"] for r in MODES}
    for r in MODES:
        assert (ROOT / r["path"]).is_dir() and r["guilty_ranks"]


def _never_innocent(c: object, truth: list[int], where: str) -> None:
    kind, guilty, candidates = c.kind, c.guilty_ranks, c.candidates  # type: ignore[attr-defined]
    if kind == "undecided":
        assert not candidates or candidates[: len(truth)] == truth, (where, candidates)
    else:
        assert guilty == truth, (where, kind, guilty)


@pytest.mark.parametrize("run", MODES, ids=[r["path"] for r in MODES])
def test_failure_mode(run: dict[str, object]) -> None:
    c = triage_paths(ROOT / str(run["path"])).conclusion
    truth = list(run["guilty_ranks"])  # type: ignore[call-overload]
    _never_innocent(c, truth, str(run["path"]))
    expected = EXPECTED[str(run["path"])]
    if expected is None:
        assert c.kind == "undecided", c.summary
    else:
        assert (c.kind, c.named_ranks[0].rule) == expected, c.summary
    if run["path"] == "early-exit/ddp-2x4":  # ranks 5 and 7 lost the same peer; rank 6 neighbours both
        assert (c.candidates, c.named_ranks[0].rule) == ([6], "gloo-ring-neighbour")
    for n in c.named_ranks:
        assert n.rule in RULES and n.evidence_refs


TEE_ALONE = [r for r in MODES if r["layout"] in ("both", "tee") and r["agents"] == 1]


@pytest.mark.parametrize("run", TEE_ALONE, ids=[r["path"] for r in TEE_ALONE])
def test_failure_mode_console_alone(run: dict[str, object]) -> None:
    """torchrun's --tee console by itself: never an innocent rank."""
    c = triage_paths(ROOT / str(run["path"]) / "console.log").conclusion
    _never_innocent(c, list(run["guilty_ranks"]), str(run["path"]))  # type: ignore[call-overload]
