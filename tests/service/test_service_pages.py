"""The site's page renderers, as pure functions (no server)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

from rootcause.core.diagnosis import Diagnosis, diagnose_text
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry, Pattern, Rate, Workaround
from rootcause.core.render.diagnosis_html import render_diagnosis_html
from rootcause.core.render.diagnosis_view import diagnosis_markdown
from rootcause.core.render.pages import (
    SearchHit,
    render_browse,
    render_error_page,
    render_home,
    render_llms,
    render_robots,
    render_search,
    render_sitemap,
)

HOSTILE = '<script>alert(1)</script> & "quotes"'


def entry(slug: str, domain: str = "pytorch", category: str = "runtime_error", **extra: object) -> Entry:
    return Entry(
        id=f"{domain}/{slug}",
        modified=dt.date(2026, 1, 2),
        signature=f"RuntimeError: {slug} happened {HOSTILE}",
        signature_zh=f"运行时错误：{slug} 发生了",
        patterns=[Pattern(regex=f"RuntimeError: {slug} happened")],
        domain=domain,
        category=category,
        root_cause="because",
        workarounds=[Workaround(action="restart", how="rm -rf /tmp/x && run", success_rate=Rate(value=0.6))],
        **extra,  # type: ignore[arg-type]
    )


ENTRIES = [entry("alpha-error"), entry("beta-error", "cuda", "resource_error"), entry("gamma-error", generic=True)]


def test_home_has_a_labelled_paste_box_and_browse_links() -> None:
    html = render_home(ENTRIES, root="", server=True, max_upload="32 MiB")
    assert '<label for="text">' in html and 'id="text" name="text"' in html
    assert 'method="post" action="diagnose" enctype="multipart/form-data"' in html
    assert 'href="errors/cuda/index.html"' in html and 'href="categories/resource_error/index.html"' in html
    assert "Browse 3 known errors" in html and "32 MiB" in html
    static = render_home(ENTRIES, root="", server=False)
    assert (
        'action="search/index.html"' in static
        and 'name="q"' in static
        and "diagnose" not in static.split("<form")[1].split(">")[0]
    )


def test_browse_groups_and_escapes() -> None:
    html = render_browse(ENTRIES, root="../../", domain="pytorch")
    assert 'href="../../errors/pytorch/alpha-error/index.html"' in html
    assert "cuda/beta-error" not in html and "generic" in html
    assert HOSTILE not in html and "&lt;script&gt;" in html
    assert '<strong aria-current="page">pytorch</strong>' in html
    by_category = render_browse(ENTRIES, root="../../", category="resource_error")
    assert "cuda/beta-error" in by_category and "alpha-error" not in by_category


def test_search_page_server_and_static() -> None:
    hits = [SearchHit(ENTRIES[0], 1.0, "pattern"), SearchHit(ENTRIES[1], 0.5, "text")]
    html = render_search(HOSTILE, hits, root="../", server=True)
    assert "1–2 of 2 results" in html and "matches the message" in html and "mentions the words · 0.50" in html
    assert HOSTILE not in html
    static = render_search("", [], root="../", server=False)
    assert '<script src="../search-index.js"></script>' in static and "<noscript>" in static


def test_diagnosis_page_shows_what_the_cli_shows() -> None:
    index = CompiledIndex(ENTRIES)
    d = diagnose_text(f"RuntimeError: alpha-error happened {HOSTILE}", index, {"torch": "2.1.0"})
    html = render_diagnosis_html(d)
    f = d.findings[0]
    assert f'<a href="errors/{f.id}/index.html" class="entry-link">{f.id}</a>' in html
    assert f"score {f.score:.2f}" in html and "matched by pattern" in html
    assert "60% success</span>, estimate" in html and "rm -rf /tmp/x &amp;&amp; run" in html
    assert "Environment: torch==2.1.0" in html
    assert HOSTILE not in html  # the pasted line is shown, escaped
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert diagnosis_markdown(d).split("\n")[0] in html  # the Markdown copy for an issue


def test_diagnosis_page_abstains_honestly() -> None:
    d = Diagnosis(matched=False, findings=[], abstain_reason="no known error matched: nothing")
    html = render_diagnosis_html(d, root="")
    assert "No known error matched." in html and "no known error matched: nothing" in html


def test_llms_txt_is_plain_markdown() -> None:
    text = render_llms(ENTRIES, base="https://x.org/", server=True)
    assert text.startswith("# rootcause\n\n> ")
    assert "## cuda" in text and "## pytorch" in text
    assert "- [pytorch/alpha-error](https://x.org/errors/pytorch/alpha-error/index.md): RuntimeError" in text
    assert "&amp;" not in text and "&lt;" not in text  # a text file, not HTML
    assert "https://x.org/api/v1/diagnose" in text
    assert "api/v1" not in render_llms(ENTRIES)  # a static copy has no API


def test_sitemap_and_robots() -> None:
    root = ET.fromstring(render_sitemap(ENTRIES, "https://x.org/"))
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    locs = [u.find(f"{ns}loc").text for u in root]  # type: ignore[union-attr]
    assert "https://x.org/index.html" in locs and "https://x.org/errors/cuda/beta-error/zh.html" in locs
    assert root[len(locs) - 1].find(f"{ns}lastmod").text == "2026-01-02"  # type: ignore[union-attr]
    robots = render_robots("https://x.org/")
    assert "Disallow: /-/" in robots and "Sitemap: https://x.org/sitemap.xml" in robots


def test_error_page() -> None:
    html = render_error_page(404, "Not found", f"no entry {HOSTILE}")
    assert "<h1>404 — Not found</h1>" in html and HOSTILE not in html and 'role="alert"' in html
