"""The truncated patterns found by their literals (core/matching/cut_prefilter.py) answer as an RE2 set of them all
does, on every cut of every canon example's lines, with the framing, case and escapes that pastes carry; and the
wrap repair and cut-paste pass of a small input, which skip lines that hold no literal, find what they found before.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching.cut_prefilter import CutPrefilter
from rootcause.core.matching.index import CompiledIndex

pytest.importorskip("hyperscan")

FRAMES = ["", "[rank3]: ", "E   ", "  ", "> ", "**", "2024-06-30 19:22:20,123 - ERROR - ", "\x1b[31m", '"error": "']


@pytest.fixture(scope="module")
def index() -> CompiledIndex:
    return load_index()


def _by_re2_sets(index: CompiledIndex, text: str) -> list[int]:
    if index._truncated_sets is None:  # what truncated_candidates answered with before the literal prefilter
        index._truncated_sets = index._compiled_sets(list(range(index.n_scanned, len(index.patterns))))
    return sorted(m[i] for rset, m in index._truncated_sets for i in (rset.Match(text) or ()))


def _cut_lines(index: CompiledIndex, seed: int) -> list[str]:
    """Every canon example's lines cut at a random point past their first ten characters."""
    rnd = random.Random(seed)
    lines = [line for entry in index.entries.values() for ex in entry.examples for line in ex.text.splitlines() if line]
    return [line[: rnd.randint(min(10, len(line)), len(line))] for line in lines]


def test_every_cut_example_line_gets_the_same_truncated_patterns_as_an_re2_set(index: CompiledIndex) -> None:
    lines = _cut_lines(index, 11)
    found = 0
    for line in lines:
        expected = _by_re2_sets(index, line)
        assert index.truncated_candidates(line) == expected, line
        found += bool(expected)
    assert found > 500  # the comparison is not vacuous: most cut example lines match a cut form


def test_the_kelvin_sign_and_long_s_are_folded_as_re2_folds_them(index: CompiledIndex) -> None:
    caseless = [p for p in range(index.n_scanned, len(index.patterns)) if index.patterns[p].regex.startswith("(?i)")]
    assert caseless
    checked = 0
    for line in _cut_lines(index, 5):
        for swapped in (line.replace("k", "\u212a").replace("K", "\u212a"), line.replace("s", "\u017f")):
            if swapped != line:
                assert index.truncated_candidates(swapped) == _by_re2_sets(index, swapped), swapped
                checked += 1
    assert checked > 100


@settings(max_examples=60, deadline=None)
@given(frame=st.sampled_from(FRAMES), seed=st.integers(0, 10_000), noise=st.lists(st.text(max_size=80), max_size=8))
def test_holding_never_drops_a_line_a_cut_form_matches(frame: str, seed: int, noise: list[str]) -> None:
    index = load_index()
    rnd = random.Random(seed)
    lines = [frame + line for line in rnd.sample(_cut_lines(index, seed), 40)] + noise
    held = index.cut_prefilter().holding(lines)
    for n, line in enumerate(lines):
        if _by_re2_sets(index, line):
            assert n in held, line


def test_a_pickled_prefilter_answers_as_the_built_one(index: CompiledIndex) -> None:
    built = index.cut_prefilter()
    copy = pickle.loads(pickle.dumps(built))
    assert isinstance(copy, CutPrefilter)
    for line in _cut_lines(index, 3)[:400]:
        assert copy.matching(line, index.confirm) == built.matching(line, index.confirm)


def test_a_pattern_without_a_literal_is_tried_on_every_text() -> None:
    prefilter = CutPrefilter([r"\d+ items(?: left)?\s*$", r"Segmentation fa(?:u(?:lt)?)?\s*$"], 10, 8)
    assert prefilter.always == [10]
    assert prefilter.holding(["nothing here", "also nothing"]) == {0, 1}
    assert prefilter.matching("3 items", lambda p, text: {} if p == 10 else None) == [10]


def test_a_small_log_with_a_cut_line_deep_in_noise_is_diagnosed_by_the_cut_form(index: CompiledIndex) -> None:
    noise = [f"step {n}: loss 0.{n:04d} lr 3e-4 throughput {n * 7} samples/s, all ranks in step" for n in range(3000)]
    text = "\n".join([*noise, "RuntimeError: CUDA error: an illegal memory acc"]).encode()
    found = diagnose_sources([SourceInput("log", iter((text,)), None)], index)
    assert found.findings and found.findings[0].id == "cuda/illegal-memory-access"
