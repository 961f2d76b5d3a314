"""A large canon's prefilter holds one-line patterns by their required literal (core/matching/index.py): the
diagnoses stay those of the prefilter that holds every pattern whole."""

from __future__ import annotations

import pytest
from engine_helpers import make_entry

from rootcause.adapters.loading import load_entries
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.heads import required_literal
from rootcause.core.matching.index import CompiledIndex, hyperscan
from rootcause.core.matching.large_prefilter import COVER_MAX, last_line_literal, literal_cover, unbounded_repeats
from rootcause.core.matching.prefilter_db import literal_hold
from rootcause.core.matching.scan import iter_text_chunks

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
    assert sum(by_literal.window_of(i) > 1 for i in by_literal._by_literal) >= 10  # multi-line ones by their last line
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


@pytest.mark.parametrize(
    ("regex", "literal"),
    [
        (r"Traceback \(most recent call last\):\n[^\n]*\n[^\n]*DemoFault: rank (?P<rank>\d+) lost", "DemoFault: rank "),
        (r"^Couldn't cast\n[\s\S]*because column names don't match", "because column names don't match"),
        (r"from torch\._C import \*\n\s*ImportError: DLL load failed", "ImportError: DLL load failed"),
        # after the literal the pattern may cross a line: the match may end on a later line than the literal's
        (r"Segmentation fault occurred here\s+\d+", ""),
        (r"first line of the message(?:\n[^\n]*)?", ""),
        (r"(?s)first line of the message.*end", ""),  # a dot that crosses lines
        (r"(?i)first line\nsecond line of it", ""),  # case folded: no byte-wise literal
        (r"one line\n(?:alpha|beta) second line [^\n]*$", " second line "),
        (r"one line\n[^x]+ second line", " second line"),  # what crosses lines before the literal does not matter
        (r"one line\n second line[^x]+", ""),  # a negated class without the newline crosses it
        (r"one line\n second line[^\\s]+", ""),  # not a backslash nor an s: the newline is in it
        (r"one line\n second line[^\s]+", " second line"),
    ],
)
def test_last_line_literal(regex: str, literal: str) -> None:
    assert last_line_literal(regex) == literal


@pytest.mark.parametrize(
    ("regex", "loose"),
    [
        (r"a\n[^\n]{0,128}?b", r"a\n[^\n]*b"),
        (r"(?:x\n){1,48}?y{2,3}z{3}w{2,}", r"(?:x\n)+y+z{3}w{2,}"),  # exact and open repeats stay
        (r"\{0,3\}[{0,3}]", r"\{0,3\}[{0,3}]"),  # escaped braces and a class's braces are text
    ],
)
def test_unbounded_repeats(regex: str, loose: str) -> None:
    assert unbounded_repeats(regex) == loose


@needs_hyperscan
def test_a_multi_line_pattern_held_by_its_last_line_is_found_across_framing_and_chunks() -> None:
    entry = make_entry(
        "pytorch/demo-multi",
        r"DemoWorker failed on host (?P<host>\w+)\n(?:[^\n]*\n){0,3}?[^\n]*DemoFault: rank (?P<rank>\d+) lost its peer",
        "DemoWorker failed on host alpha\nDemoFault: rank 3 lost its peer",
        window=5,
    )
    index = CompiledIndex([entry], literal_above=0)
    assert sorted(index._by_literal) == [0]
    held = literal_hold(entry.patterns[0].regex, 5, 8)
    assert held == (["".join(f"\\x{b:02x}" for b in b"DemoFault: rank ")], 0)
    noise = "".join(f"step {i} loss 0.5\n" for i in range(5000))
    log = f"{noise}[rank1]: DemoWorker failed on host beta\n[rank1]: detail\n[rank1]: DemoFault: rank 7 lost its peer\n{noise}"
    from rootcause.core.diagnosis import SourceInput, diagnose_sources

    for size in (64, 4096, 1 << 20):  # the window split across chunks, or not
        found = diagnose_sources([SourceInput("log", iter_text_chunks(log, size))], index)
        assert [(f.id, f.params.get("rank"), f.params.get("host")) for f in found.findings] == [
            ("pytorch/demo-multi", "7", "beta")
        ], size
    lone = diagnose_sources([SourceInput("log", iter_text_chunks(noise + "DemoFault: rank 7 lost its peer\n"))], index)
    assert not lone.findings  # the literal alone is no match: RE2 confirms the whole window


@pytest.mark.parametrize(
    ("regex", "cover", "caseless"),
    [
        (r"plain required literal (?P<n>\d+)", ("plain required literal ",), False),
        (r"(?i)Failed to load PyTorch C extensions", ("Failed to load PyTorch C extensions",), True),
        (
            r"rendezvous\.api\.RendezvousTimeoutError|RendezvousTimeoutError: ",
            ("rendezvous.api.RendezvousTimeoutError", "RendezvousTimeoutError: "),
            False,
        ),
        (
            r"(?:Worker \w+ pid (?P<pid>\d+) died, exit code: -6|worker died \(-6\))(?:\D|$)",
            (" died, exit code: -6", "worker died (-6)"),
            False,
        ),
        (r"NCCL aborted on rank (?P<rank>\d+).*(?i:allreduce)", ("NCCL aborted on rank ",), False),  # a scoped flag
        (r"(?:zsh: |\d+ +)(?P<signal>segmentation fault|bus error)", ("segmentation fault", "bus error"), False),
        (r"(?:short|segmentation fault)", (), False),  # one alternative too short: no cover
        (r"(?:optional group text)?xyz", (), False),  # an optional group is not passed through by every match
        (r"(?:group text repeated)*xyz", (), False),
        (r"abc(?i)defghijklmn", (), False),  # flags set midway
        (r"\x41bcdefghijklmn", (), False),  # an escape of more than one character
        ("|".join(f"alternative number {i}" for i in range(COVER_MAX + 1)), (), False),  # too many literals
    ],
)
def test_literal_cover(regex: str, cover: tuple[str, ...], caseless: bool) -> None:
    assert literal_cover(regex, 8) == (cover, caseless)


@needs_hyperscan
def test_a_pattern_held_by_several_literals_or_caseless_is_found_by_each() -> None:
    alternation = make_entry(
        "pytorch/demo-cover",
        r"(?:DemoWorker \w+ pid (?P<pid>\d+) died, exit code: -6|demo worker died \(-6\))",
        "DemoWorker a pid 12 died, exit code: -6",
    )
    folded = make_entry(
        "pytorch/demo-folded", r"(?i)failed to load demo c extensions", "Failed to load demo C extensions"
    )
    index = CompiledIndex([alternation, folded], literal_above=0)
    assert sorted(index._by_literal) == [0, 1]
    held = literal_hold(folded.patterns[0].regex, 1, 8)
    assert held is not None and held[1] == hyperscan.HS_FLAG_CASELESS
    scratch = index.hs_scratch.clone()
    assert index.candidates("DemoWorker a pid 12 died, exit code: -6", 1, scratch) == [0]
    assert index.candidates("oops: demo worker died (-6) again", 1, scratch) == [0]
    assert index.candidates("demo worker died (-7)", 1, scratch) == []
    assert index.candidates("FAILED TO LOAD DEMO C EXTENSIONS", 1, scratch) == [1]
    assert [f.id for f in diagnose_text("FAILED TO LOAD DEMO C EXTENSIONS", index).findings] == ["pytorch/demo-folded"]
