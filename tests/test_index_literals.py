"""A large canon's prefilter holds one-line patterns by their required literal (core/matching/index.py): the
diagnoses stay those of the prefilter that holds every pattern whole."""

from __future__ import annotations

import pytest
from engine_helpers import make_entry

from rootcause.adapters.loading import load_entries
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.heads import required_literal
from rootcause.core.matching.index import CompiledIndex, hyperscan

needs_hyperscan = pytest.mark.skipif(hyperscan is None, reason="the prefilter is hyperscan's")


@pytest.mark.parametrize(
    ("regex", "literal"),
    [
        (
            r"^RuntimeError: CUDA out of memory\. Tried to allocate",
            "RuntimeError: CUDA out of memory. Tried to allocate",
        ),
        (r"No module named '(?P<module>[\w.]+)'", "No module named '"),
        (r"NCCL error in: (?P<file>\S+), unhandled (?:system|cuda) error", "NCCL error in: "),
        (r"Timeout\s+at rank \d+ after waiting for the store", " after waiting for the store"),
        (r"expected a+ value", "expected "),  # a repeated character is not required twice
        (r"colou?r mismatch", "r mismatch"),
        (r"foo|barbazquux", ""),  # a top-level alternation requires nothing
        (r"(?i)cuda error: out of memory", ""),  # case folded: no byte-wise literal
        (r"\x41BCDEFGHIJ", ""),  # an escape of more than one character
    ],
)
def test_required_literal(regex: str, literal: str) -> None:
    assert required_literal(regex) == literal


@needs_hyperscan
def test_every_canon_example_gets_the_same_diagnosis_from_the_literal_prefilter() -> None:
    entries = load_entries()
    whole, by_literal = CompiledIndex(entries), CompiledIndex(entries, literal_above=0)
    assert not whole._by_literal and len(by_literal._by_literal) > by_literal.n_scanned // 2
    for entry in entries:
        for example in entry.examples:
            a, b = diagnose_text(example.text, whole), diagnose_text(example.text, by_literal)
            assert b.model_dump() == a.model_dump(), example.text


@needs_hyperscan
def test_a_literal_hit_the_pattern_rejects_is_no_candidate() -> None:
    entry = make_entry(
        "pytorch/demo-literal", r"^DemoError: rank (?P<rank>\d+) lost its peer$", "DemoError: rank 3 lost its peer"
    )
    index = CompiledIndex([entry], literal_above=0)
    assert index._by_literal  # held by "DemoError: rank " in the prefilter
    assert index.candidates("DemoError: rank 3 lost its peer", 1, index.hs_scratch.clone()) == [0]
    assert index.candidates("DemoError: rank three, no peer lost", 1, index.hs_scratch.clone()) == []
    found = diagnose_text("noise\n[rank3]: DemoError: rank 3 lost its peer\nmore noise\n", index)
    assert [f.id for f in found.findings] == ["pytorch/demo-literal"]
