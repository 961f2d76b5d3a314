"""SQLite: the embedded default. WAL mode with synchronous=FULL, so a report that was
acknowledged survives a crash; writes take the lock up front (BEGIN IMMEDIATE), so
concurrent writers queue instead of failing on a lock upgrade."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url

from rootcause.adapters.store.sql import SqlStore

BUSY_TIMEOUT_MS = 30_000


def _configure(engine: Engine, begin: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun below, not by the driver
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin)


class SqliteStore(SqlStore):
    kind = "sqlite"

    def _engines(self, url: str) -> tuple[Engine, Engine]:
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        args = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        reader = create_engine(url, connect_args=args, pool_size=8, max_overflow=56)
        writer = create_engine(url, connect_args=args, pool_size=4, max_overflow=60)
        _configure(reader, "BEGIN")
        _configure(writer, "BEGIN IMMEDIATE")
        return reader, writer

    def _insert(self) -> Any:
        return sqlite_insert

    def describe(self) -> str:
        return f"sqlite ({make_url(self.url).database})"
