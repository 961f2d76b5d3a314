"""Writing outcome reports to the SQL store: rate limits counted in the same transaction,
idempotency keys answered from the store. A mixin of ``sql.SqlStore``."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, select
from sqlalchemy import exc as sa_exc

from rootcause.adapters.store import schema as t
from rootcause.adapters.store.base import NewOutcome, RateRule, StoredOutcome
from rootcause.adapters.store.sql_support import utcnow
from rootcause.errors import IdempotencyConflictError, RateLimitedError


class OutcomeWrites:
    """Rate limits and the storing of one report."""

    kind: str

    if TYPE_CHECKING:

        def _read(self) -> AbstractContextManager[Connection]: ...

        def _write(self) -> AbstractContextManager[Connection]: ...

        def _insert(self) -> Any: ...

        def _outcome_select(self) -> Any: ...

        @staticmethod
        def _outcome(row: Any) -> StoredOutcome: ...

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
