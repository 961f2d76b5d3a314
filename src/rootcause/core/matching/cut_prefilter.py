"""A large canon's prefilter for its cut forms (a message cut after its stable head, core/matching/heads.py).

The cut forms are tried only on lines no pattern matched, so they are not in the scan's hyperscan database; a canon
of a few thousand patterns asks RE2 sets of them. At 100,000 entries there are about 150,000 cut forms: 37 RE2 sets,
which took 32 CPU s to compile on the first cut line a process met. Past ``literal_above`` cut forms, each one with
a literal cover (large_prefilter.literal_cover: every line it matches holds one of its literals) is looked for by
those literals in a hyperscan database, which compiles literals in microseconds; the few without one stay in RE2
sets. Both over-match, never under-match: the caller confirms each candidate with its own RE2 pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rootcause.core.matching.heads import required_literal
from rootcause.core.matching.large_prefilter import literal_cover

SetsOf = Callable[[list[int]], list[tuple[Any, list[int]]]]  # RE2 sets over some members (CompiledIndex's)


class CutFormPrefilter:
    """Candidates among the cut forms ``members`` (indexes into ``regexes``) for one cleaned line."""

    def __init__(self, regexes: Sequence[str], members: list[int], sets_of: SetsOf, hyperscan: Any, minimum: int):
        by_literal: list[tuple[int, str, int]] = []  # (member, escaped literal, flags)
        rest: list[int] = []
        for member in members:
            regex = regexes[member]
            literal = required_literal(regex)
            texts, caseless = ((literal,), False) if len(literal) >= minimum else literal_cover(regex, minimum)
            if not texts or any("\n" in t for t in texts):
                rest.append(member)
                continue
            flags = hyperscan.HS_FLAG_CASELESS if caseless else 0
            by_literal += [(member, "".join(f"\\x{b:02x}" for b in t.encode()), flags) for t in texts]
        self.held_by_literal = len({member for member, _, _ in by_literal})
        self._sets = sets_of(rest) if rest else []
        self._db: Any = None
        self._scratch: Any = None
        if by_literal:
            self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            self._db.compile(
                expressions=[text.encode() for _, text, _ in by_literal],
                ids=[member for member, _, _ in by_literal],
                elements=len(by_literal),
                flags=[flags for _, _, flags in by_literal],
            )
            self._scratch = hyperscan.Scratch(self._db)

    def candidates(self, text: str) -> list[int]:
        found = {members[i] for rset, members in self._sets for i in (rset.Match(text) or ())}
        if self._db is not None:

            def on_match(member: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
                found.add(member)

            self._db.scan(text.encode("utf-8", "replace"), match_event_handler=on_match, scratch=self._scratch.clone())
        return sorted(found)
