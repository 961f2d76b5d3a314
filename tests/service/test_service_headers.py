"""Security headers on every page and API answer, over real HTTP: a strict CSP whose only
inline allowances are the hashes of the inline blocks the pages really carry, no sniffing,
no framing, a referrer policy, and Cache-Control that fits each kind of answer."""

from __future__ import annotations

import re

import httpx
import pytest
from service_support import SEED_ERROR, SEED_ID, Server

from rootcause.adapters.web.security import csp_hash

INLINE = re.compile(r"<(style|script)>(.*?)</\1>", re.DOTALL)
INLINE_ATTRIBUTE = re.compile(r"<[a-zA-Z][^>]*\s(style|on[a-z]+)\s*=", re.IGNORECASE)

PAGES = [
    "/",
    "/search/?q=NCCL+timeout",
    "/errors/",
    "/errors/pytorch/",
    f"/errors/{SEED_ID}/",
    f"/errors/{SEED_ID}/zh.html",
]


def directives(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def assert_common(r: httpx.Response) -> dict[str, list[str]]:
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "same-origin"
    csp = directives(r.headers["content-security-policy"])
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["default-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    for directive in ("script-src", "style-src"):
        assert "'unsafe-inline'" not in csp[directive] and "'unsafe-eval'" not in csp[directive]
        assert all(s == "'self'" or s.startswith("'sha256-") for s in csp[directive]), csp[directive]
    return csp


def assert_inline_blocks_hashed(r: httpx.Response) -> None:
    csp = assert_common(r)
    html = r.text
    blocks = INLINE.findall(html)
    for kind, body in blocks:
        assert csp_hash(body) in csp[f"{kind}-src"], f"{r.request.url}: an inline {kind} is not in the CSP"
    assert not INLINE_ATTRIBUTE.search(html), f"{r.request.url}: an inline style or handler attribute"


@pytest.mark.parametrize("path", PAGES)
def test_pages_carry_the_headers_and_only_hashed_inline_code(server: Server, path: str) -> None:
    with server.client() as c:
        r = c.get(path)
        assert r.status_code == 200, r.text
        assert_inline_blocks_hashed(r)
        assert r.headers["cache-control"] == "public, max-age=300"


def test_diagnosis_page_is_never_stored(server: Server) -> None:
    with server.client() as c:
        r = c.post("/diagnose", data={"text": SEED_ERROR})
        assert r.status_code == 200
        assert_inline_blocks_hashed(r)
        assert r.headers["cache-control"] == "no-store"


def test_api_answers_carry_the_headers(server: Server) -> None:
    with server.client() as c:
        cases = {
            ("POST", "/api/v1/diagnose"): "no-store",
            ("GET", f"/api/v1/entries/{SEED_ID}/outcomes"): "no-store",
            ("GET", f"/api/v1/entries/{SEED_ID}"): "no-cache",
            ("GET", "/api/v1/search?q=nccl"): "no-cache",
            ("GET", "/api/v1/stats"): "no-cache",
            ("GET", "/-/health"): "no-cache",
            ("GET", "/-/version"): "no-cache",
            ("GET", "/api/v1/openapi.json"): "no-cache",
            ("GET", "/llms.txt"): "public, max-age=300",
            ("GET", "/api/v1/nothing-here"): "no-store",
            ("POST", f"/api/v1/entries/{SEED_ID}/outcomes"): "no-store",  # 401
        }
        for (method, path), cache in cases.items():
            r = c.request(method, path, content=SEED_ERROR if method == "POST" else None)
            assert_common(r)
            assert r.headers["cache-control"] == cache, (method, path, r.status_code)


def test_swagger_ui_has_its_own_strict_policy(server: Server) -> None:
    with server.client() as c:
        r = c.get("/api/v1/docs")
        assert r.status_code == 200
        csp = directives(r.headers["content-security-policy"])
        assert csp["frame-ancestors"] == ["'none'"]
        assert "'unsafe-inline'" not in csp["script-src"]
        for kind, body in INLINE.findall(r.text):
            assert csp_hash(body) in csp[f"{kind}-src"]
