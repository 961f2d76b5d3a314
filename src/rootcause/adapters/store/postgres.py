"""PostgreSQL (psycopg 3): several server processes on several machines share one
database. Every write commits before the service replies."""

from __future__ import annotations

import zlib
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import make_url

from rootcause.adapters.store.sql import SqlStore


def normalise_url(url: str) -> str:
    """postgresql:// and postgres:// use the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class PostgresStore(SqlStore):
    kind = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__(normalise_url(url))

    def _engines(self, url: str) -> tuple[Engine, Engine]:
        engine = create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
        return engine, engine

    def _lock(self, conn: Connection, name: str) -> None:
        key = zlib.crc32(f"rootcause:{name}".encode()) & 0x7FFFFFFF
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})

    def _insert(self) -> Any:
        return pg_insert

    def close(self) -> None:
        self._reader.dispose()

    def describe(self) -> str:
        u = make_url(self.url)
        return f"postgresql ({u.host or 'local'}:{u.port or 5432}/{u.database})"
