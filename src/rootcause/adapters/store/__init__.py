"""The service's database: SQLite by default, PostgreSQL when a URL says so."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from rootcause.adapters.store.base import (
    NewOutcome,
    RateRule,
    Store,
    StoredOutcome,
    TokenRecord,
)
from rootcause.core.model import Entry
from rootcause.errors import UsageError

DATABASE_URL_ENV = "ROOTCAUSE_DATABASE_URL"
DATA_DIR_ENV = "ROOTCAUSE_DATA_DIR"
DB_FILE = "rootcause.db"


def data_dir() -> Path:
    """$ROOTCAUSE_DATA_DIR, else $XDG_DATA_HOME/rootcause, else ~/.local/share/rootcause."""
    explicit = os.environ.get(DATA_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(base) / "rootcause"


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / DB_FILE}"


def database_url(explicit: str | None = None) -> str:
    return explicit or os.environ.get(DATABASE_URL_ENV) or default_database_url()


def canon_fingerprint(entries: Sequence[Entry]) -> str:
    """What the index was built from: a hash of every entry's content."""
    digest = hashlib.sha256()
    for e in sorted(entries, key=lambda e: e.id):
        digest.update(json.dumps(e.model_dump(mode="json"), sort_keys=True).encode())
    return digest.hexdigest()[:32]


def open_store(url: str | None = None, *, init: bool = True) -> Store:
    """Open (and on first use create) the store that a URL names."""
    url = database_url(url)
    store: Store
    if url.startswith("sqlite"):
        from rootcause.adapters.store.sqlite import SqliteStore

        store = SqliteStore(url)
    elif url.startswith(("postgresql", "postgres:")):
        from rootcause.adapters.store.postgres import PostgresStore

        store = PostgresStore(url)
    else:
        raise UsageError(f"unsupported database URL {url.split(':', 1)[0]}://… (sqlite or postgresql)")
    if init:
        store.init_schema()
    return store


__all__ = [
    "NewOutcome",
    "RateRule",
    "Store",
    "StoredOutcome",
    "TokenRecord",
    "canon_fingerprint",
    "data_dir",
    "database_url",
    "default_database_url",
    "open_store",
]
