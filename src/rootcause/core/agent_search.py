"""Search results for coding agents: keyword ranking and a size-bounded list (see ``agent_view``).

Pure: data in, strings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rootcause.core.agent_clip import MAX_CHARS, Format, clip, dumps, flat
from rootcause.core.model import Entry


@dataclass(frozen=True)
class SearchResult:
    entry: Entry
    score: float
    matched_by: str  # id / pattern / lexical / words


_WORD = re.compile(r"[a-z0-9]{2,}")


def keyword_results(
    query: str, entries: Iterable[Entry], lexical: Mapping[str, float], floor: float = 0.2
) -> list[SearchResult]:
    """Entries ranked for a few words: the share of the words in the id, code and signature
    (most), in the cause and examples (less), plus the lexical index's similarity."""
    words = set(_WORD.findall(query.lower()))
    out: list[SearchResult] = []
    for entry in entries:
        sim = lexical.get(entry.id, 0.0)
        if words:
            head = " ".join([entry.id, entry.error_code or "", entry.signature, entry.category]).lower()
            body = " ".join([entry.root_cause, *(e.text for e in entry.examples)]).lower()
            in_head = sum(w in head for w in words) / len(words)
            in_body = sum(w in body for w in words) / len(words)
            score = 0.55 * in_head + 0.25 * in_body + 0.2 * sim
        else:
            score = sim
        if score >= floor:
            out.append(SearchResult(entry, score, "words"))
    return sorted(out, key=lambda r: (-r.score, r.entry.id))


def search_view(
    query: str, results: Sequence[SearchResult], *, fmt: Format = "text", max_chars: int = MAX_CHARS
) -> str:
    rows = [(r.entry.id, round(r.score, 3), r.matched_by, r.entry.signature) for r in results]
    for sig_cap in (200, 120, 60, 0):
        if fmt == "json":
            out = dumps(
                {
                    "query": flat(query, 200),
                    "results": [
                        {"id": i, "score": s, "matched_by": m, "signature": flat(sig, sig_cap)} for i, s, m, sig in rows
                    ],
                }
            )
        else:
            if not rows:
                return f"rootcause: no entry matches {flat(query, 200)!r}. Try other words, or diagnose(text)."
            lines = [f"rootcause: {len(rows)} entr{'y' if len(rows) == 1 else 'ies'} for {flat(query, 200)!r}:"]
            lines += [f"- {i} ({m} {s:.2f}): {flat(sig, sig_cap)}".rstrip(": ") for i, s, m, sig in rows]
            lines.append("next: get_entry(id)")
            out = "\n".join(lines)
        if len(out) <= max_chars:
            return out
    return clip(out, max_chars)


def entries_index(entries: Iterable[Entry]) -> str:
    """One line per entry: id and signature (the rootcause://entries resource)."""
    return "\n".join(f"{e.id}\t{flat(e.signature, 160)}" for e in sorted(entries, key=lambda e: e.id)) + "\n"
