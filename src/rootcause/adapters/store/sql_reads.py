"""Reading outcome reports from the SQL store: tallies, the page token, listings and the batched
export. A mixin of ``sql.SqlStore``."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy import exc as sa_exc

from rootcause.adapters.store import schema as t
from rootcause.adapters.store.base import OutcomeSource, StoredOutcome
from rootcause.adapters.store.sql_support import first_line
from rootcause.core.stats import Kind, Result, Tally
from rootcause.errors import StoreError

EXPORT_BATCH = 1000
PAGE_TOKEN_SQL = (
    f"SELECT (SELECT coalesce(max(id), 0) FROM {t.outcomes.name}), "
    f"(SELECT coalesce(max(id), 0) FROM {t.fleet_hits.name})"
)


class OutcomeReads:
    """Tallies, listings and the export of stored reports."""

    _reader: Engine
    kind: str

    if TYPE_CHECKING:

        def _read(self) -> AbstractContextManager[Connection]: ...

        def _write(self) -> AbstractContextManager[Connection]: ...

        def _insert(self) -> Any: ...

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
            first=as_date(first),
            last=as_date(last),
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
            raise StoreError(f"{self.kind} store: {first_line(exc)}") from None
        if row is None:  # an aggregate query always returns one row
            raise StoreError(f"{self.kind} store: the page token query returned no row")
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


def as_date(value: Any) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value.date() if isinstance(value, dt.datetime) else value
