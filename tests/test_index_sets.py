"""RE2 sets too large to compile as one (a 10k-entry canon's truncated heads did not) are split in halves
until each compiles (core/matching/index.py ``compiled_sets``): every member stays matchable, and a pattern that
cannot compile even alone is named."""

from __future__ import annotations

import random
import string

import pytest
import re2

from rootcause.core.matching.re2_sets import SetCompileError, compiled_sets


def _truncated_head(word: str) -> str:
    """The shape the canon derives for a message cut short: a stable head, then each character optional, nested."""
    tail = ""
    for ch in reversed(word[12:]):
        tail = "(?:" + re2.escape(ch) + tail + ")?"
    return re2.escape(word[:12]) + tail


def _words(n: int) -> list[str]:
    rnd = random.Random(7)
    return [f"head{i:04d} " + "".join(rnd.choice(string.ascii_lowercase) for _ in range(60)) for i in range(n)]


def test_a_set_re2_refuses_is_split_and_every_member_still_matches() -> None:
    words = _words(1600)
    regexes = [_truncated_head(w) for w in words]
    one = re2.Set.SearchSet(re2.Options())  # RE2's default budget: 1,600 such heads do not compile as one set
    for regex in regexes:
        one.Add(regex)
    with pytest.raises(re2.error):
        one.Compile()

    sets = compiled_sets(regexes, list(range(len(regexes))), re2.Options(), chunk_size=len(regexes))

    assert len(sets) > 1
    assert sorted(i for _s, members in sets for i in members) == list(range(len(regexes)))
    for probe in (0, 799, 1599):
        line = words[probe][:30]  # a paste cut inside the message
        hits = [members[i] for rset, members in sets for i in (rset.Match(line) or ())]
        assert hits == [probe]


def test_chunks_are_bounded_by_the_chunk_size() -> None:
    regexes = [re2.escape(w) for w in _words(10)]
    sets = compiled_sets(regexes, list(range(10)), re2.Options(), chunk_size=4)
    assert sorted(len(members) for _s, members in sets) == [2, 4, 4]


def test_a_pattern_that_cannot_compile_even_alone_is_named() -> None:
    options = re2.Options()
    options.max_mem = 1 << 10  # too small for any program
    with pytest.raises(SetCompileError) as caught:
        compiled_sets(["a{100}b{100}c{100}"], [0], options)
    assert caught.value.member == 0
