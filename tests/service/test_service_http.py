"""The service contract over real HTTP, against both stores (the ``server`` fixture is
parametrised: every test here runs once on SQLite and once on PostgreSQL)."""

from __future__ import annotations

import html
import json
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

import httpx
import pytest
from service_support import SEED_ERROR, SEED_ID, Server, assert_error

from rootcause.core.render.pages import SEARCH_PAGE_SIZE

MakeToken = Callable[..., str]


def stats_of(c: httpx.Client, entry_id: str = SEED_ID) -> dict[str, object]:
    r = c.get(f"/api/v1/entries/{entry_id}/stats")
    assert r.status_code == 200
    return r.json()


# -- internal pages, machines' files, OpenAPI ---------------------------------------------------
def test_health_and_version(server: Server) -> None:
    with server.client() as c:
        health = c.get("/-/health").json()
        assert health["status"] == "ok"
        assert health["store"] in ("sqlite", "postgresql")
        assert health["entries"] >= 1
        version = c.get("/-/version").json()
        assert version["version"] and version["canon_fingerprint"]
        assert c.get("/-/nothing").status_code == 404


def test_llms_sitemap_robots(server: Server) -> None:
    with server.client() as c:
        llms = c.get("/llms.txt")
        assert llms.status_code == 200 and llms.headers["content-type"].startswith("text/plain")
        assert llms.text.startswith("# rootcause\n")
        assert f"{server.url}/errors/{SEED_ID}/index.md" in llms.text
        sitemap = c.get("/sitemap.xml")
        root = ET.fromstring(sitemap.content)
        locs = [el.text for el in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
        assert f"{server.url}/errors/{SEED_ID}/index.html" in locs
        assert f"{server.url}/errors/{SEED_ID}/zh.html" in locs
        robots = c.get("/robots.txt").text
        assert "Disallow: /api/" in robots and f"Sitemap: {server.url}/sitemap.xml" in robots


def test_openapi_document(server: Server) -> None:
    with server.client() as c:
        doc = c.get("/api/v1/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/api/v1/diagnose",
        "/api/v1/search",
        "/api/v1/entries",
        "/api/v1/entries/{domain}/{slug}",
        "/api/v1/entries/{domain}/{slug}/outcomes",
        "/api/v1/stats",
    ):
        assert path in paths, path
    assert "post" in paths["/api/v1/entries/{domain}/{slug}/outcomes"]
    assert "multipart/form-data" in paths["/api/v1/diagnose"]["post"]["requestBody"]["content"]


# -- pages --------------------------------------------------------------------------------------
def test_home_page(server: Server) -> None:
    with server.client() as c:
        r = c.get("/")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert r.headers["x-content-type-options"] == "nosniff"
        html = r.text
        assert '<label for="text">' in html and '<textarea id="text" name="text"' in html
        assert 'action="diagnose"' in html and "<h1>" in html
        assert c.get("/index.html").text == html
        assert c.head("/").status_code == 200


def test_diagnosis_page_links_the_entry(server: Server) -> None:
    hostile = "<script>alert('x')</script>"
    with server.client() as c:
        r = c.post("/diagnose", data={"text": f"{SEED_ERROR} {hostile}"})
        assert r.status_code == 200
        assert f'href="errors/{SEED_ID}/index.html"' in r.text
        assert hostile not in r.text and "&lt;script&gt;" in r.text
        files = {"file": ("rank2.log", SEED_ERROR.encode(), "text/plain")}
        r = c.post("/diagnose", data={"text": "", "env": "torch==2.1.0"}, files=files)
        assert r.status_code == 200 and SEED_ID in r.text and "torch==2.1.0" in r.text
        r = c.post("/diagnose", data={"text": "all good, nothing failed here"})
        assert r.status_code == 200 and "No known error matched." in r.text


def test_entry_pages_in_every_format(server: Server) -> None:
    base = f"/errors/{SEED_ID}/"
    with server.client() as c:
        expected = {
            "": "text/html",
            "index.html": "text/html",
            "zh.html": "text/html",
            "index.json": "application/json",
            "index.md": "text/markdown",
            "zh.md": "text/markdown",
        }
        bodies = {}
        for name, media in expected.items():
            r = c.get(base + name)
            assert r.status_code == 200, name
            assert r.headers["content-type"].startswith(media), name
            bodies[name] = r.text
        assert bodies[""] == bodies["index.html"]
        assert '<html lang="zh-CN">' in bodies["zh.html"]
        assert json.loads(bodies["index.json"])["id"] == SEED_ID
        assert bodies["index.md"].startswith("# RuntimeError")
        assert bodies["zh.md"].startswith("# 运行时错误")
        # every rate says what backs it
        assert 'data-basis="estimate"' in bodies["index.html"] or 'data-basis="measured"' in bodies["index.html"]
        # without the slash, a redirect (relative links need it)
        r = c.get(f"/errors/{SEED_ID}", follow_redirects=False)
        assert r.status_code == 308 and r.headers["location"].endswith(f"/errors/{SEED_ID}/")
        assert_error(c.get(f"/errors/{SEED_ID}/other.txt"), 404, "not_found")
        assert_error(c.get("/errors/pytorch/no-such-entry/index.json"), 404, "not_found")


def _all_pages(c: object, path: str) -> str:
    """A browse page and every page after it (rel=next), joined."""
    texts: list[str] = []
    url: str | None = path
    while url is not None:
        r = c.get(url)  # type: ignore[attr-defined]
        assert r.status_code == 200
        texts.append(r.text)
        m = re.search(r'<a rel="next" href="([^"]+)"', r.text)
        url = path.rsplit("/", 1)[0] + "/" + html.unescape(m.group(1)) if m else None
    return "".join(texts)


def test_browse_by_domain_and_category(server: Server) -> None:
    with server.client() as c:
        everything = _all_pages(c, "/errors/index.html")
        assert f'href="../errors/{SEED_ID}/index.html"' in everything
        domain = _all_pages(c, "/errors/pytorch/index.html")
        assert f'href="../../errors/{SEED_ID}/index.html"' in domain
        assert c.get("/errors/pytorch/").text == c.get("/errors/pytorch/index.html").text
        category = c.get("/categories/network_error/")
        assert category.status_code == 200 and SEED_ID in category.text
        assert_error(c.get("/errors/no-such-domain/"), 404, "not_found")
        page = c.get("/errors/no-such-domain/", headers={"accept": "text/html"})
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    "query",
    ["allreduce timed out", "NCCL communicator aborted", "通信器已被中止", "超时", SEED_ERROR],
)
def test_search_english_chinese_and_pasted(server: Server, query: str) -> None:
    with server.client() as c:
        # a one-word query ties many entries (every timeout entry says 超时), so look past the default page
        r = c.get("/api/v1/search", params={"q": query, "limit": 100})
        assert r.status_code == 200
        first = r.json()["results"]
        if query == SEED_ERROR:
            assert first[0]["id"] == SEED_ID and first[0]["matched_by"] == "pattern"
        # a one-word query ties many entries (ties go by id): the seed is on some page, not always the first
        ids: list[str] = []
        while True:
            chunk = c.get("/api/v1/search", params={"q": query, "limit": 100, "offset": len(ids)}).json()
            ids += [hit["id"] for hit in chunk["results"]]
            if not chunk["results"] or len(ids) >= chunk["total"]:
                break
        assert SEED_ID in ids, (query, ids)
        found_on = 1 + ids.index(SEED_ID) // SEARCH_PAGE_SIZE
        page = c.get("/search/", params={"q": query, "page": found_on})
        assert page.status_code == 200 and f'href="../errors/{SEED_ID}/index.html"' in page.text


def test_entries_and_stats_api(server: Server) -> None:
    with server.client() as c:
        listing = c.get("/api/v1/entries").json()
        assert listing["count"] == len(listing["entries"]) >= 1
        assert SEED_ID in {e["id"] for e in listing["entries"]}
        pytorch = c.get("/api/v1/entries", params={"domain": "pytorch"}).json()
        assert all(e["domain"] == "pytorch" for e in pytorch["entries"])
        entry = c.get(f"/api/v1/entries/{SEED_ID}").json()
        assert entry["id"] == SEED_ID and "rates" in entry
        stats = c.get("/api/v1/stats").json()
        assert stats["entries"] == listing["count"] and stats["store"] in ("sqlite", "postgresql")
        assert sum(stats["by_domain"].values()) == stats["entries"]


# -- diagnosis API ------------------------------------------------------------------------------
def test_diagnose_text_json_and_upload(server: Server) -> None:
    with server.client() as c:
        plain = c.post("/api/v1/diagnose", content=SEED_ERROR, headers={"content-type": "text/plain"})
        assert plain.status_code == 200
        d = plain.json()
        assert d["matched"] and d["findings"][0]["id"] == SEED_ID
        assert d["findings"][0]["params"]["rank"] == "2"
        as_json = c.post("/api/v1/diagnose", json={"text": SEED_ERROR, "env": {"torch": "2.1.0"}}).json()
        assert as_json["findings"][0]["id"] == SEED_ID and as_json["environment"]["torch"] == "2.1.0"
        upload = c.post(
            "/api/v1/diagnose",
            data={"env": "torch==2.2.0"},
            files=[
                ("file", ("rank0.log", b"starting\n", "text/plain")),
                ("file", ("rank2.log", f"noise\n{SEED_ERROR}\n".encode(), "text/plain")),
            ],
        ).json()
        assert [i["name"] for i in upload["inputs"]] == ["rank0.log", "rank2.log"]
        assert [i["rank"] for i in upload["inputs"]] == [0, 2]
        assert upload["findings"][0]["id"] == SEED_ID and upload["environment"]["torch"] == "2.2.0"
        none = c.post("/api/v1/diagnose", content=b"everything is fine", headers={"content-type": "text/plain"})
        assert none.json()["matched"] is False and none.json()["abstain_reason"]


def test_diagnose_size_limit_is_a_clear_413(server: Server) -> None:
    too_big = b"x" * (300 * 1024)  # the test servers allow 256 KiB
    with server.client() as c:
        error = assert_error(
            c.post("/api/v1/diagnose", content=too_big, headers={"content-type": "text/plain"}),
            413,
            "too_large",
        )
        assert "ROOTCAUSE_MAX_UPLOAD_BYTES" in str(error["message"])

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap holds while streaming
        for _ in range(30):
            yield b"y" * 10240

    with server.client() as c:
        assert_error(
            c.post("/api/v1/diagnose", content=chunks(), headers={"content-type": "text/plain"}),
            413,
            "too_large",
        )
        files = {"file": ("big.log", too_big, "text/plain")}
        assert_error(c.post("/api/v1/diagnose", files=files), 413, "too_large")


def test_error_shape_is_one_for_all(server: Server, make_token: MakeToken) -> None:
    with server.client() as c:
        assert_error(c.get("/api/v1/no-such-thing"), 404, "not_found")
        assert_error(c.get("/api/v1/entries/pytorch/no-such-entry"), 404, "not_found")
        assert_error(c.delete("/api/v1/stats"), 405, "method_not_allowed")
        assert_error(
            c.post("/api/v1/diagnose", content=b"", headers={"content-type": "text/plain"}), 400, "bad_request"
        )
        assert_error(c.get("/api/v1/search"), 422, "invalid_request")
        assert_error(c.get("/api/v1/search", params={"q": "x", "limit": 0}), 422, "invalid_request")
        r = c.post(f"/api/v1/entries/{SEED_ID}/outcomes", json={"index": 0, "result": "worked"})
        assert_error(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
        bad = {"authorization": "Bearer rc_not-a-real-token"}
        assert_error(
            c.post(f"/api/v1/entries/{SEED_ID}/outcomes", json={"index": 0, "result": "worked"}, headers=bad),
            401,
            "unauthorized",
        )


# -- outcome reports ----------------------------------------------------------------------------
def test_outcome_validation(server: Server, make_token: MakeToken) -> None:
    auth = {"authorization": f"Bearer {make_token(server)}"}
    url = f"/api/v1/entries/{SEED_ID}/outcomes"
    bad_bodies = [
        {"index": 0, "result": "meh"},
        {"index": -1, "result": "worked"},
        {"index": 99, "result": "worked"},
        {"kind": "dead_end", "index": 50, "result": "failed"},
        {"kind": "fix", "index": 0, "result": "worked"},
        {"index": 0, "result": "worked", "note": "n" * 2001},
        {"index": 0, "result": "worked", "versions": {"torch": "2.1 ; rm -rf /"}},
        {"index": 0, "result": "worked", "versions": {f"p{i}": "1.0" for i in range(40)}},
        {"index": 0, "result": "worked", "extra": 1},
    ]
    with server.client(headers=auth) as c:
        for body in bad_bodies:
            error = assert_error(c.post(url, json=body), 422, "invalid_request")
            assert isinstance(error["details"], list) and error["details"], body
        assert_error(
            c.post(url, content=b"{not json", headers={"content-type": "application/json"}), 422, "invalid_request"
        )
        assert_error(
            c.post("/api/v1/entries/pytorch/nope/outcomes", json={"index": 0, "result": "worked"}), 404, "not_found"
        )


def test_outcomes_become_measured_rates(server: Server, make_token: MakeToken) -> None:
    auth = {"authorization": f"Bearer {make_token(server)}"}
    note = "<img src=x onerror=alert(1)> worked after 'export NCCL_IB_TIMEOUT=22' & a restart"
    with server.client(headers=auth) as c:
        before = stats_of(c)
        for result in ("worked", "worked", "partial", "failed"):
            r = c.post(
                f"/api/v1/entries/{SEED_ID}/outcomes",
                json={"index": 0, "result": result, "versions": {"Torch": "2.3.1", "nccl": "2.20.5"}, "note": note},
            )
            assert r.status_code == 201, r.text
            created = r.json()
            assert created["entry_id"] == SEED_ID and created["versions"] == {"torch": "2.3.1", "nccl": "2.20.5"}
            assert created["note"] == note  # stored as given; escaped wherever it is shown
        r = c.post(f"/api/v1/entries/{SEED_ID}/outcomes", json={"kind": "dead_end", "index": 0, "result": "failed"})
        assert r.status_code == 201
        after = stats_of(c)
        assert after["reports"] == before["reports"] + 5
        assert after["fix_rate"]["basis"] == "measured" and after["fix_rate"]["reports"] >= 4
        assert after["confidence"]["basis"] == "measured"
        assert after["evidence"] == {"count": after["reports"], "basis": "measured"}
        assert after["workarounds"][0]["success_rate"]["basis"] == "measured"
        assert after["dead_ends"][0]["fail_rate"]["basis"] == "measured"
        low, high = after["fix_rate_posterior"]["interval_90"]
        assert 0 <= low <= after["fix_rate_posterior"]["mean"] <= high <= 1

        doc = c.get(f"/errors/{SEED_ID}/index.json").json()
        assert doc["rates"]["fix_rate"]["basis"] == "measured"
        assert (
            doc["workarounds"][0]["success_rate_detail"]["reports"]
            == after["workarounds"][0]["success_rate"]["reports"]
        )
        html = c.get(f"/errors/{SEED_ID}/").text
        assert 'data-basis="measured"' in html
        assert f"measured, {after['fix_rate']['reports']} reports" in html
        assert "实测值" in c.get(f"/errors/{SEED_ID}/zh.html").text
        md = c.get(f"/errors/{SEED_ID}/index.md").text
        assert "measured" in md

        listed = c.get(f"/api/v1/entries/{SEED_ID}/outcomes", params={"limit": 5}).json()["outcomes"]
        assert listed[0]["kind"] == "dead_end" and listed[1]["note"] == note
        for page in (html, c.get("/").text, c.get("/search/", params={"q": note}).text):
            assert "<img src=x" not in page


def test_concurrent_reports_none_lost(server: Server, make_token: MakeToken) -> None:
    """20 clients × 10 reports at once: every one acknowledged, every one stored."""
    tokens = [make_token(server) for _ in range(4)]
    acked: list[str] = []
    failures: list[str] = []
    lock = threading.Lock()
    with server.client() as c:
        before = stats_of(c)["reports"]

    def client(n: int) -> None:
        headers = {"authorization": f"Bearer {tokens[n % len(tokens)]}"}
        with server.client(headers=headers) as c:
            for i in range(10):
                r = c.post(
                    f"/api/v1/entries/{SEED_ID}/outcomes",
                    json={"index": i % 3, "result": ("worked", "partial", "failed")[(n + i) % 3]},
                )
                with lock:
                    (acked if r.status_code == 201 else failures).append(
                        r.json()["id"] if r.status_code == 201 else r.text
                    )

    threads = [threading.Thread(target=client, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures, failures[:3]
    assert len(acked) == 200 and len(set(acked)) == 200
    from rootcause.adapters.store import open_store

    store = open_store(server.database_url, init=False)
    try:
        assert store.has_outcomes(acked) == set(acked)
    finally:
        store.close()
    with server.client() as c:
        assert stats_of(c)["reports"] == before + 200


def test_concurrent_diagnoses_and_searches(server: Server) -> None:
    """Scans run in several worker threads at once (each with its own scratch space)."""
    outcomes: list[tuple[int, str]] = []
    lock = threading.Lock()

    def client() -> None:
        with server.client() as c:
            for i in range(6):
                if i % 2:
                    r = c.get("/api/v1/search", params={"q": SEED_ERROR})
                    first = r.json()["results"][0]["id"] if r.status_code == 200 else r.text
                else:
                    r = c.post("/api/v1/diagnose", content=SEED_ERROR, headers={"content-type": "text/plain"})
                    first = r.json()["findings"][0]["id"] if r.status_code == 200 else r.text
                with lock:
                    outcomes.append((r.status_code, first))

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert outcomes == [(200, SEED_ID)] * 48
