"""What a hostile-input probe broke, in-process (Starlette's TestClient): 500s without the
security headers, bodies that crashed the parser, a gzip budget per part instead of per request,
unbounded multipart parts, and redirects built from the request's Host header."""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from service_support import SEED_ERROR, SEED_ID, assert_error

from rootcause.adapters.store.tokens import new_token
from rootcause.adapters.web.app import create_app
from rootcause.adapters.web.settings import Settings
from rootcause.adapters.web.upload import GZIP_RATIO, MAX_PARTS, PARSED_BODY_MAX

CAP = PARSED_BODY_MAX + (1 << 20)  # a JSON or form body can pass the parsed-body cap
SECURITY_HEADERS = (
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "cache-control",
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    db = tmp_path_factory.mktemp("hostile") / "app.db"
    return create_app(Settings(database_url=f"sqlite:///{db}", max_upload_bytes=CAP, rate_limit=(2, 3600)))


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def assert_secured(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    missing = [h for h in SECURITY_HEADERS if h not in headers]
    assert not missing, (response.status_code, missing)  # type: ignore[attr-defined]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    if response.status_code >= 400:  # type: ignore[attr-defined]
        assert headers["cache-control"] == "no-store"


def test_a_500_carries_the_security_headers(app: FastAPI, client: TestClient) -> None:
    @app.get("/api/v1/crash-for-test")
    def crash() -> None:
        raise RuntimeError("a bug")

    @app.get("/crash-page-for-test")
    def crash_page() -> None:
        raise RuntimeError("a bug")

    r = client.get("/api/v1/crash-for-test")
    assert_error(r, 500, "internal_error")
    assert_secured(r)
    page = client.get("/crash-page-for-test", headers={"accept": "text/html"})
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    assert_secured(page)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,  # nested 100,000 deep
        b'{"text": "' + SEED_ERROR.encode() + b'", "n": ' + b"7" * 5_000 + b"}",  # a 5,000-digit number
        b'{"text": ' * 50_000 + b"1" + b"}" * 50_000,
        b'{"text": "\xff\xfe"}',  # not UTF-8
    ],
)
def test_hostile_json_is_a_400(client: TestClient, body: bytes) -> None:
    r = client.post("/api/v1/diagnose", content=body, headers={"content-type": "application/json"})
    assert_error(r, 400, "bad_request")
    assert_secured(r)
    assert len(r.text) < 1_000  # the error names the problem, it does not repeat the body


def test_json_and_form_bodies_are_capped_before_parsing(client: TestClient) -> None:
    body = b'{"text": "' + b"a" * PARSED_BODY_MAX + b'"}'
    assert_error(
        client.post("/api/v1/diagnose", content=body, headers={"content-type": "application/json"}), 413, "too_large"
    )
    form = b"text=" + b"a" * PARSED_BODY_MAX
    headers = {"content-type": "application/x-www-form-urlencoded"}
    assert_error(client.post("/api/v1/diagnose", content=form, headers=headers), 413, "too_large")
    many = "&".join(f"f{n}=1" for n in range(1_000)).encode()
    assert_error(client.post("/api/v1/diagnose", content=many, headers=headers), 400, "bad_request")
    ok = client.post("/api/v1/diagnose", json={"text": SEED_ERROR})
    assert ok.status_code == 200 and ok.json()["findings"][0]["id"] == SEED_ID


@pytest.mark.parametrize("name", ["..", ".", "a\0b.log", "../../etc/passwd", "x" * 400 + ".log", "dir\\..\\.."])
def test_odd_file_names_are_diagnosed(client: TestClient, name: str) -> None:
    files = [("file", (name, f"{SEED_ERROR}\n".encode(), "text/plain")), ("file", (name, b"noise\n", "text/plain"))]
    r = client.post("/api/v1/diagnose", files=files)
    assert r.status_code == 200, r.text
    assert r.json()["findings"][0]["id"] == SEED_ID
    assert_secured(r)


def test_the_gzip_budget_is_per_request(client: TestClient) -> None:
    each = CAP * GZIP_RATIO // 3 + 1  # one part is within the budget; three together are not
    packed = gzip.compress(b"a" * (each - 1) + b"\n", 9)
    assert len(packed) * 3 < CAP
    one = client.post("/api/v1/diagnose", files=[("file", ("rank0.log.gz", packed, "application/gzip"))])
    assert one.status_code == 200, one.text
    files = [("file", (f"rank{n}.log.gz", packed, "application/gzip")) for n in range(3)]
    r = client.post("/api/v1/diagnose", files=files)
    assert_error(r, 413, "too_large")
    assert_secured(r)


def test_the_number_of_parts_is_capped(client: TestClient) -> None:
    parts = [("note", (None, b"")) for _ in range(MAX_PARTS - 1)]
    at_cap = client.post("/api/v1/diagnose", files=[("text", (None, SEED_ERROR.encode())), *parts])
    assert at_cap.status_code == 200, at_cap.text
    r = client.post("/api/v1/diagnose", files=[("text", (None, SEED_ERROR.encode())), *parts, ("note", (None, b""))])
    assert_error(r, 400, "bad_request")
    assert str(MAX_PARTS) in r.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/search", "/search/"),
        ("/errors", "/errors/"),
        ("/categories/x", "/categories/x/"),
        ("/api/v1/entries/", "/api/v1/entries"),
        (f"/errors/{SEED_ID}", f"/errors/{SEED_ID}/"),
    ],
)
def test_redirects_never_follow_the_host_header(client: TestClient, path: str, target: str) -> None:
    r = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
    assert 300 <= r.status_code < 400, r.status_code
    assert r.headers["location"] == target
    assert_secured(r)


def test_a_path_of_slashes_does_not_redirect_off_site(client: TestClient) -> None:
    r = client.get("//evil.example/search", headers={"host": "evil.example"}, follow_redirects=False)
    if 300 <= r.status_code < 400:
        assert not r.headers["location"].startswith("//")
        assert "evil.example" not in r.headers["location"].split("/", 2)[1]


def test_a_replay_is_answered_past_the_limit(app: FastAPI, client: TestClient) -> None:
    """The retry of an acknowledged report (same token and Idempotency-Key) is not a new write: it
    gets the stored answer even when the writer's limit (2 an hour here) is spent."""
    token, token_hash = new_token()
    app.state.rootcause.store.create_token(f"replay-{uuid.uuid4().hex[:8]}", token_hash)
    path, body = f"/api/v1/entries/{SEED_ID}/outcomes", {"index": 0, "result": "worked"}
    auth = {"authorization": f"Bearer {token}"}
    keys = [str(uuid.uuid4()) for _ in range(3)]
    first = [client.post(path, json=body, headers={**auth, "idempotency-key": k}) for k in keys[:2]]
    assert [r.status_code for r in first] == [201, 201]
    assert_error(client.post(path, json=body, headers={**auth, "idempotency-key": keys[2]}), 429, "rate_limited")
    for key, answer in zip(keys[:2], first, strict=True):
        again = client.post(path, json=body, headers={**auth, "idempotency-key": key})
        assert again.status_code == 201, again.text
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json() == answer.json()
    # a spent limit still refuses what is new: another key, or none
    assert_error(client.post(path, json=body, headers={**auth, "idempotency-key": keys[2]}), 429, "rate_limited")
    assert_error(client.post(path, json=body, headers=auth), 429, "rate_limited")
    assert client.get(f"/api/v1/entries/{SEED_ID}/stats").json()["reports"] == 2


def test_a_url_over_16_kib_is_a_400(client: TestClient) -> None:
    r = client.get("/api/v1/search", params={"q": "a" * (60 << 10)})
    assert_error(r, 400, "bad_request")
    assert_secured(r)
    page = client.get("/search/?q=" + "b" * (20 << 10))
    assert_error(page, 400, "bad_request")
    assert client.get("/api/v1/search", params={"q": "nccl " * 100}).status_code == 200
