"""Which texts may match a truncated pattern (a message cut after its stable head, core/matching/heads.py): one
hyperscan scan for literals, one of which every match of each such pattern holds (``large_prefilter.literal_cover``),
in place of an RE2 set's match of every line of a small input, then each candidate's own RE2 pattern.

The wrap repair and the cut-paste pass (core/matching/scan_wrap.py) ask this of every line of an input up to 1 MiB:
a 200 KB log of 5,000 lines cost 30 ms in them, most of a fleet's time. A literal scan of all of a scan's texts at
once says which texts need a look; a text that holds none of the literals matches no truncated pattern.

Hyperscan folds ASCII case only, where RE2's ``(?i)`` also folds the Kelvin sign to ``k`` and the long s to ``s``:
those two are folded before a caseless literal is looked for. A pattern without a cover is tried on every text.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from rootcause.core.matching.large_prefilter import hyperscan_literal, literal_cover

try:
    import hyperscan
except ImportError:  # pragma: no cover - hyperscan is a core dependency; RE2 sets serve without it
    hyperscan = None  # type: ignore[assignment]

_KELVIN, _LONG_S = "\u212a".encode(), "\u017f".encode()  # RE2's (?i) folds these into ASCII letters


def _folded(text: str) -> bytes:
    data = text.encode("utf-8", "replace")
    if _KELVIN in data or _LONG_S in data:
        data = data.replace(_KELVIN, b"k").replace(_LONG_S, b"s")
    return data


class CutPrefilter:
    """The truncated patterns from index ``first`` on by their literals, for one index's lifetime."""

    def __init__(self, regexes: Sequence[str], first: int, minimum: int) -> None:
        """``regexes``: each pattern's stable head (or the pattern itself): a regex every match starts with."""
        by_literal: dict[tuple[str, bool], list[int]] = {}
        self.always: list[int] = []  # patterns no literal stands for: tried on every text
        for offset, regex in enumerate(regexes):
            texts, caseless = literal_cover(regex, minimum)
            if not texts or any("\n" in t or (caseless and not t.isascii()) for t in texts):
                self.always.append(first + offset)
                continue
            for text in texts:
                by_literal.setdefault((text, caseless), []).append(first + offset)
        self._members: list[list[int]] = list(by_literal.values())
        self._db: Any = None
        self._scratch: Any = None
        if by_literal:
            self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            self._db.compile(
                expressions=[hyperscan_literal(text).encode() for text, _ in by_literal],
                ids=list(range(len(by_literal))),
                elements=len(by_literal),
                flags=[hyperscan.HS_FLAG_CASELESS if caseless else 0 for _, caseless in by_literal],
            )
            self._scratch = hyperscan.Scratch(self._db)
        self._spare: list[Any] = []  # scratch clones that finished scans gave back (scans may run in parallel)

    def __getstate__(self) -> dict[str, Any]:
        """What the index cache and a fleet's payload keep: the literals' owners and the compiled database."""
        return {
            "members": self._members,
            "always": self.always,
            "db": None if self._db is None else hyperscan.dumpb(self._db),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._members, self.always = state["members"], state["always"]
        self._db = None if state["db"] is None else hyperscan.loadb(state["db"], hyperscan.HS_MODE_BLOCK)
        self._scratch = None if self._db is None else hyperscan.Scratch(self._db)
        self._spare = []

    def holding(self, texts: Sequence[str]) -> set[int]:
        """The indexes of the texts that hold any pattern's literal (all of them when a pattern has none)."""
        if self.always:
            return set(range(len(texts)))
        if self._db is None:
            return set()
        parts = [_folded(text) for text in texts]
        ends = list(itertools.accumulate(len(part) + 1 for part in parts))
        data = b"\n".join(parts)
        hits: set[int] = set()

        def on_match(_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            hits.add(bisect.bisect_left(ends, to))

        self._scan(data, on_match)
        return {n for n in hits if n < len(texts)}

    def matching(self, text: str, confirm: Callable[[int, str], Any]) -> list[int]:
        """The truncated patterns that match ``text``, in index order (each confirmed by ``confirm``)."""
        found: set[int] = set(self.always)
        if self._db is not None:
            members = self._members

            def on_match(literal: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
                found.update(members[literal])

            self._scan(_folded(text), on_match)
        return sorted(p for p in found if confirm(p, text) is not None)

    def _scan(self, data: bytes, on_match: Callable[[int, int, int, int, object], None]) -> None:
        try:
            scratch = self._spare.pop()
        except IndexError:
            scratch = self._scratch.clone()
        try:
            self._db.scan(data, match_event_handler=on_match, scratch=scratch)
        finally:
            self._spare.append(scratch)
