"""Lint RC109: a paste cut after the message's first sentence still names the entry.

Users paste the first sentence of an error and stop; an issue title holds only that. For every single-line pattern,
its first example line is cut after the first sentence that ends inside the pattern's match (``CUDA out of
memory.``); when no pattern of the entry, nor any stable head derived from one (core/matching/heads.py), matches
the cut line, the entry is found only on whole pastes: the pattern demands text a cut paste has lost. A warning:
the fix is an optional tail, or a pattern for the short form when it names the error on its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rootcause.core.matching.patterns import compile_re2
from rootcause.core.normalize import strip_framing

if TYPE_CHECKING:
    from rootcause.core.matching.index import CompiledIndex
    from rootcause.core.model import Entry

# A sentence ends at a letter, a closing mark or a whole number, then '.', '!' or '?', before a capital or the line's
# end: not a version ("so.8.") or a dotted name (canon text only, never user input).
_NUMBER = re.compile(r"\d+")
SHARED_TAIL = 30  # this much of a cut line, found in another entry's example, means the two share a first sentence
_SENTENCE_END = re.compile(r"(?:[a-z)\]'\"`]|\s\d+)(?P<end>[.!?])(?:\s+[A-Z]|\s*$)")


def first_sentence_cut(line: str, start: int, end: int) -> str | None:
    """The line cut after the first sentence that ends between a match's start and its end, or None."""
    found = _SENTENCE_END.search(line, start)
    if found is None or found.end("end") >= end:
        return None
    return line[: found.end("end")]


def check_first_sentence(entries: dict[str, tuple[Entry, str]], index: CompiledIndex) -> list[tuple[str, str, str]]:
    """(path, code, message) for each single-line pattern whose example, cut after its first sentence, matches
    nothing of its entry (its patterns and their stable heads, as the index holds them)."""
    own: dict[str, list[int]] = {}
    for n, p in enumerate(index.patterns):
        if p.window == 1:
            own.setdefault(p.entry_id, []).append(n)
    out: list[tuple[str, str, str]] = []
    for entry_id, (entry, path) in entries.items():
        if entry.catch_all or entry_id not in index.entries:
            continue
        for n, pattern in enumerate(entry.patterns):
            if pattern.window != 1:
                continue
            cut = _first_cut(pattern.regex, [ex.text for ex in entry.examples])
            if cut is None or any(index.confirm(k, cut) is not None for k in own.get(entry_id, [])):
                continue
            if _shared(cut[-SHARED_TAIL:], entry_id, entries):
                continue  # another entry's message starts the same: the next sentence is what tells them apart
            shown = cut if len(cut) <= 100 else "…" + cut[-99:]
            message = (
                f"patterns.{n}: a paste cut after its first sentence ({shown!r}) matches none of the entry's "
                "patterns: make what follows optional, or add the short form when it names the error alone"
            )
            out.append((path, "RC109", message))
    return out


def _shared(sentence: str, entry_id: str, entries: dict[str, tuple[Entry, str]]) -> bool:
    """Whether another entry's example holds this sentence, numbers aside (``on rank 2.`` and ``on rank 0.``)."""
    wanted = _NUMBER.sub("0", sentence)
    return any(
        wanted in _NUMBER.sub("0", ex.text)
        for other, _ in entries.values()
        if other.id != entry_id
        for ex in other.examples
    )


def _first_cut(regex: str, examples: list[str]) -> str | None:
    """The first example line this pattern matches, cut after its first sentence (None: no such line, or its match
    holds no sentence end)."""
    rx = compile_re2(regex)
    for text in examples:
        for line in text.splitlines():
            clean = strip_framing(line).text
            m = rx.search(clean)
            if m is not None:
                return first_sentence_cut(clean, m.start(), m.end())
    return None
