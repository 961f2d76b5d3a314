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
