"""The atlas's storage: one SQLite file (optionally shipped xz-compressed).

Tables:
- `manifest(key TEXT PRIMARY KEY, value TEXT)`: the AtlasManifest JSON under key 'manifest';
- `template(id INTEGER PRIMARY KEY, package, module, function, line, exception, kind, message, pattern,
  literal, releases_json, source_url)`; `releases_json` is a JSON list of {"first", "last"}.

A compressed atlas (`atlas.sqlite.xz`) is decompressed once into the user cache directory, under a
name that carries the compressed file's path, size and mtime, so a newer package replaces it.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from rootcause.adapters.loading import FILE_CHECK_SECONDS, cache_dir
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind
from rootcause.errors import NotFoundError, StoreError

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "atlas"
SHIPPED = DATA_DIR / "atlas.sqlite"
SHIPPED_XZ = DATA_DIR / "atlas.sqlite.xz"
_DECOMPRESSING = threading.Lock()
# (monotonic time, path, the path as a string): see default_atlas_path
_default_seen: tuple[float, Path | None, str] | None = None

SCHEMA = """
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS template (
  id INTEGER PRIMARY KEY, package TEXT NOT NULL, module TEXT NOT NULL, function TEXT NOT NULL,
  line INTEGER NOT NULL, exception TEXT NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
  pattern TEXT NOT NULL, literal TEXT NOT NULL, releases_json TEXT NOT NULL, source_url TEXT NOT NULL
);
"""
COLUMNS = "package, module, function, line, exception, kind, message, pattern, literal, releases_json, source_url"


def _decompressed(xz_path: Path) -> Path:
    """The plain SQLite file of a `.xz` atlas, decompressed once into the cache directory."""
    stat = xz_path.stat()
    where = hashlib.sha256(str(xz_path.resolve()).encode()).hexdigest()[:12]
    target = cache_dir() / f"atlas-{where}-{stat.st_size}-{stat.st_mtime_ns}.sqlite"
    if target.is_file():
        return target
    with _DECOMPRESSING:  # threads of one process (the service) decompress once; other processes race safely
        if target.is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".part{os.getpid()}-{threading.get_ident()}")
        try:
            with lzma.open(xz_path, "rb") as src, partial.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            partial.replace(target)  # atomic: a reader sees no file or the whole one
        except (OSError, lzma.LZMAError) as exc:
            partial.unlink(missing_ok=True)
            if target.is_file():  # another process finished first
                return target
            raise StoreError(f"{xz_path}: cannot decompress the atlas: {exc}") from exc
    return target


def default_atlas_path() -> Path | None:
    """The shipped atlas as a plain SQLite path (decompressed once if shipped as .xz); None if none ships.
    Looked up at most once a second: the lookup's dozen stats were a fifth of a held `rootcause.diagnose(text)`."""
    global _default_seen
    now = time.monotonic()
    seen = _default_seen
    if seen is not None and now - seen[0] < FILE_CHECK_SECONDS and (seen[1] is None or os.path.isfile(seen[2])):
        return seen[1]  # os.path.isfile: Path.is_file's stat without pathlib's frames
    path = _find_shipped()
    _default_seen = (now, path, "" if path is None else str(path))
    return path


def _find_shipped() -> Path | None:
    if SHIPPED.is_file():
        return SHIPPED
    if SHIPPED_XZ.is_file():
        return _decompressed(SHIPPED_XZ)
    return None


def _connect(path: Path | str) -> sqlite3.Connection:
    path = Path(path)
    if path.suffix == ".xz":
        path = _decompressed(path)
    if not path.is_file():
        raise NotFoundError(f"{path}: no such atlas file")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the atlas: {exc}") from exc


def load_manifest(path: Path | str) -> AtlasManifest:
    """The manifest of the atlas at `path` (`.sqlite` or `.sqlite.xz`)."""
    conn = _connect(path)
    try:
        row = conn.execute("SELECT value FROM manifest WHERE key = 'manifest'").fetchone()
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: not an atlas: {exc}") from exc
    finally:
        conn.close()
    if row is None:
        raise StoreError(f"{path}: the atlas has no manifest")
    try:
        return AtlasManifest.model_validate_json(row[0])
    except ValidationError as exc:
        raise StoreError(f"{path}: manifest: {exc.errors()[0]['msg']}") from exc


def _row_template(row: tuple) -> Template:
    package, module, function, line, exception, kind, message, pattern, literal, releases_json, url = row
    releases = tuple(ReleaseInterval(first=r["first"], last=r["last"]) for r in json.loads(releases_json))
    return Template(
        package=package,
        module=module,
        function=function,
        line=line,
        exception=exception,
        kind=TemplateKind(kind),
        message=message,
        pattern=pattern,
        literal=literal,
        releases=releases,
        source_url=url,
    )


def load_templates(path: Path | str) -> list[Template]:
    """Every template of the atlas at `path`, in id order."""
    conn = _connect(path)
    try:
        rows = conn.execute(f"SELECT {COLUMNS} FROM template ORDER BY id").fetchall()
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: not an atlas: {exc}") from exc
    finally:
        conn.close()
    try:
        return [_row_template(row) for row in rows]
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        raise StoreError(f"{path}: a template row is malformed: {exc}") from exc


def write_atlas(path: Path | str, manifest: AtlasManifest, templates: Iterable[Template]) -> int:
    """Write a fresh atlas file at `path` (replaced atomically; xz-compressed when it ends in `.xz`);
    returns the number of templates."""
    path = Path(path)
    if path.suffix == ".xz":
        plain = path.with_name(path.name.removesuffix(".xz") + ".plain")
        count = write_atlas(plain, manifest, templates)
        partial = path.with_name(path.name + ".part")
        with plain.open("rb") as src, lzma.open(partial, "wb", preset=9 | lzma.PRESET_EXTREME) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        partial.replace(path)
        plain.unlink()
        return count
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    try:
        partial.unlink(missing_ok=True)
        return _write(path, partial, manifest, templates)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot write the atlas: {exc}") from exc


def _write(path: Path, partial: Path, manifest: AtlasManifest, templates: Iterable[Template]) -> int:
    conn = sqlite3.connect(partial)
    count = 0
    try:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO manifest (key, value) VALUES ('manifest', ?)", (manifest.model_dump_json(),))
        rows = []
        for t in templates:
            releases = json.dumps([{"first": r.first, "last": r.last} for r in t.releases], separators=(",", ":"))
            head = (t.package, t.module, t.function, t.line, t.exception, str(t.kind), t.message, t.pattern)
            rows.append((*head, t.literal, releases, t.source_url))
        conn.executemany(f"INSERT INTO template ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
        count = len(rows)
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()
    partial.replace(path)
    return count
