"""Deriving the cut forms asks, for each pattern's head, whether another entry's pattern holds it. A large canon looks
heads up by sampled pieces of the joined skeletons instead of scanning them (core/matching/heads.py): the answers
must be those of the scan."""

from __future__ import annotations

import random

import pytest

import rootcause.core.matching.heads as heads
import rootcause.core.matching.skeletons as skeletons


def _scan(joined: str, head: str) -> set[int]:
    found, at = set(), joined.find(head)
    while at >= 0:
        found.add(at)
        at = joined.find(head, at + 1)
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pieces_find_every_occurrence_the_scan_finds(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rnd = random.Random(seed)
    words = ["cuda error", "no kernel", "\0", " is ", "failed to", "rank", "nccl", "x"]
    pairs = [(f"e{i % 40}", "".join(rnd.choice(words) for _ in range(rnd.randint(3, 30)))) for i in range(400)]
    monkeypatch.setattr(skeletons, "GRAMS_ABOVE", 0)
    indexed = skeletons.Skeletons(pairs)
    assert indexed.pieces is not None
    for _ in range(300):
        _, text = rnd.choice(pairs)
        start = rnd.randrange(len(text))
        head = text[start : start + rnd.randint(1, 40)]
        assert set(indexed.occurrences(head)) == _scan(indexed.joined, head), head


def test_a_large_canon_derives_the_same_heads_through_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    from rootcause.adapters.loading import load_entries

    entries = load_entries()
    scanned = sorted(heads.derive_heads(entries))
    monkeypatch.setattr(skeletons, "GRAMS_ABOVE", 0)
    assert sorted(heads.derive_heads(entries)) == scanned
