"""What the lexical stage reads of a line: torch's generic sentence after a message-less TORCH_CHECK says nothing
of the cause, so its words are not tokens (core/normalize.py)."""

from __future__ import annotations

from rootcause.core.matching.lexical import LexicalIndex
from rootcause.core.normalize import tokens

SUFFIX = "  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
CHECK = "RuntimeError: Expected dout.is_contiguous() to be true, but got false."
OTHER = "RuntimeError: Expected source.size(1) % kNumElementsPerBlock == 0 to be true, but got false."


def test_torchs_generic_suffix_gives_no_tokens() -> None:
    assert tokens(CHECK + SUFFIX) == tokens(CHECK)
    assert tokens(SUFFIX) == []


def test_two_checks_sharing_only_the_suffix_are_no_more_alike_than_without_it() -> None:
    index = LexicalIndex.build([("a/flash", CHECK + SUFFIX), ("b/other", "CUDA error: an illegal memory access")])
    with_suffix = dict(index.search(OTHER + SUFFIX, limit=3)).get("a/flash", 0.0)
    without = dict(index.search(OTHER, limit=3)).get("a/flash", 0.0)
    assert with_suffix == without
