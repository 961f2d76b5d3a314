"""The Store contract, in-process, on SQLite and on PostgreSQL (a fresh database each)."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_support import STORES, PgSchemas, database_url_for
from sqlalchemy import select, text

from rootcause.adapters.loading import load_entries
from rootcause.adapters.store import (
    NewOutcome,
    RateRule,
    Store,
    canon_fingerprint,
    data_dir,
    default_database_url,
    open_store,
)
from rootcause.adapters.store import schema as t
from rootcause.adapters.store import sql as sql_module
from rootcause.adapters.store.postgres import normalise_url
from rootcause.adapters.store.terms import query_terms
from rootcause.adapters.store.tokens import hash_token, new_token
from rootcause.errors import RateLimitedError, StoreError, UsageError

SEED = "pytorch/nccl-timeout-allreduce"


@pytest.fixture(params=STORES)
def url(request: pytest.FixtureRequest, tmp_path: Path, pg_schemas: PgSchemas) -> str:
    return database_url_for(request.param, f"store_{request.node.name[-8:].strip('[]-')}", tmp_path, pg_schemas)


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    s = open_store(url)
    yield s
    s.close()


def outcome(token_id: int, result: str = "worked", kind: str = "workaround", index: int = 0) -> NewOutcome:
    return NewOutcome(SEED, kind, index, "an action", result, token_id, {"torch": "2.3.1"}, "a note")  # type: ignore[arg-type]


def test_schema_creation_is_idempotent_and_shared(url: str, store: Store) -> None:
    other = open_store(url)  # a second process would do the same
    other.init_schema()
    other.ping()
    other.close()
    store.init_schema()


def test_index_rebuild_and_search(store: Store) -> None:
    entries = load_entries()
    fp = canon_fingerprint(entries)
    assert store.sync_index(entries, fp) is True
    assert store.sync_index(entries, fp) is False  # already built from this canon
    assert store.fingerprint() == fp and store.indexed_count() == len(entries)
    for query in ("allreduce timed out", "communicator aborted", "通信器", "超时", "NCCL_TIMEOUT_600", "alLrEdUcE"):
        # a one-word query ties many entries (every timeout entry says 超时), so look past the default page
        ids = [i for i, _ in store.search(query_terms(query), limit=100)]
        assert SEED in ids, query
    assert store.search(query_terms("zzzqqq unheard of")) == []
    assert store.search([]) == []
    # LIKE wildcards in a query are plain characters
    assert store.search(["%"]) == [] and store.search(["_"]) == []
    store.rebuild_index(entries[:1], "other")
    assert store.indexed_count() == 1


def test_tokens_store_only_a_hash(store: Store) -> None:
    token, token_hash = new_token()
    assert token_hash == hashlib.sha256(token.encode()).hexdigest() == hash_token(token)
    record = store.create_token("alice", token_hash)
    assert store.find_token(token_hash) == record
    assert store.find_token(hash_token("rc_wrong")) is None
    with pytest.raises(UsageError):
        store.create_token("alice", new_token()[1])
    with store._reader.connect() as conn:  # type: ignore[attr-defined]
        stored = [tuple(map(str, row)) for row in conn.execute(select(t.tokens))]
    assert not any(token in value for row in stored for value in row)
    assert store.revoke_token("alice") is True and store.revoke_token("alice") is False
    assert store.find_token(token_hash) is None
    assert [(x.name, x.revoked) for x in store.list_tokens()] == [("alice", True)]


def test_outcomes_tally_and_export(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    a = store.create_token("a", new_token()[1])
    b = store.create_token("b", new_token()[1])
    day1 = dt.datetime(2026, 3, 1, 12, 0)
    day2 = dt.datetime(2026, 3, 5, 8, 30)
    stored = [
        store.add_outcome(outcome(a.id, "worked"), [], now=day1),
        store.add_outcome(outcome(b.id, "partial"), [], now=day2),
        store.add_outcome(outcome(b.id, "failed", "dead_end", 1), [], now=day2),
    ]
    assert len({s.uid for s in stored}) == 3 and stored[0].reporter == "a"
    tally = store.tally(SEED)
    assert tally.workarounds[0].worked == 1 and tally.workarounds[0].partial == 1
    assert tally.dead_ends[1].failed == 1
    assert tally.first == day1.date() and tally.last == day2.date() and len(tally.reporters) == 2
    assert store.tallies()[SEED].reports == 3 and store.outcome_count() == 3
    assert store.tally("pytorch/nothing").reports == 0
    monkeypatch.setattr(sql_module, "EXPORT_BATCH", 2)  # pages through the table
    exported = list(store.iter_outcomes())
    assert [o.uid for o in exported] == [s.uid for s in stored]
    assert exported[0].as_dict()["created_at"] == "2026-03-01T12:00:00+00:00"
    assert exported[0].versions == {"torch": "2.3.1"} and exported[0].note == "a note"
    assert [o.uid for o in store.recent_outcomes(SEED, 2)] == [stored[2].uid, stored[1].uid]
    assert list(store.iter_outcomes("pytorch/nothing")) == []
    assert store.has_outcomes([stored[0].uid, "0" * 32]) == {stored[0].uid}


def test_rate_limit_holds_across_store_instances(url: str, store: Store) -> None:
    other = open_store(url)  # as another server process would
    token = store.create_token("busy", new_token()[1])
    now = dt.datetime(2026, 3, 1, 12, 0, 10)
    rules = [RateRule(f"token:{token.id}", 3, 60), RateRule("address:10.0.0.1", 100, 60)]
    store.add_outcome(outcome(token.id), rules, now=now)
    other.add_outcome(outcome(token.id), rules, now=now)
    store.add_outcome(outcome(token.id), rules, now=now)
    with pytest.raises(RateLimitedError) as err:
        other.add_outcome(outcome(token.id), rules, now=now)
    assert err.value.retry_after == 51  # type: ignore[attr-defined]
    assert store.outcome_count() == 3  # the refused report was not stored
    # a new window starts afresh
    other.add_outcome(outcome(token.id), rules, now=now + dt.timedelta(seconds=60))
    # and the address bucket counts every token
    fresh = store.create_token("fresh", new_token()[1])
    tight = [RateRule(f"token:{fresh.id}", 100, 60), RateRule("address:10.0.0.1", 1, 60)]
    with pytest.raises(RateLimitedError):
        store.add_outcome(outcome(fresh.id), tight, now=now + dt.timedelta(seconds=61))
    other.close()


def test_sqlite_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'deep' / 'dir' / 'x.db'}")  # folders created
    with store._writer.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar_one() == 2  # FULL
    store.close()


def test_default_location_and_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ROOTCAUSE_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data_dir() == tmp_path / ".local/share/rootcause"
    assert default_database_url() == f"sqlite:///{tmp_path}/.local/share/rootcause/rootcause.db"
    monkeypatch.setenv("ROOTCAUSE_DATA_DIR", str(tmp_path / "d"))
    assert default_database_url() == f"sqlite:///{tmp_path}/d/rootcause.db"
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(UsageError):
        open_store("mysql://x/y")


def test_unreachable_database_is_a_store_error() -> None:
    with pytest.raises(StoreError):
        open_store("postgresql://postgres@127.0.0.1:1/test?connect_timeout=2")
