"""Search: what the pasted text matches (the diagnosis engine), then the store's
full-text index (English words and Chinese character pairs)."""

from __future__ import annotations

from rootcause.adapters.store.terms import query_terms
from rootcause.adapters.web.state import ServiceState
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.render.pages import SearchHit

MAX_QUERY = 20_000


def search_entries(state: ServiceState, query: str, limit: int = 30) -> list[SearchHit]:
    query = query[:MAX_QUERY].strip()
    if not query:
        return []
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for f in diagnose_text(query, state.thread_index()).findings:
        if f.id in state.entries and f.id not in seen:
            hits.append(SearchHit(state.entries[f.id], f.score, "pattern" if f.matched_by == "pattern" else "lexical"))
            seen.add(f.id)
    for entry_id, score in state.store.search(query_terms(query), limit=limit):
        if entry_id in state.entries and entry_id not in seen:
            hits.append(SearchHit(state.entries[entry_id], score, "text"))
            seen.add(entry_id)
    return hits[:limit]
