"""The tables. The canon stays the source of truth: ``entries`` is an index that
``rootcause index rebuild`` recreates; ``outcomes`` and ``tokens`` live only here."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

SCHEMA_VERSION = "2"  # 2: outcomes carry an idempotency key

metadata = MetaData()

# BIGINT on PostgreSQL, INTEGER (the rowid alias) on SQLite
_Id = BigInteger().with_variant(Integer(), "sqlite")

meta = Table(
    "rc_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

entries = Table(
    "rc_entries",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("domain", String(64), nullable=False, index=True),
    Column("category", String(64), nullable=False, index=True),
    Column("subcategory", String(64)),
    Column("signature", Text, nullable=False),
    Column("signature_zh", Text),
    Column("verification", String(32), nullable=False),
    Column("generic", Boolean, nullable=False),
    Column("withdrawn", Boolean, nullable=False),
    Column("terms", Text, nullable=False),
    Column("body", Text, nullable=False),  # the entry as JSON
)

tokens = Table(
    "rc_tokens",
    metadata,
    Column("id", _Id, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("token_hash", String(64), nullable=False, unique=True),  # sha256, hex
    Column("created_at", DateTime, nullable=False),
    Column("revoked_at", DateTime),
)

outcomes = Table(
    "rc_outcomes",
    metadata,
    Column("id", _Id, primary_key=True, autoincrement=True),
    Column("uid", String(32), nullable=False, unique=True),
    Column("entry_id", String(200), nullable=False),
    Column("kind", String(16), nullable=False),  # workaround / dead_end
    Column("item_index", Integer, nullable=False),
    Column("action", Text, nullable=False),  # what the entry said at the time
    Column("result", String(16), nullable=False),  # worked / partial / failed
    Column("versions", Text, nullable=False),  # JSON object
    Column("note", Text),
    Column("token_id", _Id, ForeignKey("rc_tokens.id"), nullable=False),
    Column("created_at", DateTime, nullable=False),  # UTC
    Column("idempotency_key", String(255)),  # the client's Idempotency-Key, unique per token
    Column("request_hash", String(64)),  # sha256 of the report it keyed
    # field: a person's report; reproducer: a `rootcause verify --record` run. Never pooled.
    Column("source", String(16), nullable=False, server_default="field"),
)
Index("rc_outcomes_entry", outcomes.c.entry_id, outcomes.c.created_at)
outcomes_idempotency = Index("rc_outcomes_idempotency", outcomes.c.token_id, outcomes.c.idempotency_key, unique=True)
# columns added after version 1, with the DDL type each gets on an existing database
ADDED_COLUMNS = {
    "rc_outcomes": {
        "idempotency_key": "VARCHAR(255)",
        "request_hash": "VARCHAR(64)",
        "source": "VARCHAR(16) NOT NULL DEFAULT 'field'",  # before reproducer runs were stored
    }
}

rate_counters = Table(
    "rc_rate_counters",
    metadata,
    Column("bucket", String(200), primary_key=True),
    Column("window_start", BigInteger, primary_key=True),
    Column("hits", Integer, nullable=False),
)

# fleet results, fed by `rootcause fleet ingest` (adapters/fleet/store.py); created with the rest, never per request
fleet_hits = Table(
    "rc_fleet_hits",
    metadata,
    Column("id", _Id, primary_key=True, autoincrement=True),
    Column("uid", String(64), nullable=False, unique=True),  # one finding, once, however often ingested
    Column("entry_id", String(200), nullable=False),
    Column("job", Text),
    Column("host", Text),
    Column("rank", Integer),
    Column("seen_at", DateTime, nullable=False),  # UTC
)
Index("rc_fleet_hits_entry", fleet_hits.c.entry_id, fleet_hits.c.seen_at)

fleet_templates = Table(
    "rc_fleet_templates",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("template", Text, nullable=False),
    Column("count", Integer, nullable=False),
    Column("body", Text, nullable=False),  # JSON: days, jobs, nodes, examples, sources
)
