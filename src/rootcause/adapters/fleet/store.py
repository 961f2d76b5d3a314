"""Fleet results in the service's store: hits per entry (for rolling counts) and the unknown-error
templates (for ``/-/unknown``). Fed by ``rootcause fleet ingest``; SQLite and PostgreSQL alike."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import case, delete, func, select

from rootcause.adapters.store import schema
from rootcause.core.fleet.rows import Row
from rootcause.core.fleet.summary import WINDOWS

hits = schema.fleet_hits
templates = schema.fleet_templates


def _uid(r: Row) -> str:
    key = f"{r['path']}\0{r['entry_id']}\0{r['line']}\0{r['seen_at']}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _utc(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).replace(tzinfo=None)


class FleetStore:
    """Uses the connections of a SqlStore (the service's database), whose tables ``init_schema`` made."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def add_hits(self, rows: Iterable[Row]) -> int:
        fresh = {(_uid(r)): r for r in rows if r["kind"] == "known"}
        added = 0
        with self.store._write() as conn:
            uids = list(fresh)
            for start in range(0, len(uids), 500):
                part = uids[start : start + 500]
                known = set(conn.execute(select(hits.c.uid).where(hits.c.uid.in_(part))).scalars())
                new = [
                    {
                        "uid": u,
                        "entry_id": fresh[u]["entry_id"],
                        "job": fresh[u]["job"],
                        "host": fresh[u]["host"],
                        "rank": fresh[u]["rank"],
                        "seen_at": _utc(fresh[u]["seen_at"]),
                    }
                    for u in part
                    if u not in known
                ]
                if new:
                    conn.execute(hits.insert(), new)
                    added += len(new)
        return added

    def replace_templates(self, items: list[dict[str, Any]]) -> None:
        with self.store._write() as conn:
            conn.execute(delete(templates))
            if items:
                conn.execute(
                    templates.insert(),
                    [
                        {
                            "id": t["id"],
                            "template": t["template"],
                            "count": t["count"],
                            "body": json.dumps({k: t[k] for k in ("days", "jobs", "nodes", "examples", "sources")}),
                        }
                        for t in items
                    ],
                )

    def templates(self, limit: int = 100) -> list[dict[str, Any]]:
        with self.store._read() as conn:
            rows = conn.execute(select(templates).order_by(templates.c.count.desc(), templates.c.id).limit(limit))
            return [{"id": r.id, "template": r.template, "count": r.count, **json.loads(r.body)} for r in rows]

    def rolling(self, entry_id: str, now: dt.datetime | None = None) -> dict[str, int]:
        """Hits of one entry in the last 24 hours, 7 days and 30 days (one query)."""
        now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
        since = {name: now - dt.timedelta(milliseconds=span_ms) for name, span_ms in WINDOWS.items()}
        widest = min(since.values())
        q = select(*(func.sum(case((hits.c.seen_at > s, 1), else_=0)) for s in since.values())).where(
            hits.c.entry_id == entry_id, hits.c.seen_at > widest, hits.c.seen_at <= now
        )
        with self.store._read() as conn:
            row = conn.execute(q).one()
        return {name: int(n or 0) for name, n in zip(since, row, strict=True)}
