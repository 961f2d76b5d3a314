"""The SQLAlchemy store, shared by SQLite and PostgreSQL; the dialects differ only in
how they open connections, lock, and write an upsert."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, case, delete, func, inspect, literal, or_, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.sql.elements import ColumnElement

from rootcause.adapters.store import schema as t
from rootcause.adapters.store.base import TokenRecord
from rootcause.adapters.store.sql_reads import PAGE_TOKEN_SQL, OutcomeReads
from rootcause.adapters.store.sql_support import first_line, utcnow
from rootcause.adapters.store.sql_writes import OutcomeWrites
from rootcause.adapters.store.terms import index_terms, is_prefix_term, rank
from rootcause.core.model import Entry
from rootcause.errors import StoreError, UsageError

__all__ = ["PAGE_TOKEN_SQL", "SqlStore", "utcnow"]  # EXPORT_BATCH lives in sql_reads, where it is read


class SqlStore(OutcomeWrites, OutcomeReads):
    """Connections, schema, the search index and tokens; writing outcome reports (``sql_writes``) and
    reading them (``sql_reads``) are its mixins, in sibling modules."""

    kind = "sql"

    def __init__(self, url: str) -> None:
        self.url = url
        self._reader, self._writer = self._engines(url)

    # -- dialect hooks -----------------------------------------------------------------------
    def _engines(self, url: str) -> tuple[Engine, Engine]:
        raise NotImplementedError

    def _lock(self, conn: Connection, name: str) -> None:
        """Serialise schema creation and index rebuilds across processes."""

    def _insert(self) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        return self.kind

    # -- connections -------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[Connection]:
        try:
            with self._writer.begin() as conn:
                yield conn
        except (sa_exc.OperationalError, sa_exc.InterfaceError) as exc:
            raise StoreError(f"{self.kind} store: {first_line(exc)}") from None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        try:
            with self._reader.begin() as conn:
                yield conn
        except (sa_exc.OperationalError, sa_exc.InterfaceError) as exc:
            raise StoreError(f"{self.kind} store: {first_line(exc)}") from None

    def init_schema(self) -> None:
        with self._write() as conn:
            self._lock(conn, "schema")
            t.metadata.create_all(conn)
            self._migrate(conn)
            self._put_meta(conn, "schema_version", t.SCHEMA_VERSION)

    @staticmethod
    def _migrate(conn: Connection) -> None:
        """Bring a database made by an older version up to date: add the columns it lacks
        (nullable or defaulted, so old rows stay valid) and their indexes. Runs under the schema lock."""
        inspector = inspect(conn)
        for table, columns in t.ADDED_COLUMNS.items():
            present = {c["name"] for c in inspector.get_columns(table)}
            for name, ddl in columns.items():
                if name not in present:
                    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")
        t.outcomes_idempotency.create(conn, checkfirst=True)

    def ping(self) -> None:
        with self._read() as conn:
            conn.exec_driver_sql("SELECT 1")

    def close(self) -> None:
        self._reader.dispose()
        self._writer.dispose()

    def _put_meta(self, conn: Connection, key: str, value: str) -> None:
        stmt = self._insert()(t.meta).values(key=key, value=value)
        conn.execute(stmt.on_conflict_do_update(index_elements=[t.meta.c.key], set_={"value": value}))

    # -- the index ---------------------------------------------------------------------------
    def fingerprint(self) -> str | None:
        with self._read() as conn:
            return conn.execute(select(t.meta.c.value).where(t.meta.c.key == "canon_fingerprint")).scalar_one_or_none()

    def rebuild_index(self, entries: Sequence[Entry], fingerprint: str) -> int:
        rows = [
            {
                "id": e.id,
                "domain": e.domain,
                "category": e.category,
                "subcategory": e.subcategory,
                "signature": e.signature,
                "signature_zh": e.signature_zh,
                "verification": e.verification.value,
                "generic": e.generic,
                "withdrawn": e.is_withdrawn,
                "terms": index_terms(e),
                "body": e.model_dump_json(),
            }
            for e in entries
        ]
        with self._write() as conn:
            self._lock(conn, "index")
            conn.execute(delete(t.entries))
            if rows:
                conn.execute(t.entries.insert(), rows)
            self._put_meta(conn, "canon_fingerprint", fingerprint)
            self._put_meta(conn, "index_rebuilt_at", utcnow().isoformat())
        return len(rows)

    def sync_index(self, entries: Sequence[Entry], fingerprint: str) -> bool:
        """Rebuild the index when the canon differs from what it was built from."""
        if self.fingerprint() == fingerprint:
            return False
        self.rebuild_index(entries, fingerprint)
        return True

    def indexed_count(self) -> int:
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(t.entries)).scalar_one())

    def _term_condition(self, term: str) -> ColumnElement[bool]:
        needle = f" {term}" if is_prefix_term(term) else f" {term} "
        return t.entries.c.terms.contains(needle, autoescape=True)

    def search(self, terms: Sequence[str], limit: int = 20) -> list[tuple[str, float]]:
        if not terms:
            return []
        conditions = [self._term_condition(term) for term in terms]
        flags = [case((c, 1), else_=0).label(f"t{i}") for i, c in enumerate(conditions)]
        signature = func.lower(t.entries.c.signature + " " + func.coalesce(t.entries.c.signature_zh, ""))
        in_signature = sum(
            (case((signature.contains(term, autoescape=True), 1), else_=0) for term in terms), start=literal(0)
        ).label("in_signature")
        stmt = select(t.entries.c.id, in_signature, *flags).where(or_(*conditions), t.entries.c.withdrawn.is_(False))
        with self._read() as conn:
            n_docs = conn.execute(select(func.count()).select_from(t.entries)).scalar_one()
            rows = [(r[0], [bool(v) for v in r[2:]], int(r[1])) for r in conn.execute(stmt)]
        return rank(rows, terms, int(n_docs))[:limit]

    # -- tokens ------------------------------------------------------------------------------
    def create_token(self, name: str, token_hash: str) -> TokenRecord:
        now = utcnow()
        try:
            with self._write() as conn:
                new_id = conn.execute(
                    t.tokens.insert().values(name=name, token_hash=token_hash, created_at=now).returning(t.tokens.c.id)
                ).scalar_one()
        except sa_exc.IntegrityError:
            raise UsageError(f"a token named {name!r} exists already") from None
        return TokenRecord(int(new_id), name, now)

    def find_token(self, token_hash: str) -> TokenRecord | None:
        with self._read() as conn:
            row = conn.execute(
                select(t.tokens.c.id, t.tokens.c.name, t.tokens.c.created_at).where(
                    t.tokens.c.token_hash == token_hash, t.tokens.c.revoked_at.is_(None)
                )
            ).first()
        return None if row is None else TokenRecord(int(row[0]), row[1], row[2])

    def list_tokens(self) -> list[TokenRecord]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.tokens.c.id, t.tokens.c.name, t.tokens.c.created_at, t.tokens.c.revoked_at).order_by(
                    t.tokens.c.id
                )
            ).all()
        return [TokenRecord(int(r[0]), r[1], r[2], r[3] is not None) for r in rows]

    def revoke_token(self, name: str) -> bool:
        with self._write() as conn:
            result = conn.execute(
                update(t.tokens)
                .where(t.tokens.c.name == name, t.tokens.c.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
        return bool(result.rowcount)
