"""The coverage scorer (bench/coverage.py) counts what it says it counts, on a small hand-made set.

The corpus's own figures are never asserted: they are measured (bench/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from testkit import load_script

coverage = load_script("bench/coverage.py", "coverage_bench")
Answer, Case = coverage.Answer, coverage.Case


def _case(cid: str, expected: tuple[str, ...] = (), kind: str = "positive", split: str = "dev", repo: str = "a/b"):
    domain = "negative" if kind == "negative" else expected[0].split("/")[0] if expected else "none"
    return Case(cid, repo, kind, expected, split, "paste", domain)


CASES = [
    _case("hit", ("cuda/oom",)),  # covered, right
    _case("second-ok", ("cuda/oom", "cuda/oom-alt")),  # covered, the second expected id is right too
    _case("wrong", ("cuda/oom",)),  # covered, wrong claim
    _case("missed", ("nccl/x",), repo="c/d"),  # covered, abstained: neither right nor wrong
    _case("honest"),  # uncovered, abstained: right
    _case("overclaim"),  # uncovered, claimed: wrong
    _case("neg-quiet", kind="negative"),
    _case("neg-claimed", kind="negative"),
    _case("test-hit", ("cuda/oom",), split="test"),
]
ANSWERS = {
    "hit": Answer("cuda/oom"),
    "second-ok": Answer("cuda/oom-alt"),
    "wrong": Answer("cuda/other", claimed_by="lexical"),
    "missed": Answer(None),
    "honest": Answer(None),
    "overclaim": Answer("pytorch/x", by_family=True),
    "neg-quiet": Answer(None),
    "neg-claimed": Answer("pytorch/x"),
    "test-hit": Answer("cuda/oom"),
}


def test_figures_of_a_hand_made_set() -> None:
    dev = coverage.score(CASES, ANSWERS).figures()["by_split"]["dev"]
    assert dev["positives"] == 6 and dev["covered"] == 4 and dev["negatives"] == 2
    assert dev["coverage"] == round(4 / 6, 4)
    assert dev["top1_on_covered"] == 0.5  # hit, second-ok of 4 covered
    assert dev["right_of_positives"] == 0.5  # hit, second-ok, honest of 6
    assert dev["wrong_claims_of_positives"] == round(2 / 6, 4)  # wrong, overclaim
    assert dev["wrong_family_claims_of_positives"] == round(1 / 6, 4)  # overclaim, by a family entry
    assert dev["wrong_claims_on_uncovered"] == 1  # overclaim; "wrong" names another entry than expected
    assert dev["wrong_lexical_claims"] == 1  # wrong, claimed by the lexical stage
    assert dev["honest_abstention"] == 0.5  # honest of honest, overclaim
    assert dev["negative_abstention"] == 0.5


def test_splits_repositories_and_domains_are_kept_apart() -> None:
    figures = coverage.score(CASES, ANSWERS).figures()
    assert figures["by_split"]["test"]["positives"] == 1
    assert figures["by_split"]["all"]["positives"] == 7
    assert figures["by_repo"]["dev"]["c/d"]["top1_on_covered"] == 0.0
    assert figures["by_domain"]["dev"]["none"]["honest_abstention"] == 0.5
    assert figures["by_domain"]["dev"]["nccl"]["covered"] == 1
    assert figures["by_domain"]["dev"]["negative"]["negatives"] == 2


def test_empty_groups_give_no_ratio_rather_than_a_zero() -> None:
    figures = coverage.score([_case("n", kind="negative")], {"n": Answer(None)}).figures()["by_split"]["dev"]
    assert figures["coverage"] is None and figures["top1_on_covered"] is None
    assert figures["negative_abstention"] == 1.0


def _write(root: Path, folder: str, items: object) -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "x.yaml").write_text(yaml.safe_dump(items), encoding="utf-8")


def test_loading_reads_both_folders_and_a_missing_split_is_dev(tmp_path: Path) -> None:
    _write(tmp_path, "cases", [{"id": "p", "repo": "a/b", "expected": ["cuda/oom"], "paste": "x", "split": "test"}])
    _write(tmp_path, "negatives", [{"id": "n", "expected": [], "paste": "y"}])
    cases = {c.id: c for c in coverage.load_corpus(tmp_path)}
    assert cases["p"].kind == "positive" and cases["p"].split == "test" and cases["p"].domain == "cuda"
    assert cases["n"].kind == "negative" and cases["n"].split == "dev" and cases["n"].domain == "negative"


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ({"id": "p"}, "a YAML list"),
        ([{"id": "p"}], "field 'paste'"),
        ([{"id": "p", "paste": "x", "split": "train"}], "field 'split'"),
        ([{"id": "p", "paste": "x"}, {"id": "p", "paste": "y"}], "appears twice"),
    ],
)
def test_a_bad_corpus_file_is_refused_naming_file_and_field(tmp_path: Path, items: object, message: str) -> None:
    _write(tmp_path, "cases", items)
    with pytest.raises(SystemExit, match=message) as exc:
        coverage.load_corpus(tmp_path)
    assert "x.yaml" in str(exc.value)


def test_a_key_given_twice_in_one_case_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "x.yaml").write_text(
        "- id: p\n  paste: x\n  note: first reader\n  note: second reader\n", encoding="utf-8"
    )
    with pytest.raises(SystemExit, match=r"x\.yaml: line 1: key 'note' appears twice") as exc:
        coverage.load_corpus(tmp_path)
    assert "x.yaml" in str(exc.value)


def test_the_engine_counts_neither_a_catch_all_nor_a_candidate_as_a_claim() -> None:
    answer = coverage.engine()
    oom = answer("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    assert oom.claim == "cuda/oom-caching-allocator"
    keyerror = answer(
        'Traceback (most recent call last):\n  File "t.py", line 1, in <module>\n    d["b"]\nKeyError: \'b\'\n'
    )
    assert keyerror.claim is None
    assert answer("bash: foo: command not found").claim is None
