"""The app in-process (Starlette's TestClient): what needs the server's own canon to
compare against, or a failure that a real server cannot be made to show on demand."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from service_support import SEED_ERROR, SEED_ID, assert_error

from rootcause.adapters.web.app import create_app
from rootcause.adapters.web.settings import Settings, human_size, parse_rate_limit, parse_size
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching.scan import iter_text_chunks
from rootcause.core.render import render_document
from rootcause.errors import StoreError, UsageError


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    db = tmp_path_factory.mktemp("app") / "app.db"
    return create_app(Settings(database_url=f"sqlite:///{db}", max_upload_bytes=4096))


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_entry_files_are_what_rootcause_show_renders(app: FastAPI, client: TestClient) -> None:
    entries = app.state.rootcause.entries
    names = {
        "index.html": ("html", "en"),
        "zh.html": ("html", "zh"),
        "index.json": ("json", "en"),
        "index.md": ("md", "en"),
        "zh.md": ("md", "zh"),
    }
    for entry_id in [*sorted(entries)[:5], SEED_ID]:
        for name, (fmt, lang) in names.items():
            r = client.get(f"/errors/{entry_id}/{name}")
            assert r.status_code == 200
            assert r.text == render_document(entries[entry_id], fmt, lang), (entry_id, name)  # type: ignore[arg-type]


def test_diagnosis_json_is_the_clis(app: FastAPI, client: TestClient) -> None:
    text = f"some noise\n{SEED_ERROR}\nmore noise\n"
    r = client.post("/api/v1/diagnose?name=<stdin>", content=text, headers={"content-type": "text/plain"})
    cli = diagnose_sources([SourceInput("<stdin>", iter_text_chunks(text))], app.state.rootcause.index)
    assert r.json() == json.loads(cli.model_dump_json())


def test_unexpected_failure_has_the_one_shape(app: FastAPI, client: TestClient) -> None:
    @app.get("/api/v1/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    r = client.get("/api/v1/boom")
    error = assert_error(r, 500, "internal_error")
    assert "secret" not in str(error["message"])


def test_store_outage_is_a_503(app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def down() -> None:
        raise StoreError("sqlite store: disk I/O error")

    monkeypatch.setattr(app.state.rootcause.store, "ping", down)
    assert_error(client.get("/-/health"), 503, "store_unavailable")


def test_browsers_get_an_html_error_page(client: TestClient) -> None:
    r = client.get("/no/such/page", headers={"accept": "text/html,application/xhtml+xml"})
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "<h1>404 — Not found</h1>" in r.text
    assert_error(client.get("/api/v1/nothing", headers={"accept": "text/html"}), 404, "not_found")


def test_upload_cap_counts_the_whole_body(client: TestClient) -> None:
    ok = client.post("/api/v1/diagnose", content=b"a" * 4000, headers={"content-type": "text/plain"})
    assert ok.status_code == 200
    assert_error(
        client.post("/api/v1/diagnose", content=b"a" * 4097, headers={"content-type": "text/plain"}), 413, "too_large"
    )
    assert_error(client.post("/api/v1/diagnose", json={"text": "b" * 5000}), 413, "too_large")
    assert_error(client.post("/api/v1/diagnose", json={"nothing": 1}), 400, "bad_request")
    assert_error(client.post("/api/v1/diagnose", json={"text": "x", "env": "torch=2"}), 400, "bad_request")


def test_gzip_uploads_are_unpacked(client: TestClient) -> None:
    import gzip

    packed = gzip.compress(f"line\n{SEED_ERROR}\n".encode())
    r = client.post("/api/v1/diagnose", files={"file": ("rank2.log.gz", packed, "application/gzip")})
    assert r.status_code == 200 and r.json()["findings"][0]["id"] == SEED_ID
    assert r.json()["inputs"][0]["rank"] == 2
    bad = client.post("/api/v1/diagnose", files={"file": ("x.log.gz", b"not gzip", "application/gzip")})
    assert_error(bad, 400, "bad_request")


def test_mcp_server_is_mounted_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mounted: list[FastAPI] = []
    fake = types.ModuleType("rootcause.adapters.mcp_server")
    fake.mount_mcp = mounted.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rootcause.adapters.mcp_server", fake)
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'mcp.db'}"))
    assert mounted == [app]


def test_settings_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_rate_limit("30/minute") == (30, 60)
    assert parse_rate_limit("100/10s") == (100, 10)
    assert parse_rate_limit("5/hour") == (5, 3600)
    assert parse_rate_limit("off") is None
    assert parse_size("32MiB") == 32 << 20 and parse_size("512k") == 512 << 10 and parse_size("77") == 77
    assert human_size(32 << 20) == "32 MiB"
    for bad in ("lots", "3/fortnight", "0/minute"):
        with pytest.raises(UsageError):
            parse_rate_limit(bad)
    monkeypatch.setenv("ROOTCAUSE_DATABASE_URL", "sqlite:///x.db")
    monkeypatch.setenv("ROOTCAUSE_MAX_UPLOAD_BYTES", "1MiB")
    monkeypatch.setenv("ROOTCAUSE_RATE_LIMIT", "7/second")
    monkeypatch.setenv("ROOTCAUSE_PORT", "9001")
    s = Settings.from_env()
    assert (s.database_url, s.max_upload_bytes, s.rate_limit, s.port) == ("sqlite:///x.db", 1 << 20, (7, 1), 9001)


def test_multi_rank_uploads_get_the_clis_triage(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[str], list[bytes]]] = []

    def attach_triage(d: object, paths: list[str]) -> None:
        calls.append((paths, [Path(p).read_bytes() for p in paths]))

    import rootcause.adapters.triage_runner as runner

    monkeypatch.setattr(runner, "attach_triage", attach_triage)
    files = [("file", ("rank0.log", b"ok\n", "text/plain")), ("file", ("rank1.log", SEED_ERROR.encode(), "text/plain"))]
    assert client.post("/api/v1/diagnose", files=files).status_code == 200
    ((paths, contents),) = calls
    assert [Path(p).name for p in paths] == ["rank0.log", "rank1.log"]
    assert contents == [b"ok\n", SEED_ERROR.encode()]
    assert not any(Path(p).exists() for p in paths)  # removed after the request
    client.post("/api/v1/diagnose", content=SEED_ERROR, headers={"content-type": "text/plain"})
    assert len(calls) == 1  # one input without a rank: no triage, as in the CLI


def test_malformed_bodies_are_bad_requests(client: TestClient) -> None:
    garbage = b"garbage\r\n--XYZ\r\nbroken header\r\n\r\nhello\r\n"
    for ctype in ("multipart/form-data; boundary=XYZ", "multipart/form-data", "application/json"):
        r = client.post("/api/v1/diagnose", content=garbage, headers={"content-type": ctype})
        assert_error(r, 400, "bad_request")


def test_multi_rank_upload_is_the_clis_json(app: FastAPI, client: TestClient, tmp_path: Path) -> None:
    """The same inputs through `rootcause diagnose`'s own functions give the same JSON."""
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.triage_runner import attach_triage
    from rootcause.core.diagnosis import holds_several_ranks

    logs = {"rank0.log": b"[rank0]: step 10\nall fine\n", "rank1.log": f"[rank1]: step 10\n{SEED_ERROR}\n".encode()}
    for name, data in logs.items():
        (tmp_path / name).write_bytes(data)
    named = [(name, tmp_path / name) for name in logs]
    cli = diagnose_sources(open_sources(named), app.state.rootcause.index, {"torch": "2.3.1"})
    if holds_several_ranks(cli):
        attach_triage(cli, [str(path) for _, path in named])
    files = [("file", (name, data, "text/plain")) for name, data in logs.items()]
    r = client.post("/api/v1/diagnose", data={"env": "torch==2.3.1"}, files=files)
    assert r.status_code == 200
    assert r.json() == json.loads(cli.model_dump_json())
