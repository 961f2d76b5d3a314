"""Shared fixtures. Tests never read ../shared: the seeds are copied under tests/data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test session gets its own index cache; no test reads the user's."""
    monkeypatch.setenv("ROOTCAUSE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.delenv("ROOTCAUSE_CANON", raising=False)
    monkeypatch.delenv("ROOTCAUSE_ATLAS", raising=False)
    monkeypatch.delenv("ROOTCAUSE_NO_ATLAS", raising=False)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Playwright's sync API runs an event loop in this thread while it is open: one per module, so that
    the anyio-based MCP tests never find a loop left running, whatever order the tests run in."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is required (apt-get install chromium); .ci/run installs it")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
