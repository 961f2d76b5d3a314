"""The prefilter never misses a line that its pattern matches on the canon's own examples (core/matching/prefilter_db.py).

Hyperscan 5.4 (python-hyperscan 0.9.1) misses zsh's crash report after any line of twelve or more characters when the
pattern is written ``(?:zsh: |\\d+ +)...(?: \\(core dumped\\))? +python``; the index build finds that on the entry's
own example and holds the pattern by its literals instead.
"""

from __future__ import annotations

import pytest
from engine_helpers import index_of, make_entry

from rootcause.adapters.loading import load_entries
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.prefilter_db import PROBE_PREFIXES, Scanned, build_prefilter

hyperscan = pytest.importorskip("hyperscan")

ZSH_CRASH = (
    r"(?:zsh: |\d+ +)(?P<signal>segmentation fault|bus error|floating point exception|illegal hardware instruction)"
    r"(?: \(core dumped\))? +(?P<command>(?:\S*/)?(?:python[\d.]*|pytest)\b[^\n]*)"
)
ZSH_LINE = "zsh: segmentation fault  python train.py"


def _entry():
    return make_entry("pytorch/zsh-crash", ZSH_CRASH, ZSH_LINE)


@pytest.mark.parametrize("before", ["", "import numpy\n", "x" * 40 + "\n", "Traceback (most recent call last):\n"])
def test_the_zsh_report_is_found_after_any_line(before: str) -> None:
    found = diagnose_text(before + ZSH_LINE + "\n", index_of(_entry()))
    assert [f.id for f in found.findings] == ["pytorch/zsh-crash"]


def test_a_pattern_the_prefilter_misses_is_held_by_its_literals() -> None:
    index = index_of(_entry())
    scratch = index.take_scratch()
    hits: list[int] = []
    data = b"a line of more than twelve characters\n" + ZSH_LINE.encode() + b"\n"
    index.hs_db.scan(data, match_event_handler=lambda i, *_: hits.append(i), scratch=scratch)
    assert 0 in hits
    assert index.prefilter_blind == []


def test_a_pattern_still_missed_is_reported_blind() -> None:
    # hyperscan's blind spot with the literals behind an escape (\x20): nothing to hold it by
    blind = ZSH_CRASH.replace(r"(?: \(core dumped\))?", r"(?:\x20\(core dumped\))?")
    scanned = [Scanned(blind, 1, "x/blind", (ZSH_LINE,)), Scanned("ghi", 1, "x/fine", ("ghi",))]
    built = build_prefilter(scanned, [], large_holds={}, large=False)
    assert built.blind == [0]
    assert not built.by_literal  # the one found as written is left as it was


def test_every_probe_prefix_ends_with_a_line_end() -> None:
    assert all(p == b"" or p.endswith(b"\n") for p in PROBE_PREFIXES)


def test_the_shipped_canon_has_no_blind_pattern() -> None:
    from rootcause.core.matching.index import CompiledIndex

    index = CompiledIndex(load_entries())
    assert [(p.entry_id, p.regex) for p in index.prefilter_blind] == []


def test_lint_names_a_pattern_the_prefilter_misses_and_no_literal_holds() -> None:
    """RC112: the same blind spot, with the literal hidden behind an escape (``\\x20``), so nothing can heal it."""
    from rootcause.core.lint import lint_entries

    blind = make_entry(
        "pytorch/zsh-crash-blind", ZSH_CRASH.replace(r"(?: \(core dumped\))?", r"(?:\x20\(core dumped\))?"), ZSH_LINE
    )
    codes = {f.code for f in lint_entries([(blind, "blind.yaml")], known_env=set())}
    assert "RC112" in codes
    assert "RC112" not in {f.code for f in lint_entries([(_entry(), "healed.yaml")], known_env=set())}
