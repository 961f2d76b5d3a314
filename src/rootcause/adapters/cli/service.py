"""Commands of the service: serve, index rebuild, outcomes export, token, build-site.

Heavy modules (FastAPI, SQLAlchemy) are imported inside each command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DB_HELP = (
    "sqlite:///PATH or postgresql://…; default $ROOTCAUSE_DATABASE_URL, else SQLite in "
    "$ROOTCAUSE_DATA_DIR (~/.local/share/rootcause/rootcause.db)."
)
CANON_HELP = "Extra canon folder (repeatable); also $ROOTCAUSE_CANON."


def _db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--database-url", metavar="URL", help=DB_HELP)(f)


def _canon_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--canon", multiple=True, metavar="PATH", help=CANON_HELP)(f)


def _set_env(name: str, value: object | None) -> None:
    if value is not None:
        os.environ[name] = str(value)


def _add_canon(canon: tuple[str, ...]) -> None:
    """The service reads extra canon folders from $ROOTCAUSE_CANON (workers inherit it)."""
    if canon:
        current = [p for p in os.environ.get("ROOTCAUSE_CANON", "").split(os.pathsep) if p]
        os.environ["ROOTCAUSE_CANON"] = os.pathsep.join(current + list(canon))


@click.command()
@click.option("--host", help="Address to listen on ($ROOTCAUSE_HOST, default 127.0.0.1).")
@click.option("--port", type=int, help="Port ($ROOTCAUSE_PORT, default 8000).")
@_db_option
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Server processes.")
@click.option("--max-upload-bytes", metavar="SIZE", help="Largest diagnosis body ($ROOTCAUSE_MAX_UPLOAD_BYTES, 32MiB).")
@click.option(
    "--rate-limit", metavar="N/PERIOD", help="Writes per token and per address ($ROOTCAUSE_RATE_LIMIT, 30/minute)."
)
@click.option("--log-level", default="info", show_default=True, help="uvicorn's log level.")
@_canon_option
def serve(
    host: str | None,
    port: int | None,
    database_url: str | None,
    workers: int,
    max_upload_bytes: str | None,
    rate_limit: str | None,
    log_level: str,
    canon: tuple[str, ...],
) -> None:
    """Start the web service: pages, the JSON API, outcome reports.

    The database is created on first start (SQLite by default; PostgreSQL when
    $ROOTCAUSE_DATABASE_URL says postgresql://…, shared by every server process).
    """
    import uvicorn

    from rootcause.adapters.web.app import create_app
    from rootcause.adapters.web.server import ServerLimits
    from rootcause.adapters.web.settings import Settings

    _set_env("ROOTCAUSE_HOST", host)
    _set_env("ROOTCAUSE_PORT", port)
    _set_env("ROOTCAUSE_DATABASE_URL", database_url)
    _set_env("ROOTCAUSE_MAX_UPLOAD_BYTES", max_upload_bytes)
    _set_env("ROOTCAUSE_RATE_LIMIT", rate_limit)
    _add_canon(canon)
    settings = Settings.from_env()  # a bad setting fails here, naming its variable
    limits = ServerLimits.from_env()  # timeouts and connection limits (docs/service.md)
    common: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": log_level,
        "timeout_graceful_shutdown": 5,
        **limits.uvicorn_options(),
    }
    app = create_app(settings)  # canon and store errors surface before listening
    state = app.state.rootcause
    click.echo(
        f"rootcause: {len(state.entries)} entries, store {state.store.describe()}, "
        f"http://{settings.host}:{settings.port}/",
        err=True,
    )
    if workers == 1:
        uvicorn.run(app, **common)
    else:
        state.store.close()  # the schema and index exist now; workers reuse them
        uvicorn.run("rootcause.adapters.web.app:create_app_from_env", factory=True, workers=workers, **common)


@click.group()
def index() -> None:
    """The database's index of the canon."""


@index.command("rebuild")
@_db_option
@_canon_option
def index_rebuild(database_url: str | None, canon: tuple[str, ...]) -> None:
    """Recreate the index from the canon files (outcome reports and tokens are kept)."""
    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.store import canon_fingerprint, open_store

    entries = load_entries(list(canon))
    store = open_store(database_url)
    try:
        n = store.rebuild_index(entries, canon_fingerprint(entries))
        click.echo(f"indexed {n} entries in {store.describe()}", err=True)
    finally:
        store.close()


@click.group()
def outcomes() -> None:
    """Outcome reports: which workaround was tried and whether it worked."""


@outcomes.command("export")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File to write (default: stdout)."
)
@click.option("--entry", "entry_id", metavar="ID", help="Only this entry's reports.")
@_db_option
def outcomes_export(output: Path | None, entry_id: str | None, database_url: str | None) -> None:
    """Write every report as JSON lines, oldest first, to fold measured rates back into the canon by review."""
    from rootcause.adapters.canon_files import write_atomic
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        lines = [json.dumps(o.as_dict(), ensure_ascii=False, sort_keys=True) for o in store.iter_outcomes(entry_id)]
    finally:
        store.close()
    text = "".join(line + "\n" for line in lines)
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
    click.echo(f"{len(lines)} report(s) exported", err=True)


@click.group()
def token() -> None:
    """Write tokens for outcome reports (reading needs none)."""


@token.command("create")
@click.argument("name")
@_db_option
def token_create(name: str, database_url: str | None) -> None:
    """Create a write token for NAME. It is printed once; only its sha256 hash is stored."""
    from rootcause.adapters.store import open_store
    from rootcause.adapters.store.tokens import NAME_RE, new_token
    from rootcause.errors import UsageError

    if not NAME_RE.match(name):
        raise UsageError(f"token name {name!r}: use letters, digits and . _ @ - (at most 100)")
    store = open_store(database_url)
    try:
        plain, token_hash = new_token()
        store.create_token(name, token_hash)
    finally:
        store.close()
    click.echo(plain)
    click.echo(f"token {name!r} created; it is not shown again, so store it now", err=True)


@token.command("list")
@_db_option
def token_list(database_url: str | None) -> None:
    """List tokens: names, dates, state (the tokens themselves are not stored)."""
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        for t in store.list_tokens():
            click.echo(f"{t.name}\t{t.created_at:%Y-%m-%d %H:%M}\t{'revoked' if t.revoked else 'active'}")
    finally:
        store.close()


@token.command("revoke")
@click.argument("name")
@_db_option
def token_revoke(name: str, database_url: str | None) -> None:
    """Revoke a token: it can no longer write. Its reports stay."""
    from rootcause.adapters.store import open_store
    from rootcause.errors import UsageError

    store = open_store(database_url)
    try:
        if not store.revoke_token(name):
            raise UsageError(f"no active token named {name!r}")
    finally:
        store.close()
    click.echo(f"token {name!r} revoked", err=True)


@click.command("build-site")
@click.argument("out_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--base-url", default="", help="Public URL of the site, for sitemap.xml and llms.txt (default: relative)."
)
@click.option("--measured", is_flag=True, help="Show the rates measured from the database's outcome reports.")
@_db_option
@_canon_option
def build_site(out_dir: Path, base_url: str, measured: bool, database_url: str | None, canon: tuple[str, ...]) -> None:
    """Write the whole site as plain files: every page and format, a search index, llms.txt."""
    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.site_export import build_site as build

    entries = load_entries(list(canon))
    tallies = None
    if measured:
        from rootcause.adapters.store import open_store

        store = open_store(database_url)
        try:
            tallies = store.tallies()
        finally:
            store.close()
    from rootcause.adapters.canon_files import canon_dirs

    report = build(out_dir, entries, base_url=base_url, tallies=tallies, canon_roots=canon_dirs(list(canon)))
    click.echo(
        f"wrote {report.files} files ({report.bytes / 1e6:.1f} MB) for {report.entries} entries to {out_dir}", err=True
    )
