"""The SQLAlchemy store, shared by SQLite and PostgreSQL; the dialects differ only in
how they open connections, lock, and write an upsert."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, cast

from sqlalchemy import Connection, Engine, case, delete, func, inspect, literal, or_, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.sql.elements import ColumnElement

from rootcause.adapters.store import schema as t
from rootcause.adapters.store.base import NewOutcome, OutcomeSource, RateRule, StoredOutcome, TokenRecord
from rootcause.adapters.store.terms import index_terms, is_prefix_term, rank
from rootcause.core.model import Entry
from rootcause.core.stats import Kind, Result, Tally
from rootcause.errors import IdempotencyConflictError, RateLimitedError, StoreError, UsageError

EXPORT_BATCH = 1000
PAGE_TOKEN_SQL = (
    f"SELECT (SELECT coalesce(max(id), 0) FROM {t.outcomes.name}), "
    f"(SELECT coalesce(max(id), 0) FROM {t.fleet_hits.name})"
)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class SqlStore:
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
            raise StoreError(f"{self.kind} store: {_first_line(exc)}") from None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        try:
            with self._reader.begin() as conn:
                yield conn
        except (sa_exc.OperationalError, sa_exc.InterfaceError) as exc:
            raise StoreError(f"{self.kind} store: {_first_line(exc)}") from None

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

    # -- outcomes ----------------------------------------------------------------------------
    @staticmethod
    def _window(rule: RateRule, now: dt.datetime) -> tuple[float, int]:
        stamp = now.replace(tzinfo=dt.UTC).timestamp()
        return stamp, int(stamp // rule.window_s) * rule.window_s

    @staticmethod
    def _limited(rule: RateRule, stamp: float, start: int) -> RateLimitedError:
        error = RateLimitedError(
            f"too many reports: at most {rule.limit} per {rule.window_s} s for this {rule.bucket.split(':', 1)[0]}"
        )
        error.retry_after = max(1, int(start + rule.window_s - stamp) + 1)  # type: ignore[attr-defined]
        return error

    def _count_hit(self, conn: Connection, rule: RateRule, now: dt.datetime) -> None:
        stamp, start = self._window(rule, now)
        rc = t.rate_counters
        conn.execute(delete(rc).where(rc.c.bucket == rule.bucket, rc.c.window_start < start))
        stmt = self._insert()(rc).values(bucket=rule.bucket, window_start=start, hits=1)
        stmt = stmt.on_conflict_do_update(
            index_elements=[rc.c.bucket, rc.c.window_start], set_={"hits": rc.c.hits + 1}
        ).returning(rc.c.hits)
        if int(conn.execute(stmt).scalar_one()) > rule.limit:
            raise self._limited(rule, stamp, start)

    def check_limits(self, rules: Sequence[RateRule], now: dt.datetime | None = None) -> None:
        """Raise RateLimitedError when a bucket is full. Reads only: the service asks this
        before it reads a request body; the write counts itself in its own transaction."""
        now = now or utcnow()
        rc = t.rate_counters
        with self._read() as conn:
            for rule in rules:
                stamp, start = self._window(rule, now)
                hits = conn.execute(
                    select(rc.c.hits).where(rc.c.bucket == rule.bucket, rc.c.window_start == start)
                ).scalar_one_or_none()
                if hits is not None and hits >= rule.limit:
                    raise self._limited(rule, stamp, start)

    def knows_key(self, token_id: int, idempotency_key: str) -> bool:
        """Whether this token stored a report under this key: its replay is answered from the
        store (or refused as a reused key), never counted, so no limit stands in its way."""
        o = t.outcomes
        with self._read() as conn:
            found = conn.execute(
                select(o.c.id).where(o.c.token_id == token_id, o.c.idempotency_key == idempotency_key).limit(1)
            ).first()
        return found is not None

    def _keyed(self, conn: Connection, new: NewOutcome) -> StoredOutcome | None:
        """The report an earlier request with this token and idempotency key stored."""
        if new.idempotency_key is None:
            return None
        o = t.outcomes
        row = conn.execute(
            self._outcome_select()
            .add_columns(o.c.request_hash)
            .where(o.c.token_id == new.token_id, o.c.idempotency_key == new.idempotency_key)
        ).first()
        if row is None:
            return None
        if row[-1] != new.request_hash:
            raise IdempotencyConflictError(
                f"the Idempotency-Key {new.idempotency_key!r} was used before for a different report; "
                "use a new key for a new report"
            )
        return replace(self._outcome(row[:-1]), replayed=True)

    def add_outcome(self, new: NewOutcome, rules: Sequence[RateRule], now: dt.datetime | None = None) -> StoredOutcome:
        """Count the writer against its limits and store the report, in one transaction.

        Returns only after the commit: an acknowledged report is durable. With an
        idempotency key, a repeat returns the report stored first (counted once, not
        against the limits); two racing requests with one key store one report.
        """
        now = now or utcnow()
        try:
            return self._add_outcome(new, rules, now)
        except sa_exc.IntegrityError:
            if new.idempotency_key is None:
                raise
            with self._read() as conn:  # a racing request with the same key committed first
                stored = self._keyed(conn, new)
            if stored is None:
                raise
            return stored

    def _add_outcome(self, new: NewOutcome, rules: Sequence[RateRule], now: dt.datetime) -> StoredOutcome:
        uid = secrets.token_hex(16)
        with self._write() as conn:
            earlier = self._keyed(conn, new)
            if earlier is not None:
                return earlier
            for rule in rules:
                self._count_hit(conn, rule, now)
            conn.execute(
                t.outcomes.insert().values(
                    uid=uid,
                    entry_id=new.entry_id,
                    kind=new.kind,
                    item_index=new.index,
                    action=new.action,
                    result=new.result,
                    versions=json.dumps(new.versions, sort_keys=True),
                    note=new.note,
                    token_id=new.token_id,
                    created_at=now,
                    idempotency_key=new.idempotency_key,
                    request_hash=new.request_hash,
                    source=new.source,
                )
            )
            reporter = conn.execute(select(t.tokens.c.name).where(t.tokens.c.id == new.token_id)).scalar_one()
        return StoredOutcome(
            uid,
            new.entry_id,
            new.kind,
            new.index,
            new.action,
            new.result,
            dict(new.versions),
            new.note,
            reporter,
            now,
            source=new.source,
        )

    def _tally_rows(self, entry_id: str | None, source: OutcomeSource) -> list[Any]:
        o = t.outcomes
        stmt = select(
            o.c.entry_id,
            o.c.kind,
            o.c.item_index,
            o.c.result,
            o.c.token_id,
            func.count(),
            func.min(o.c.created_at),
            func.max(o.c.created_at),
        ).group_by(o.c.entry_id, o.c.kind, o.c.item_index, o.c.result, o.c.token_id)
        stmt = stmt.where(o.c.source == source)
        if entry_id is not None:
            stmt = stmt.where(o.c.entry_id == entry_id)
        with self._read() as conn:
            return list(conn.execute(stmt))

    @staticmethod
    def _fold(out: Tally, row: Any) -> None:
        _, kind, index, result, token_id, n, first, last = row
        out.add(
            cast(Kind, kind),
            int(index),
            cast(Result, result),
            n=int(n),
            first=_as_date(first),
            last=_as_date(last),
            reporter=str(token_id),
        )

    def tally(self, entry_id: str, source: OutcomeSource = "field") -> Tally:
        """Reports of one source only: field reports and reproducer runs are never pooled."""
        out = Tally()
        for row in self._tally_rows(entry_id, source):
            self._fold(out, row)
        return out

    def tallies(self, source: OutcomeSource = "field") -> dict[str, Tally]:
        out: dict[str, Tally] = {}
        for row in self._tally_rows(None, source):
            self._fold(out.setdefault(row[0], Tally()), row)
        return out

    def page_token(self) -> tuple[int, int]:
        """What an entry page's content depends on in the store, in one cheap query: the newest outcome
        report and the newest fleet hit (both tables only grow). Asked on every page request, so it goes
        to a pooled driver connection directly (about 40 µs on SQLite, against 700 µs through a Core
        transaction with its BEGIN and COMMIT)."""
        dbapi_error = self._reader.dialect.loaded_dbapi.Error
        try:
            conn = self._reader.raw_connection()
            try:
                cursor = conn.cursor()
                cursor.execute(PAGE_TOKEN_SQL)
                row = cursor.fetchone()
                cursor.close()
            finally:
                conn.close()  # back to the pool, rolled back
        except (sa_exc.OperationalError, sa_exc.InterfaceError, dbapi_error) as exc:
            raise StoreError(f"{self.kind} store: {_first_line(exc)}") from None
        return int(row[0]), int(row[1])

    def outcome_count(self) -> int:
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(t.outcomes)).scalar_one())

    def _outcome_select(self) -> Any:
        o = t.outcomes
        return select(
            o.c.id,
            o.c.uid,
            o.c.entry_id,
            o.c.kind,
            o.c.item_index,
            o.c.action,
            o.c.result,
            o.c.versions,
            o.c.note,
            t.tokens.c.name,
            o.c.created_at,
            o.c.source,
        ).join(t.tokens, t.tokens.c.id == o.c.token_id)

    @staticmethod
    def _outcome(row: Any) -> StoredOutcome:
        _, uid, entry_id, kind, index, action, result, versions, note, reporter, created, source = row
        return StoredOutcome(
            uid,
            entry_id,
            kind,
            int(index),
            action,
            result,
            json.loads(versions),
            note,
            reporter,
            created,
            source=source,
        )

    def recent_outcomes(self, entry_id: str, limit: int = 20) -> list[StoredOutcome]:
        o = t.outcomes
        stmt = self._outcome_select().where(o.c.entry_id == entry_id).order_by(o.c.id.desc())
        with self._read() as conn:
            return [self._outcome(r) for r in conn.execute(stmt.limit(limit))]

    def iter_outcomes(self, entry_id: str | None = None) -> Iterator[StoredOutcome]:
        """Every report, oldest first, read in batches (no long transaction)."""
        o = t.outcomes
        last = 0
        while True:
            stmt = self._outcome_select().where(o.c.id > last)
            if entry_id is not None:
                stmt = stmt.where(o.c.entry_id == entry_id)
            with self._read() as conn:
                rows = conn.execute(stmt.order_by(o.c.id).limit(EXPORT_BATCH)).all()
            if not rows:
                return
            for row in rows:
                yield self._outcome(row)
            last = int(rows[-1][0])

    def has_outcomes(self, uids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for i in range(0, len(uids), 500):
            chunk = list(uids[i : i + 500])
            with self._read() as conn:
                found.update(conn.execute(select(t.outcomes.c.uid).where(t.outcomes.c.uid.in_(chunk))).scalars())
        return found


def _as_date(value: Any) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value.date() if isinstance(value, dt.datetime) else value


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return (str(orig).strip().splitlines() or [type(orig).__name__])[0]
