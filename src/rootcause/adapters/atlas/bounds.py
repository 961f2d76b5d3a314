"""The atlas as lint and `rootcause atlas link` read it: template keys, their intervals, their patterns.

Read straight from the SQLite table (no pydantic models): a lint run pays a fraction of a second for it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable
from pathlib import Path

from packaging.utils import canonicalize_name

from rootcause.adapters.atlas.store import _connect, load_manifest
from rootcause.core.atlas.bounds import AtlasBounds, key_package, template_key
from rootcause.core.atlas.link import Candidate, PackageTemplates, candidate
from rootcause.errors import StoreError


def _rows(path: Path | str, columns: str) -> list[tuple]:
    conn = _connect(path)
    try:
        return conn.execute(f"SELECT {columns} FROM template ORDER BY id").fetchall()
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: not an atlas: {exc}") from exc
    finally:
        conn.close()


def _intervals(releases_json: str) -> tuple[tuple[str, str], ...]:
    return tuple((r["first"], r["last"]) for r in json.loads(releases_json))


def load_bounds(path: Path | str, keys: Collection[str] | None = None) -> AtlasBounds:
    """The releases read of each package, and the intervals of the template `keys` (of every template when None).

    With `keys`, only the rows of their packages are read, and only theirs are decoded; with none, only the
    manifest is read (what lint needs for RC510)."""
    manifest = load_manifest(path)
    releases: dict[str, list[str]] = {canonicalize_name(name): list(read) for name, read in manifest.packages.items()}
    intervals: dict[str, tuple[tuple[str, str], ...]] = {}
    wanted = None if keys is None else set(keys)
    if wanted is not None and not wanted:
        return AtlasBounds(releases=releases, intervals=intervals)
    packages = None if wanted is None else {key_package(key) for key in wanted}
    try:
        for package, kind, exception, pattern, releases_json in _rows(
            path, "package, kind, exception, pattern, releases_json"
        ):
            if packages is not None and canonicalize_name(package) not in packages:
                continue
            key = template_key(package, kind, exception, pattern)
            if wanted is None or key in wanted:
                intervals[key] = _intervals(releases_json)
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{path}: a template row is malformed: {exc}") from exc
    return AtlasBounds(releases=releases, intervals=intervals)


def load_package_templates(path: Path | str, packages: Iterable[str]) -> dict[str, PackageTemplates]:
    """The templates of each named package (canonical names) that the atlas holds, ready for matching."""
    wanted = {canonicalize_name(p) for p in packages}
    by_package: dict[str, list[Candidate]] = {}
    try:
        for *row, releases_json in _rows(
            path, "package, kind, exception, pattern, literal, message, module, source_url, releases_json"
        ):
            name = canonicalize_name(row[0])
            if name in wanted:
                by_package.setdefault(name, []).append(candidate(row, _intervals(releases_json)))
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{path}: a template row is malformed: {exc}") from exc
    return {name: PackageTemplates(found) for name, found in by_package.items()}
