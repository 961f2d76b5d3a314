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
from rootcause.core.render.labels import Lang
from rootcause.core.render.page_labels import PAGE_TEXT


@dataclass(frozen=True)
class SearchHit:
    entry: Entry
    score: float
    matched_by: str  # pattern (the message), words (BM25 over the lexical index), text (the store's index)


def _base(root: str, lang: Lang = "en") -> dict[str, Any]:
    return {"lang": lang, "lang_attr": "zh-CN" if lang == "zh" else "en", "root": root, "T": PAGE_TEXT[lang]}


def _switch(lang: Lang, **params: object) -> dict[str, str]:
    """The link to the same page in the other language."""
    other: Lang = "en" if lang == "zh" else "zh"
    return {
        "href": _query(**params, lang=other if other == "zh" else None),
        "lang": other,
        "text": PAGE_TEXT[lang]["switch"],
    }


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


def summary(e: Entry, root: str, lang: Lang = "en") -> dict[str, Any]:
    return {
        "id": e.id,
        "href": entry_href(e.id, root, lang),
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


def _groups(entries: Iterable[Entry], key: str, root: str, lang: Lang = "en") -> list[dict[str, Any]]:
    grouped: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: e.id):
        grouped.setdefault(getattr(e, key), []).append(e)
    return [
        {"heading": heading, "entries": [summary(e, root, lang) for e in group]}
        for heading, group in sorted(grouped.items())
    ]


BROWSE_PAGE_SIZE = 50
SEARCH_PAGE_SIZE = 20


def pager(total: int, page: int, size: int) -> dict[str, Any]:
    """Which slice a page shows, and the pages around it (1-based; a page past the end shows the last)."""
    pages = max(1, -(-total // size))
    page = min(max(1, page), pages)
    start = (page - 1) * size
    return {
        "page": page,
        "pages": pages,
        "start": start,
        "end": min(start + size, total),
        "total": total,
        "prev": page - 1 if page > 1 else None,
        "next": page + 1 if page < pages else None,
    }


def _encode(value: object) -> str:
    """Percent-encoding for a query value (RFC 3986 unreserved characters kept)."""
    return "".join(
        c if c.isascii() and (c.isalnum() or c in "-._~") else "".join(f"%{b:02X}" for b in c.encode())
        for c in str(value)
    )


def _query(**params: object) -> str:
    return "?" + "&".join(f"{k}={_encode(v)}" for k, v in params.items() if v not in (None, "", 1))


def render_browse(
    all_entries: Sequence[Entry],
    *,
    root: str,
    domain: str | None = None,
    category: str | None = None,
    page: int | None = None,
    base: str = "",
    lang: Lang = "en",
) -> str:
    """Entries filtered by domain and/or category, grouped (by category within a domain, by domain
    otherwise). ``page`` (server only) shows one page of BROWSE_PAGE_SIZE with a filter form, page
    links relative to ``base`` and a language switch; without it (the static export) every entry is listed."""
    t = PAGE_TEXT[lang]
    shown = [e for e in all_entries if (domain is None or e.domain == domain)]
    shown = [e for e in shown if category is None or e.category == category]
    shown.sort(key=lambda e: (e.category if domain else e.domain, e.id))
    parts = [f"{t['domain']}: {domain}" if domain else "", f"{t['category']}: {category}" if category else ""]
    title = " · ".join(p for p in parts if p) or t["all"]
    zh = "zh" if lang == "zh" else None
    paging = None
    switch = None
    if page is not None:
        paging = pager(len(shown), page, BROWSE_PAGE_SIZE)
        for key in ("prev", "next"):
            if paging[key] is not None:
                paging[key + "_href"] = base + _query(domain=domain, category=category, page=paging[key], lang=zh)
        switch = _switch(lang, domain=domain, category=category, page=paging["page"])
        visible = shown[paging["start"] : paging["end"]]
    else:
        visible = shown
    ctx = _base(root, lang) | _facets(all_entries, root, domain or category)
    ctx |= {
        "title": title,
        "count": len(shown),
        "groups": _groups(visible, "category" if domain else "domain", root, lang),
        "paging": paging,
        "lang_switch": switch,
        "filter": {"domain": domain or "", "category": category or "", "lang": zh} if page is not None else None,
    }
    return environment().get_template("browse.html").render(ctx)


def render_search(
    query: str,
    hits: Sequence[SearchHit],
    *,
    root: str,
    server: bool = True,
    total: int | None = None,
    page: int = 1,
    lang: Lang = "en",
) -> str:
    """One page of ranked results (``hits`` is that page), with "N–M of TOTAL", page links and (on the
    server) a language switch."""
    total = len(hits) if total is None else total
    zh = "zh" if lang == "zh" else None
    paging = pager(total, page, SEARCH_PAGE_SIZE)
    for key in ("prev", "next"):
        if paging[key] is not None:
            paging[key + "_href"] = _query(q=query, page=paging[key], lang=zh)
    why = {"pattern": "matches the message", "words": "shares its words", "text": "mentions the words"}
    results = [
        summary(h.entry, root, lang)
        | {"why": why.get(h.matched_by, h.matched_by) + ("" if h.matched_by == "pattern" else f" · {h.score:.2f}")}
        for h in hits
    ]
    switch = _switch(lang, q=query, page=paging["page"]) if server else None
    ctx = _base(root, lang) | {"query": query, "results": results, "server": server, "paging": paging}
    ctx |= {"lang_switch": switch, "hidden_lang": zh}
    return environment().get_template("search.html").render(ctx)


def render_unknown(templates: Sequence[dict[str, Any]], *, root: str = "../") -> str:
    """/-/unknown: the fleet's mined templates of unknown error lines, on the site's template."""
    rows = [
        {
            "id": t["id"],
            "count": t["count"],
            "jobs": len(t["jobs"]),
            "nodes": len(t["nodes"]),
            "template": t["template"],
            "examples": [ex[:300] for ex in t["examples"][:2]],
        }
        for t in templates
    ]
    return environment().get_template("unknown.html").render(_base(root) | {"templates": rows})


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
