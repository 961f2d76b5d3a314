"""Headless Chromium on the real server: paste the seed's error on the home page, see its
entry, open it, switch to Chinese. Screenshots go to test-artifacts/ (gitignored)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from service_support import SEED_ERROR, SEED_ID, Server

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def test_paste_diagnose_open_and_switch_to_chinese(browser: object, servers: dict[str, Server]) -> None:
    """Under the service's strict Content-Security-Policy: the hashed inline style applies, the
    hashed inline script runs (Ctrl+Enter sends the form), and the console reports nothing."""
    server = servers["sqlite"]
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 900})  # type: ignore[attr-defined]
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    response = page.goto(server.url + "/")
    assert "script-src 'self' 'sha256-" in response.headers["content-security-policy"]
    assert page.locator("h1").inner_text() == "Paste your error or log"
    button = page.get_by_role("button", name="Diagnose")
    assert button.evaluate("b => getComputedStyle(b).borderTopLeftRadius") == "6px"  # the hashed <style> applied
    page.screenshot(path=str(ARTIFACTS / "service-home.png"), full_page=True)
    page.get_by_label("Error message, traceback or log").fill(SEED_ERROR)
    page.get_by_label("Error message, traceback or log").press("Control+Enter")  # the hashed <script> ran
    page.wait_for_url("**/diagnose")
    first = page.locator("a.entry-link").first
    assert first.inner_text() == SEED_ID
    page.screenshot(path=str(ARTIFACTS / "service-diagnosis.png"), full_page=True)

    first.click()
    page.wait_for_url(f"**/errors/{SEED_ID}/index.html")
    assert "NCCL communicator was aborted" in page.locator("h1").inner_text()
    page.get_by_role("link", name="中文").first.click()
    page.wait_for_url(f"**/errors/{SEED_ID}/zh.html")
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    assert "NCCL communicator was aborted" in page.locator("h1").inner_text()  # the message as logs print it
    assert "运行时错误" in page.locator(".translation").inner_text()  # its translation beside it
    assert page.get_by_role("heading", name="根因").count() == 1
    page.screenshot(path=str(ARTIFACTS / "service-entry-zh.png"), full_page=True)

    phone = browser.new_page(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    phone.goto(server.url + "/")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the home page scrolls sideways on a phone"
    phone.goto(f"{server.url}/errors/{SEED_ID}/")
    phone.screenshot(path=str(ARTIFACTS / "service-entry-phone.png"), full_page=True)
    phone.close()
    page.close()
    assert console == [], console  # no CSP violation (nor any other error) on any page


def test_static_site_searches_and_links_without_a_server(browser: object, tmp_path: Path) -> None:
    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.site_export import build_site

    build_site(tmp_path / "site", load_entries())
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.get_by_label("Error message").fill("NCCL communicator was aborted 超时")
    page.locator("#content").get_by_role("button", name="Search").click()
    page.wait_for_url("**/search/index.html?q=*")
    link = page.locator(f'#results a[href$="errors/{SEED_ID}/index.html"]')
    link.wait_for()
    link.click()
    page.wait_for_url(f"**/errors/{SEED_ID}/index.html")
    assert "NCCL communicator was aborted" in page.locator("h1").inner_text()
    page.get_by_role("link", name="Browse").click()
    page.wait_for_url("**/errors/index.html")
    page.close()
