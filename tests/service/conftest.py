"""Fixtures of the service tests: one real server per store for the session, PostgreSQL
schemas that are dropped at the end, and write tokens."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_support import PG_ADMIN, STORES, PgSchemas, Server, database_url_for, pg_available, start_server


@pytest.fixture(scope="session")
def pg_schemas() -> Iterator[PgSchemas]:
    if not pg_available():
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN} (pg_isready -h 127.0.0.1)")
    schemas = PgSchemas()
    yield schemas
    schemas.drop_all()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def servers(
    tmp_path_factory: pytest.TempPathFactory, pg_schemas: PgSchemas, cache_dir: Path
) -> Iterator[dict[str, Server]]:
    """One server per store for the whole session (started on first use)."""
    started: dict[str, Server] = {}

    class _Lazy(dict[str, Server]):
        def __missing__(self, store: str) -> Server:
            tmp = tmp_path_factory.mktemp(f"srv-{store}")
            url = database_url_for(store, "contract", tmp, pg_schemas)
            started[store] = self[store] = start_server(url, tmp, cache_dir, via_cli=True)
            return started[store]

    yield _Lazy()
    for server in started.values():
        server.stop()


@pytest.fixture(params=STORES)
def server(request: pytest.FixtureRequest, servers: dict[str, Server]) -> Server:
    """The contract fixture: each test using it runs against SQLite and PostgreSQL."""
    return servers[request.param]


@pytest.fixture(scope="session")
def make_token() -> Iterator[object]:
    """Create a write token on a server's database (as `rootcause token create` does)."""
    from rootcause.adapters.store import Store, open_store
    from rootcause.adapters.store.tokens import new_token

    stores: dict[str, Store] = {}

    def make(server: Server, name: str | None = None) -> str:
        store = stores.get(server.database_url)
        if store is None:
            store = stores[server.database_url] = open_store(server.database_url)
        token, token_hash = new_token()
        store.create_token(name or f"t-{uuid.uuid4().hex[:10]}", token_hash)
        return token

    yield make
    for store in stores.values():
        store.close()
