"""The raw-text scan looks for a multi-line pattern by its last lines (heads.scan_tail): a superset of its matches."""

from __future__ import annotations

from rootcause.adapters.loading import load_entries
from rootcause.core.matching.heads import scan_tail
from rootcause.core.matching.patterns import compile_re2
from rootcause.core.normalize import strip_framing


def test_a_tail_keeps_the_flags_and_needs_a_literal() -> None:
    regex = r"(?i)(?:\bpython\b|import torch)[^\n]*\n(?:[^\n]*\n){0,10}?[^\n]*?\bSegmentation fault \(core dumped\)"
    assert scan_tail(regex) == r"(?i)(?:[^\n]*\n){0,10}?[^\n]*?\bSegmentation fault \(core dumped\)"
    assert (
        scan_tail(r"Couldn't cast array of type\n\S.*\nto(?:\n|$)") == r"Couldn't cast array of type\n\S.*\nto(?:\n|$)"
    )
    assert scan_tail(r"Traceback \(most recent call last\):\n(?:.*\n)*?RuntimeError: CUDA error") == (
        r"(?:.*\n)*?RuntimeError: CUDA error"
    )
    assert scan_tail(r"a\nfirst line|second\nline here") == r"a\nfirst line|second\nline here"  # top-level |
    assert scan_tail(r"no newline at all: CUDA error") == r"no newline at all: CUDA error"


def test_every_multi_line_patterns_tail_matches_where_the_pattern_does() -> None:
    checked = 0
    for entry in load_entries():
        for pattern in entry.patterns:
            if pattern.window == 1 or scan_tail(pattern.regex) == pattern.regex:
                continue
            whole, tail = compile_re2(pattern.regex), compile_re2(scan_tail(pattern.regex))
            for example in entry.examples:
                text = "\n".join(strip_framing(line).text for line in example.text.splitlines())
                m = whole.search(text)
                if m is None:
                    continue
                checked += 1
                ends_there = any(tail.fullmatch(text, start, m.end()) for start in range(m.end(), -1, -1))
                assert ends_there, (entry.id, pattern.regex)  # the tail ends where the pattern does
    assert checked >= 10
