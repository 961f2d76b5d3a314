"""`rootcause build-site DIR`: the whole site as plain files. Every link is relative,
so the folder works from any static host, a sub-path, or straight from the disk."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rootcause.adapters.reproducers import reproducer_views
from rootcause.adapters.store.terms import index_terms
from rootcause.core.model import Entry
from rootcause.core.render import render_document
from rootcause.core.render.pages import (
    render_browse,
    render_error_page,
    render_home,
    render_llms,
    render_robots,
    render_search,
    render_sitemap,
)
from rootcause.core.stats import Tally, recompute_all

ENTRY_FILES: tuple[tuple[str, str, str], ...] = (
    ("index.html", "html", "en"),
    ("zh.html", "html", "zh"),
    ("index.json", "json", "en"),
    ("index.md", "md", "en"),
    ("zh.md", "md", "zh"),
)


def search_index_data(entries: Sequence[Entry]) -> dict[str, Any]:
    """The search index: each live entry's terms (English words, Chinese pairs)."""
    return {
        "version": 1,
        "entries": [
            {
                "id": e.id,
                "href": f"errors/{e.id}/index.html",
                "signature": e.signature,
                "signature_zh": e.signature_zh,
                "domain": e.domain,
                "category": e.category,
                "terms": index_terms(e),
            }
            for e in sorted(entries, key=lambda e: e.id)
            if not e.is_withdrawn
        ],
    }


@dataclass(frozen=True)
class BuildReport:
    files: int
    entries: int
    bytes: int


class _Writer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.bytes = 0

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        self.files += 1
        self.bytes += len(data)


def build_site(
    out: Path,
    entries: Sequence[Entry],
    *,
    base_url: str = "",
    tallies: Mapping[str, Tally] | None = None,
    canon_roots: Sequence[Path] = (),
) -> BuildReport:
    """Write every page in every format; with ``tallies``, rates are measured ones."""
    if tallies:
        entries = recompute_all(entries, tallies)
    if base_url and not base_url.endswith("/"):
        base_url += "/"
    w = _Writer(out)
    w.write("index.html", render_home(entries, root="", server=False))
    w.write("errors/index.html", render_browse(entries, root="../"))
    for domain in sorted({e.domain for e in entries}):
        w.write(f"errors/{domain}/index.html", render_browse(entries, root="../../", domain=domain))
    for category in sorted({e.category for e in entries}):
        w.write(
            f"categories/{category}/index.html",
            render_browse(entries, root="../../", category=category),
        )
    w.write("search/index.html", render_search("", [], root="../", server=False))
    for e in entries:
        views = reproducer_views(e, canon_roots) if canon_roots else []
        for name, fmt, lang in ENTRY_FILES:
            w.write(f"errors/{e.id}/{name}", render_document(e, fmt, lang, views))  # type: ignore[arg-type]
    data = search_index_data(entries)
    w.write("search-index.json", json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    script = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    w.write("search-index.js", f"window.ROOTCAUSE_SEARCH = {script};\n")
    w.write("llms.txt", render_llms(entries, base=base_url))
    w.write("sitemap.xml", render_sitemap(entries, base_url))
    w.write("robots.txt", render_robots(base_url))
    w.write("404.html", render_error_page(404, "Not found", "There is no page at this address.", root="/"))
    return BuildReport(w.files, len(entries), w.bytes)
