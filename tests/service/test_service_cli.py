"""The service's commands: token, index rebuild, outcomes export, build-site, serve."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from service_support import SEED_ID, run_cli

from rootcause.adapters.cli.main import app
from rootcause.adapters.store import NewOutcome, open_store

HREF = re.compile(r'(?:href|src)="([^"]+)"')
DANGLING = re.compile(r"errors/([a-z0-9_-]+/[a-z0-9-]+)/(?:index|zh)\.html$")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """No database URL: the default SQLite file in ROOTCAUSE_DATA_DIR."""
    return {"ROOTCAUSE_DATA_DIR": str(tmp_path / "data"), "ROOTCAUSE_DATABASE_URL": ""}


def invoke(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args, env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_token_create_prints_it_once_and_stores_its_hash(env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = invoke(["token", "create", "ci-bot"], env)
    assert code == 0 and "not shown again" in err
    token = out.strip()
    assert token.startswith("rc_") and len(token) > 40
    db = tmp_path / "data" / "rootcause.db"  # created on first use, at the documented place
    rows = sqlite3.connect(db).execute("SELECT name, token_hash FROM rc_tokens").fetchall()
    assert rows == [("ci-bot", hashlib.sha256(token.encode()).hexdigest())]
    assert token.encode() not in db.read_bytes()
    code, out, _ = invoke(["token", "list"], env)
    assert code == 0 and out.startswith("ci-bot\t") and "active" in out
    assert invoke(["token", "revoke", "ci-bot"], env)[0] == 0
    assert "revoked" in invoke(["token", "list"], env)[1]


def test_cli_errors_map_to_exit_codes(env: dict[str, str]) -> None:
    assert run_cli("token", "create", "dup", env=env).returncode == 0
    again = run_cli("token", "create", "dup", env=env)
    assert again.returncode == 2 and "exists already" in again.stderr
    bad = run_cli("token", "create", "no spaces please", env=env)
    assert bad.returncode == 2
    serve = run_cli("serve", "--rate-limit", "lots", env=env)
    assert serve.returncode == 2 and "ROOTCAUSE_RATE_LIMIT" in serve.stderr


def test_index_rebuild_and_outcomes_export(env: dict[str, str], tmp_path: Path) -> None:
    code, _, err = invoke(["index", "rebuild"], env)
    assert code == 0 and re.search(r"indexed \d+ entries in sqlite", err)
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'rootcause.db'}")
    token = store.create_token("alice", "0" * 64)
    for result in ("worked", "failed"):
        store.add_outcome(
            NewOutcome(SEED_ID, "workaround", 1, "act", result, token.id, {"torch": "2.3.1"}, '<b>ok</b> "q"'), []
        )
    store.add_outcome(NewOutcome("cuda/other", "dead_end", 0, "x", "partial", token.id), [])
    store.close()

    out_file = tmp_path / "reports.jsonl"
    code, _, err = invoke(["outcomes", "export", "--output", str(out_file)], env)
    assert code == 0 and "3 report(s) exported" in err
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [r["result"] for r in rows] == ["worked", "failed", "partial"]
    assert rows[0] | {"id": "", "created_at": ""} == {
        "id": "",
        "created_at": "",
        "entry_id": SEED_ID,
        "kind": "workaround",
        "index": 1,
        "action": "act",
        "result": "worked",
        "versions": {"torch": "2.3.1"},
        "note": '<b>ok</b> "q"',
        "reporter": "alice",
        "source": "field",
    }
    code, out, _ = invoke(["outcomes", "export", "--entry", "cuda/other"], env)
    assert code == 0 and [json.loads(line)["entry_id"] for line in out.splitlines()] == ["cuda/other"]


def test_build_site_writes_every_page_with_working_relative_links(env: dict[str, str], tmp_path: Path) -> None:
    site = tmp_path / "site"
    code, _, err = invoke(["build-site", str(site), "--base-url", "https://errors.example.org"], env)
    assert code == 0 and "wrote" in err
    index = json.loads((site / "search-index.json").read_text())
    ids = [e["id"] for e in index["entries"]]
    assert SEED_ID in ids and " 超时 " in next(e["terms"] for e in index["entries"] if e["id"] == SEED_ID)
    for entry_id in ids:
        for name in ("index.html", "zh.html", "index.json", "index.md", "zh.md"):
            assert (site / "errors" / entry_id / name).is_file(), (entry_id, name)
    assert (site / "search-index.js").read_text().startswith("window.ROOTCAUSE_SEARCH = {")
    llms = (site / "llms.txt").read_text()
    assert f"(https://errors.example.org/errors/{SEED_ID}/index.md)" in llms
    assert "https://errors.example.org/errors/index.html" in (site / "sitemap.xml").read_text()
    assert "Sitemap: https://errors.example.org/sitemap.xml" in (site / "robots.txt").read_text()
    checked = 0
    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue  # served at any depth by a static host, so its links are absolute
        for link in HREF.findall(page.read_text()):
            if link.startswith(("http://", "https://", "#", "mailto:")):
                continue
            target = (page.parent / link.split("#")[0].split("?")[0]).resolve()
            dangling = DANGLING.search(link)
            if dangling and dangling.group(1) not in ids:
                continue  # a `related` id that the canon lacks: the linter's finding, not the export's
            assert target.is_file(), f"{page.relative_to(site)} links to a missing {link}"
            assert site.resolve() in target.parents
            checked += 1
    assert checked > 100


def test_build_site_can_show_measured_rates(env: dict[str, str], tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'rootcause.db'}")
    token = store.create_token("bob", "1" * 64)
    store.add_outcome(NewOutcome(SEED_ID, "workaround", 0, "act", "worked", token.id), [])
    store.close()
    site = tmp_path / "site"
    assert invoke(["build-site", str(site), "--measured"], env)[0] == 0
    doc = json.loads((site / "errors" / SEED_ID / "index.json").read_text())
    assert doc["workarounds"][0]["success_rate_detail"] == {
        "value": doc["workarounds"][0]["success_rate"],
        "basis": "measured",
        "reports": 1,
    }
    plain = tmp_path / "plain"
    assert invoke(["build-site", str(plain)], env)[0] == 0
    assert (
        json.loads((plain / "errors" / SEED_ID / "index.json").read_text())["rates"]["evidence"]["basis"] == "estimate"
    )
