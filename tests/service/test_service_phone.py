"""Every kind of page in real Chromium (Debian's) against a real server: none is wider than a 390-pixel
phone, every one has a viewport meta and the site's navigation, and the console stays free of errors,
CSP violations included. The pages are the ones scripts/screenshots.py photographs (PAGE_KINDS).
Also: ranked search with counts and paging, browse filters, the entry page's first screen, the Chinese
page's original message, notices, offline API docs and the fleet report's axes, legend and links."""

from __future__ import annotations

import importlib.util
import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _screenshots() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["screenshots"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SHOTS = _screenshots()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with SHOTS.site(tmp_path_factory.mktemp("site")) as urls:
        yield urls


def _watch(page: Any) -> list[str]:
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    return console


def test_every_page_kind_fits_a_phone_with_a_clean_console(browser: Any, site: tuple[str, str]) -> None:
    url, report = site
    page = browser.new_page(viewport={"width": 390, "height": 844})
    console = _watch(page)
    for kind in SHOTS.PAGE_KINDS:
        kind.open(page, url, report)
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{kind.name} is {width} px wide on a 390 px phone"
        viewport = page.locator("meta[name=viewport]").get_attribute("content")
        assert viewport and "width=device-width" in viewport, kind.name
        if kind.name != "api-docs":
            assert page.locator("nav.site input[type=search]").count() == 1, f"{kind.name} has no search box"
        if kind.name == "not-found":  # the 404 itself is the one message this page may log
            console[:] = [m for m in console if "status of 404" not in m]
        assert console == [], f"{kind.name}: {console}"
    page.close()


def test_search_is_ranked_counted_and_paged(site: tuple[str, str]) -> None:
    url, _ = site
    with httpx.Client(base_url=url, timeout=30) as http:
        first = http.get("/search/", params={"q": "nccl"}).text
        m = re.search(r"1–20 of (\d+) results", first)
        assert m, "the results say how many there are"
        total = int(m.group(1))
        assert total > 20
        ids: list[str] = []
        for n in range(1, (total + 19) // 20 + 1):
            text = http.get("/search/", params={"q": "nccl", "page": n}).text
            ids += re.findall(r'<li><a href="[^"]*errors/([^"]+)/index\.html">', text)
        assert len(ids) == len(set(ids)) == total
        assert "pytorch/nccl-watchdog-timeout" in ids
        api = http.get("/api/v1/search", params={"q": "CUDA out of memory", "limit": 3}).json()
        assert api["results"][0]["id"] == "cuda/oom-caching-allocator" and api["total"] >= 3
        scores = [r["score"] for r in http.get("/api/v1/search", params={"q": "nccl timeout"}).json()["results"]]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1  # not every result scores 1.0
        # the language switch: the same results in Chinese, linking to the Chinese entry pages, and back
        zh = http.get("/search/", params={"q": "nccl", "lang": "zh"}).text
        assert '<html lang="zh-CN">' in zh and "<h1>搜索已知错误</h1>" in zh and f"1–20 / 共 {total} 条结果" in zh
        assert re.findall(r'<li><a href="[^"]*errors/([^"]+)/zh\.html">', zh) == ids[:20]
        assert re.search(r'<a class="lang" href="\?q=nccl" hreflang="en" lang="en">English</a>', zh)
        assert re.search(r'<a class="lang" href="\?q=nccl&amp;lang=zh" hreflang="zh"', first)
        browse = http.get("/errors/", params={"domain": "cuda", "lang": "zh"}).text
        assert "<h1>领域: cuda</h1>" in browse and "/zh.html" in browse and "lang=zh" in browse


def test_browse_filters_and_pages(site: tuple[str, str]) -> None:
    url, _ = site
    with httpx.Client(base_url=url, timeout=30) as http:
        everything = http.get("/errors/").text
        assert re.search(r"1–50 of \d+ entries · page 1 of \d+", everything) and 'rel="next"' in everything
        cuda = http.get("/errors/", params={"domain": "cuda", "category": "resource_error"}).text
        shown = re.findall(r'<li><a href="[^"]*errors/([^"]+)/index\.html">', cuda)
        assert shown and all(s.startswith("cuda/") for s in shown)
        assert "cuda/oom-caching-allocator" in shown and "cuda/illegal-memory-access" not in shown
        assert http.get("/errors/", params={"domain": "nope"}).status_code == 404
        assert http.get("/docs", follow_redirects=False).headers["location"] == "/api/v1/docs"


def test_entry_page_leads_with_the_fix_and_marks_what_is_unchecked(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(url + "/errors/cuda/oom-caching-allocator/")
    fix = page.locator(".first-fix")
    assert fix.bounding_box()["y"] + 120 < 900, "the fix starts on the first screen"
    assert "What to do first" in fix.inner_text() and "$" not in fix.locator("h2").inner_text()
    assert "Not reproduced by this project" in page.locator(".notice").inner_text()
    entry = httpx.get(url + "/api/v1/entries/cuda/oom-caching-allocator", timeout=30).json()
    actions = [w["action"] for w in entry["workarounds"]] + [d["action"] for d in entry["dead_ends"]]
    clipped = 0
    for item in page.locator("aside.provenance > ul:first-of-type > li").all_inner_texts():
        label = item.rsplit(": ", 1)[0].removeprefix("✗ ")
        if label.endswith("…"):  # cut: at a word boundary of a real action, never mid-word
            clipped += 1
            head = label[:-1]
            assert any(a.startswith(head) and a[len(head)] == " " for a in actions), label
        else:
            assert label in actions or label.startswith(("Fix Rate", "Confidence")), label
    assert clipped, "the entry has actions longer than the label's room"
    page.goto(url + "/errors/pytorch/nccl-timeout-allreduce/zh.html")
    assert page.locator("h1").inner_text().startswith("RuntimeError: [Rank 0] NCCL communicator was aborted")
    assert "运行时错误" in page.locator(".translation").inner_text()
    assert "AI" in page.locator(".notice.ai").inner_text()  # the seed is ai_generated
    assert page.locator("nav.site a.lang").inner_text() == "English"
    page.close()


def test_api_docs_load_nothing_from_another_origin(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(url + "/api/v1/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "rootcause" in page.locator(".swagger-ui .info .title").inner_text()
    assert all(r.startswith(url) or r.startswith("data:") for r in requested), requested
    page.close()


def test_fleet_report_has_axes_a_legend_and_linked_ids(browser: Any, site: tuple[str, str]) -> None:
    _, report = site
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(report)
    chart = page.locator("svg[aria-label='known errors and unknown lines per day']")
    texts = chart.locator("text").all_text_contents()
    assert "known errors" in texts and "unknown lines" in texts and "0" in texts
    assert chart.locator("line").count() >= 4  # two axes and ticks
    boxes = [b for b in (t.bounding_box() for t in chart.locator("text[text-anchor=middle]").all()) if b]
    for a, b in itertools.pairwise(boxes):
        assert a["x"] + a["width"] <= b["x"], "date labels overlap"
    links = page.locator("table a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert links and all(re.match(r"http://127\.0\.0\.1/errors/[a-z0-9-]+/[a-z0-9-]+/index\.html$", h) for h in links)
    page.close()
