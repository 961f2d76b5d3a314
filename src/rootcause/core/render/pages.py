"""The site's other pages: home, browse, search, error, and the files for machines
(llms.txt, sitemap.xml, robots.txt). Pure functions of entries; links are relative
to ``root`` so the same pages work from the server and as plain files."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from rootcause.core.model import Entry
from rootcause.core.render.html import entry_href, environment


@dataclass(frozen=True)
class SearchHit:
    entry: Entry
    score: float
    matched_by: str  # pattern / text


def _base(root: str) -> dict[str, Any]:
    return {"lang": "en", "lang_attr": "en", "root": root}


def domain_href(domain: str, root: str) -> str:
    return f"{root}errors/{domain}/index.html"


def category_href(category: str, root: str) -> str:
    return f"{root}categories/{category}/index.html"


def _tags(e: Entry) -> str:
    tags = [e.category, e.verification.value]
    if e.generic:
        tags.append("generic")
    if e.is_withdrawn:
        tags.append("withdrawn")
    return " · ".join(tags)


def summary(e: Entry, root: str) -> dict[str, Any]:
    return {
        "id": e.id,
        "href": entry_href(e.id, root),
        "signature": e.signature,
        "signature_zh": e.signature_zh,
        "tags": _tags(e),
    }


def _facets(entries: Sequence[Entry], root: str, current: str | None = None) -> dict[str, Any]:
    domains = Counter(e.domain for e in entries)
    categories = Counter(e.category for e in entries)
    return {
        "total": len(entries),
        "domains": [
            {"name": d, "count": n, "href": domain_href(d, root), "current": d == current}
            for d, n in sorted(domains.items())
        ],
        "categories": [
            {"name": c, "count": n, "href": category_href(c, root), "current": c == current}
            for c, n in sorted(categories.items())
        ],
    }


def render_home(entries: Sequence[Entry], *, root: str = "", server: bool = True, max_upload: str = "") -> str:
    ctx = _base(root) | _facets(entries, root) | {"server": server, "max_upload": max_upload}
    return environment().get_template("home.html").render(ctx)


def _groups(entries: Iterable[Entry], key: str, root: str) -> list[dict[str, Any]]:
    grouped: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: e.id):
        grouped.setdefault(getattr(e, key), []).append(e)
    return [
        {"heading": heading, "entries": [summary(e, root) for e in group]} for heading, group in sorted(grouped.items())
    ]


def render_browse(
    all_entries: Sequence[Entry],
    *,
    root: str,
    domain: str | None = None,
    category: str | None = None,
) -> str:
    """All entries by domain, one domain's entries by category, or one category's by domain."""
    if domain is not None:
        shown = [e for e in all_entries if e.domain == domain]
        title, groups = f"Domain: {domain}", _groups(shown, "category", root)
    elif category is not None:
        shown = [e for e in all_entries if e.category == category]
        title, groups = f"Category: {category}", _groups(shown, "domain", root)
    else:
        shown = list(all_entries)
        title, groups = "All known errors", _groups(shown, "domain", root)
    ctx = _base(root) | _facets(all_entries, root, domain or category)
    ctx |= {"title": title, "count": len(shown), "groups": groups}
    return environment().get_template("browse.html").render(ctx)


def render_search(query: str, hits: Sequence[SearchHit], *, root: str, server: bool = True) -> str:
    results = [
        summary(h.entry, root)
        | {"why": "matches the message" if h.matched_by == "pattern" else f"{round(h.score * 100)}% of the words"}
        for h in hits
    ]
    ctx = _base(root) | {"query": query, "results": results, "server": server}
    return environment().get_template("search.html").render(ctx)


def render_error_page(status: int, title: str, message: str, *, root: str = "/") -> str:
    ctx = _base(root) | {"status": status, "title": title, "message": message}
    return environment().get_template("error.html").render(ctx)


def render_llms(entries: Sequence[Entry], *, base: str = "", server: bool = False) -> str:
    """llms.txt: a compact Markdown index for language models (llmstxt.org)."""
    by_domain: dict[str, list[dict[str, str]]] = {}
    for e in sorted(entries, key=lambda e: e.id):
        if not e.is_withdrawn:
            by_domain.setdefault(e.domain, []).append({"id": e.id, "signature": " ".join(e.signature.split())[:300]})
    domains = [{"name": d, "entries": rows} for d, rows in sorted(by_domain.items())]
    text = environment().get_template("llms.txt").render(base=base, domains=domains, server=server)
    return text.rstrip("\n") + "\n"


def site_paths(entries: Sequence[Entry]) -> list[str]:
    """Every HTML page of the site, relative to its root."""
    paths = ["index.html", "errors/index.html", "search/index.html"]
    paths += [f"errors/{d}/index.html" for d in sorted({e.domain for e in entries})]
    paths += [f"categories/{c}/index.html" for c in sorted({e.category for e in entries})]
    for e in sorted(entries, key=lambda e: e.id):
        paths += [f"errors/{e.id}/index.html", f"errors/{e.id}/zh.html"]
    return paths


def render_sitemap(entries: Sequence[Entry], base: str) -> str:
    lastmod = {f"errors/{e.id}/{page}": e.modified.isoformat() for e in entries for page in ("index.html", "zh.html")}
    rows = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    for path in site_paths(entries):
        mod = f"<lastmod>{lastmod[path]}</lastmod>" if path in lastmod else ""
        rows.append(f"<url><loc>{xml_escape(base + path)}</loc>{mod}</url>")
    rows.append("</urlset>")
    return "\n".join(rows) + "\n"


def render_robots(base: str) -> str:
    lines = ["User-agent: *", "Allow: /", "Disallow: /api/", "Disallow: /-/", "Disallow: /diagnose"]
    return "\n".join(lines) + f"\n\nSitemap: {base}sitemap.xml\n"
