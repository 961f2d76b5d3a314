"""The atlas file: one SQLite database, `manifest(key, value)` and `template(...)` (a minimal reader).

The schema is the contract with the builder (`rootcause atlas build`); `write_atlas` is here for tests and
benches that make a small atlas from hand-listed templates.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path

from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template
from rootcause.errors import UsageError

COLUMNS = (
    "id",
    "package",
    "module",
    "function",
    "line",
    "exception",
    "kind",
    "message",
    "pattern",
    "literal",
    "releases_json",
    "source_url",
)
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS template (id INTEGER PRIMARY KEY, package TEXT NOT NULL, module TEXT NOT NULL, "
    "function TEXT NOT NULL, line INTEGER NOT NULL, exception TEXT NOT NULL, kind TEXT NOT NULL, "
    "message TEXT NOT NULL, pattern TEXT NOT NULL, literal TEXT NOT NULL, releases_json TEXT NOT NULL, "
    "source_url TEXT NOT NULL);"
)


def default_atlas_path() -> Path:
    """The atlas shipped with the package (it may be absent: the located tier is then off)."""
    return Path(str(files("rootcause"))) / "data" / "atlas" / "atlas.sqlite"


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise UsageError(f"{path}: no atlas file there")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def load_manifest(path: Path) -> AtlasManifest:
    con = _connect(path)
    try:
        row = con.execute("SELECT value FROM manifest WHERE key = 'manifest'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"{path}: not an atlas ({exc})") from exc
    finally:
        con.close()
    if row is None:
        raise UsageError(f"{path}: manifest: no 'manifest' row")
    return AtlasManifest.model_validate_json(row[0])


def load_templates(path: Path) -> list[Template]:
    """Every template of the atlas, in id order. A bad row is a one-line error naming its id and field."""
    con = _connect(path)
    try:
        rows = con.execute(f"SELECT {', '.join(COLUMNS)} FROM template ORDER BY id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"{path}: not an atlas ({exc})") from exc
    finally:
        con.close()
    out: list[Template] = []
    for row in rows:
        rid, package, module, function, line, exception, kind, message, pattern, literal, releases, url = row
        try:
            intervals = tuple(ReleaseInterval(first=a, last=b) for a, b in json.loads(releases))
            out.append(
                Template(
                    package=package,
                    module=module,
                    function=function,
                    line=line,
                    exception=exception,
                    kind=kind,
                    message=message,
                    pattern=pattern,
                    literal=literal,
                    releases=intervals,
                    source_url=url,
                )
            )
        except (ValueError, TypeError) as exc:
            first = str(exc).splitlines()[0]
            raise UsageError(f"{path}: template id {rid}: {first}") from exc
    return out


def write_atlas(path: Path, templates: Iterable[Template], manifest: AtlasManifest) -> None:
    """Write an atlas file (tests, benches): the same schema as the builder's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    try:
        con.executescript(SCHEMA)
        con.execute("INSERT INTO manifest VALUES ('manifest', ?)", (manifest.model_dump_json(),))
        con.executemany(
            f"INSERT INTO template VALUES ({', '.join('?' * len(COLUMNS))})",
            (
                (
                    n,
                    t.package,
                    t.module,
                    t.function,
                    t.line,
                    t.exception,
                    t.kind.value,
                    t.message,
                    t.pattern,
                    t.literal,
                    json.dumps([[r.first, r.last] for r in t.releases]),
                    t.source_url,
                )
                for n, t in enumerate(templates, 1)
            ),
        )
        con.commit()
    finally:
        con.close()
