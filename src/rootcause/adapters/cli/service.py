"""Commands of the service: serve, index rebuild, outcomes export, token, build-site."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from rootcause.errors import UsageError

CanonOpt = Annotated[
    list[str] | None,
    typer.Option("--canon", metavar="PATH", help="Extra canon folder (repeatable); also $ROOTCAUSE_CANON."),
]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        metavar="URL",
        help="sqlite:///PATH or postgresql://…; default $ROOTCAUSE_DATABASE_URL, else "
        "SQLite in $ROOTCAUSE_DATA_DIR (~/.local/share/rootcause/rootcause.db).",
    ),
]

index_app = typer.Typer(help="The database's index of the canon.", no_args_is_help=True)
outcomes_app = typer.Typer(help="Outcome reports (which workaround worked).", no_args_is_help=True)
token_app = typer.Typer(help="Write tokens for outcome reports.", no_args_is_help=True)


def _set_env(name: str, value: object | None) -> None:
    if value is not None:
        os.environ[name] = str(value)


def _add_canon(canon: list[str] | None) -> None:
    """The service reads extra canon folders from $ROOTCAUSE_CANON (workers inherit it)."""
    if canon:
        current = [p for p in os.environ.get("ROOTCAUSE_CANON", "").split(os.pathsep) if p]
        os.environ["ROOTCAUSE_CANON"] = os.pathsep.join(current + list(canon))


def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on ($ROOTCAUSE_HOST, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port ($ROOTCAUSE_PORT, 8000).")] = None,
    database_url: DbOpt = None,
    workers: Annotated[int, typer.Option(min=1, help="Server processes (they share the database).")] = 1,
    max_upload_bytes: Annotated[
        str | None, typer.Option(help="Largest diagnosis body ($ROOTCAUSE_MAX_UPLOAD_BYTES, 32MiB).")
    ] = None,
    rate_limit: Annotated[
        str | None, typer.Option(help="Writes per token and per address ($ROOTCAUSE_RATE_LIMIT, 30/minute).")
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    canon: CanonOpt = None,
) -> None:
    """Start the web service (pages, JSON API, outcome reports) with uvicorn."""
    import uvicorn

    from rootcause.adapters.web.app import create_app
    from rootcause.adapters.web.settings import Settings

    _set_env("ROOTCAUSE_HOST", host)
    _set_env("ROOTCAUSE_PORT", port)
    _set_env("ROOTCAUSE_DATABASE_URL", database_url)
    _set_env("ROOTCAUSE_MAX_UPLOAD_BYTES", max_upload_bytes)
    _set_env("ROOTCAUSE_RATE_LIMIT", rate_limit)
    _add_canon(canon)
    settings = Settings.from_env()  # a bad setting fails here, with its name
    common = {
        "host": settings.host,
        "port": settings.port,
        "log_level": log_level,
        "timeout_graceful_shutdown": 5,
    }
    if workers == 1:
        app = create_app(settings)  # canon and store errors surface before listening
        uvicorn.run(app, **common)  # type: ignore[arg-type]
    else:
        create_app(settings).state.rootcause.store.close()  # create the schema and index once
        uvicorn.run(
            "rootcause.adapters.web.app:create_app_from_env",
            factory=True,
            workers=workers,
            **common,  # type: ignore[arg-type]
        )


@index_app.command("rebuild")
def index_rebuild(database_url: DbOpt = None, canon: CanonOpt = None) -> None:
    """Recreate the database's index from the canon files (outcome reports are kept)."""
    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.store import canon_fingerprint, open_store

    entries = load_entries(canon or [])
    store = open_store(database_url)
    try:
        n = store.rebuild_index(entries, canon_fingerprint(entries))
        print(f"indexed {n} entries in {store.describe()}", file=sys.stderr)
    finally:
        store.close()


@outcomes_app.command("export")
def outcomes_export(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    entry: Annotated[str | None, typer.Option("--entry", metavar="ID", help="Only this entry's reports.")] = None,
    database_url: DbOpt = None,
) -> None:
    """Write every outcome report as JSON lines, oldest first, to fold back into the canon by review."""
    from rootcause.adapters.canon_files import write_atomic
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        lines = [json.dumps(o.as_dict(), ensure_ascii=False, sort_keys=True) for o in store.iter_outcomes(entry)]
    finally:
        store.close()
    text = "".join(line + "\n" for line in lines)
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
    print(f"{len(lines)} report(s) exported", file=sys.stderr)


@token_app.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="Who the token is for (unique).")],
    database_url: DbOpt = None,
) -> None:
    """Create a write token. It is printed once; only its sha256 hash is stored."""
    from rootcause.adapters.store import open_store
    from rootcause.adapters.store.tokens import NAME_RE, new_token

    if not NAME_RE.match(name):
        raise UsageError(f"token name {name!r}: use letters, digits and . _ @ - (at most 100)")
    store = open_store(database_url)
    try:
        token, token_hash = new_token()
        store.create_token(name, token_hash)
    finally:
        store.close()
    print(token)
    print(f"token {name!r} created; it is not shown again, so store it now", file=sys.stderr)


@token_app.command("list")
def token_list(database_url: DbOpt = None) -> None:
    """List tokens (names and dates; the tokens themselves are not stored)."""
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        for t in store.list_tokens():
            print(f"{t.name}\t{t.created_at:%Y-%m-%d %H:%M}\t{'revoked' if t.revoked else 'active'}")
    finally:
        store.close()


@token_app.command("revoke")
def token_revoke(name: Annotated[str, typer.Argument()], database_url: DbOpt = None) -> None:
    """Revoke a token: it can no longer write. Its reports stay."""
    from rootcause.adapters.store import open_store

    store = open_store(database_url)
    try:
        if not store.revoke_token(name):
            raise UsageError(f"no active token named {name!r}")
    finally:
        store.close()
    print(f"token {name!r} revoked", file=sys.stderr)


def build_site_cmd(
    out_dir: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write the site into.")],
    base_url: Annotated[
        str, typer.Option(help="Public URL of the site, for sitemap.xml and llms.txt (default: relative).")
    ] = "",
    measured: Annotated[
        bool, typer.Option("--measured", help="Show rates measured from the database's outcome reports.")
    ] = False,
    database_url: DbOpt = None,
    canon: CanonOpt = None,
) -> None:
    """Write the whole site as plain files: every page and format, a search index, llms.txt."""
    from rootcause.adapters.loading import load_entries
    from rootcause.adapters.site_export import build_site

    entries = load_entries(canon or [])
    tallies = None
    if measured:
        from rootcause.adapters.store import open_store

        store = open_store(database_url)
        try:
            tallies = store.tallies()
        finally:
            store.close()
    report = build_site(out_dir, entries, base_url=base_url, tallies=tallies)
    print(
        f"wrote {report.files} files ({report.bytes / 1e6:.1f} MB) for {report.entries} entries to {out_dir}",
        file=sys.stderr,
    )


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.add_typer(index_app, name="index")
    app.add_typer(outcomes_app, name="outcomes")
    app.add_typer(token_app, name="token")
    app.command("build-site")(build_site_cmd)
