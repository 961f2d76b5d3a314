"""What every request reads: the canon (entries and the compiled index) and the store."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from rootcause.adapters.canon_files import canon_dirs
from rootcause.adapters.loading import held_canon
from rootcause.adapters.reproducers import reproducer_views
from rootcause.adapters.store import Store, canon_fingerprint, open_store
from rootcause.adapters.web.settings import Settings
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry
from rootcause.core.render import render_document
from rootcause.core.stats import Recomputed, recompute
from rootcause.errors import CanonError, NotFoundError

_local = threading.local()
_blob_lock = threading.Lock()
_cache_lock = threading.Lock()
DOCUMENT_CACHE = 2048  # rendered entry files held (entry × format × language)
PAGE_REFRESH_SECONDS = 60


@dataclass
class ServiceState:
    settings: Settings
    store: Store
    index: CompiledIndex
    entries: dict[str, Entry]
    fingerprint: str
    domains: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)
    _blob: bytes | None = None
    _documents: dict[tuple[str, str, str], tuple[Any, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, settings: Settings) -> ServiceState:
        for root in canon_dirs(settings.canon):
            if not root.is_dir():
                raise CanonError(str(root), "canon folder does not exist")
        held = held_canon(settings.canon)  # the process's one loader, shared with the API, MCP and verify
        entries, index = held.entries, held.index
        store = open_store(settings.database_url)
        fingerprint = canon_fingerprint(entries)
        store.sync_index(entries, fingerprint)
        by_id = {e.id: e for e in entries}
        return cls(
            settings,
            store,
            index,
            by_id,
            fingerprint,
            {e.domain for e in entries},
            {e.category for e in entries},
        )

    @property
    def entry_list(self) -> list[Entry]:
        return list(self.entries.values())

    def thread_index(self) -> CompiledIndex:
        """The index for this request. Scans clone their own hyperscan scratch space, so one
        shared index serves every thread."""
        return self.index

    def entry(self, entry_id: str) -> Entry:
        entry = self.entries.get(entry_id)
        if entry is None:
            raise NotFoundError(f"no entry with id {entry_id!r}")
        return entry

    def measured(self, entry_id: str) -> Recomputed:
        """The entry with the rates its outcome reports support."""
        entry = self.entry(entry_id)
        return recompute(entry, self.store.tally(entry_id))

    def document(self, entry_id: str, fmt: str, lang: str) -> str:
        """An entry file (index.html, zh.md, …) with measured rates and, in HTML, fleet hit counts.

        One query per request (``page_token``: the newest outcome report and fleet hit, so every
        process sees another's writes); the page is rendered again only when that token changed,
        or every PAGE_REFRESH_SECONDS (the hit counts are rolling windows)."""
        self.entry(entry_id)
        stamp = (self.store.page_token(), int(time.time() // PAGE_REFRESH_SECONDS))
        key = (entry_id, fmt, lang)
        with _cache_lock:
            held = self._documents.get(key)
        if held is not None and held[0] == stamp:
            return held[1]
        text = self._render(entry_id, fmt, lang)
        with _cache_lock:
            self._documents.pop(key, None)
            if len(self._documents) >= DOCUMENT_CACHE:
                self._documents.pop(next(iter(self._documents)))
            self._documents[key] = (stamp, text)
        return text

    def _render(self, entry_id: str, fmt: str, lang: str) -> str:
        entry = self.entry(entry_id)
        tally = self.store.tally(entry_id)
        runs = self.store.tally(entry_id, source="reproducer")  # shown apart, never pooled with the field
        views = reproducer_views(entry, canon_dirs(self.settings.canon), runs if runs.reports else None)
        text = render_document(recompute(entry, tally).entry, fmt, lang, views)  # type: ignore[arg-type]
        if fmt == "html" and "</main>" in text:  # fleet hit counts, only when a fleet run hit the entry
            block = hits_block(self.hits(entry_id))
            if block:
                text = text.replace("</main>", block + "</main>", 1)
        return text

    def hits(self, entry_id: str) -> dict[str, int]:
        """Fleet hits of an entry in the last 24 hours, 7 days and 30 days."""
        from rootcause.adapters.fleet.store import FleetStore

        return FleetStore(self.store).rolling(entry_id)


def hits_block(counts: dict[str, int]) -> str:
    """A short HTML block for an entry page; empty when no fleet run ever hit the entry."""
    if not any(counts.values()):
        return ""
    return (
        "<section class='fleet-hits'><h2>Seen in fleet runs</h2><p>"
        f"{counts['24h']} in the last 24 hours · {counts['7d']} in 7 days · {counts['30d']} in 30 days</p></section>"
    )


def get_state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.rootcause
    return state


async def state_of(request: Request) -> ServiceState:
    """``get_state`` as a FastAPI dependency: async, so that resolving it costs no hop to a worker thread."""
    return get_state(request)
