"""Every pattern's skeleton (its literal text, a NUL for each parameter), and whether another entry's pattern holds
a head: what core/matching/heads.py asks while deriving the cut forms."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate

GRAM = 8  # characters of a sampled piece of the joined skeletons
STRIDE = 8  # a piece is kept every STRIDE characters
GRAMS_ABOVE = 1_000_000  # characters of joined skeletons above which heads are looked up by their pieces


class Skeletons:
    """Every pattern's skeleton, joined into one text to search. Above ``GRAMS_ABOVE`` characters (a canon of some
    thousands of entries) the text is also indexed by the ``GRAM``-character pieces that start every ``STRIDE``
    characters: an occurrence of a head of at least ``GRAM + STRIDE - 1`` characters holds one of them at a known
    offset, so a head is found through its pieces' positions instead of a scan of the whole text (one scan per
    pattern made deriving the heads quadratic in the canon: 1,000 CPU s at 100,000 entries). Of a head's pieces at
    one alignment the rarest is looked up: a common one (``rror: \0``) is held by most patterns."""

    def __init__(self, skeletons: list[tuple[str, str]]) -> None:
        self.items = skeletons
        self.joined = "\x01".join(text for _, text in skeletons)
        self.starts = list(accumulate((len(text) + 1 for _, text in skeletons), initial=0))
        self.pieces: dict[str, list[int]] | None = None
        if len(self.joined) > GRAMS_ABOVE:
            pieces: dict[str, list[int]] = {}
            joined = self.joined
            for at in range(0, len(joined) - GRAM + 1, STRIDE):
                pieces.setdefault(joined[at : at + GRAM], []).append(at)
            self.pieces = pieces

    def occurrences(self, head: str) -> Iterator[int]:
        """Where ``head`` starts in the joined text (every occurrence, in no particular order)."""
        joined = self.joined
        if self.pieces is None or len(head) < GRAM + STRIDE - 1:
            at = joined.find(head)
            while at >= 0:
                yield at
                at = joined.find(head, at + 1)
            return
        pieces = self.pieces
        for offset in range(STRIDE):  # an occurrence at q holds the piece at the next multiple of STRIDE from q ...
            rarest: list[int] | None = None
            rarest_at = offset
            for at in range(offset, len(head) - GRAM + 1, STRIDE):  # ... and every STRIDE after: the rarest will do
                found = pieces.get(head[at : at + GRAM])
                if found is None:
                    rarest = []  # no occurrence of this alignment
                    break
                if rarest is None or len(found) < len(rarest):
                    rarest, rarest_at = found, at
            for at in rarest or ():
                start = at - rarest_at
                if start >= 0 and joined.startswith(head, start):
                    yield start


def held_elsewhere(all_: Skeletons, entry_id: str) -> Callable[[str], bool]:
    """Whether another entry's skeleton holds this head's: the same literal text, a parameter where it has one (a
    literal there is a narrower message, ``exitcode: -9`` against ``exitcode: N``, which the head does not hold)."""
    skeletons, starts = all_.items, all_.starts

    def shared(head: str) -> bool:
        head = head.lstrip("\0")
        if not head:
            return True
        return any(skeletons[bisect_right(starts, at) - 1][0] != entry_id for at in all_.occurrences(head))

    return shared
