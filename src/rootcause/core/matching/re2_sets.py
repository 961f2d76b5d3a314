"""RE2 sets over many patterns, in chunks RE2 can compile (core/matching/index.py's fallback scan and its cut forms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

TRUNCATED_SET_SIZE = 4096  # patterns per RE2 set (a 10k-entry canon failed to compile sets of 8,192 truncated heads)


class SetCompileError(Exception):
    def __init__(self, member: int) -> None:
        super().__init__(member)
        self.member = member


def compiled_sets(
    regexes: Sequence[str], members: list[int], options: re2.Options, chunk_size: int = TRUNCATED_SET_SIZE
) -> list[tuple[Any, list[int]]]:
    """RE2 sets over ``members`` (indexes into ``regexes``): chunks of at most ``chunk_size``, and a chunk that RE2
    cannot compile as one set (its memory budget and its simplifier's are per set, not per pattern) split in halves
    until each compiles, at most log2(chunk_size) splits deep. Each set's match ids index its member list."""
    chunks = [members[start : start + chunk_size] for start in range(0, len(members), chunk_size)]
    built: list[tuple[Any, list[int]]] = []
    while chunks:
        chunk = chunks.pop()
        rset = re2.Set.SearchSet(options)
        for i in chunk:
            rset.Add(regexes[i])
        try:
            rset.Compile()
        except re2.error:
            if len(chunk) == 1:
                raise SetCompileError(chunk[0]) from None
            chunks += [chunk[: len(chunk) // 2], chunk[len(chunk) // 2 :]]
            continue
        built.append((rset, chunk))
    return built
