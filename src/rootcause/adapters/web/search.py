"""Search, ranked: what a pasted message matches (the diagnosis engine's patterns) first, then every
entry that shares words with the query, by BM25 over the engine's own lexical index (signatures and
real examples; an entry whose message holds the query as a phrase first), then what only the store's
full-text index finds (Chinese words, prose)."""

from __future__ import annotations

from rootcause.adapters.store.terms import query_terms
from rootcause.adapters.web.state import ServiceState
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.render.pages import SearchHit

MAX_QUERY = 20_000
MAX_RESULTS = 500  # every match is counted and paged, up to this many


def ranked_search(state: ServiceState, query: str) -> list[SearchHit]:
    """Every match, best first. Scores are in [0, 1]: 1 for a pattern match, BM25 relative to the best
    word match otherwise."""
    query = query[:MAX_QUERY].strip()
    if not query:
        return []
    hits: list[SearchHit] = []
    seen: set[str] = set()

    def add(entry_id: str, score: float, matched_by: str) -> None:
        entry = state.entries.get(entry_id)
        if entry is not None and entry_id not in seen and not entry.is_withdrawn:
            hits.append(SearchHit(entry, score, matched_by))
            seen.add(entry_id)

    index = state.thread_index()
    for f in diagnose_text(query, index).findings:
        if f.matched_by == "pattern":
            add(f.id, 1.0, "pattern")
    ranked = index.lexical.rank(query, limit=MAX_RESULTS)
    top = ranked[0][1] if ranked else 1.0
    # the query as a phrase in an entry's message outranks the same words scattered
    phrase = " ".join(query.lower().split())
    has_phrase = {
        entry_id
        for entry_id, _ in ranked
        if entry_id in state.entries and phrase in " ".join(state.entries[entry_id].signature.lower().split())
    }
    for entry_id, score in sorted(ranked, key=lambda kv: kv[0] not in has_phrase):
        add(entry_id, round(score / top, 3), "words")
    for entry_id, score in state.store.search(query_terms(query), limit=MAX_RESULTS):
        add(entry_id, round(min(score, 1.0) * 0.5, 3), "text")
    return hits[:MAX_RESULTS]


def search_entries(state: ServiceState, query: str, limit: int = 30, offset: int = 0) -> tuple[list[SearchHit], int]:
    """One page of the ranked matches, and how many there are in all."""
    hits = ranked_search(state, query)
    return hits[offset : offset + limit], len(hits)
