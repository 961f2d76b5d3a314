"""Load the canon and its compiled index: held in the process, cached on disk by the canon's content.

A cold ``rootcause diagnose`` reads the entry files' bytes (cheap), hashes them, and
when the hash is known loads the validated entries and the serialised hyperscan
database from the cache instead of parsing YAML and compiling patterns again.

Within one process (the Python API, a notebook, the MCP server, the web service, ``verify``)
the loaded index is held, keyed by the canon folders, and reloaded only when they change. Each
call compares the folders' modification times, and the files' of the extra (``--canon``,
``ROOTCAUSE_CANON``) folders; the shipped canon's folders and files are compared at most once a
second (``FILE_CHECK_SECONDS``), since an installed package's files do not change under a running
process. A changed stamp re-reads and hashes the files; the index is rebuilt only when the
content digest differs.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pickle
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rootcause.adapters.canon_paths import (
    CANON_ENV,
    builtin_canon_dir,
    canon_dirs,
    env_value,
    iter_entry_files,
    write_atomic_bytes,
)
from rootcause.core.matching.index import CompiledIndex, index_cache_key
from rootcause.errors import StoreError

if TYPE_CHECKING:
    from rootcause.core.model import Entry

CACHE_ENV = "ROOTCAUSE_CACHE_DIR"
NO_CACHE_ENV = "ROOTCAUSE_NO_CACHE"
FILE_CHECK_SECONDS = 1.0  # how stale an in-place edit of the shipped canon may be seen
HELD_CANONS = 4  # distinct folder lists held at once (least recently used dropped)

Stamp = tuple[tuple[str, int, int], ...]


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rootcause"
    )
    return Path(base)


def _canon_texts(roots: Iterable[Path]) -> list[tuple[str, str]]:
    texts: list[tuple[str, str]] = []
    for n, root in enumerate(roots):
        if not root.is_dir():
            continue
        for file, entry_id in iter_entry_files(root):
            texts.append((f"{n}:{entry_id}", file.read_text(encoding="utf-8", errors="replace")))
    return texts


def load_entries(extra: Iterable[str] = ()) -> list[Entry]:
    from rootcause.adapters.canon_files import load_canon  # YAML and validation: only when the cache cannot serve

    return [loaded.entry for loaded in load_canon(list(extra))]


# the modules whose code shapes what the index cache holds: the entries' class, the derived patterns, the lexical index,
# and the noise skipper's own expressions compiled into the same database (version lines, triage keywords)
DERIVING_MODULES = (
    "rootcause.core.model",
    "rootcause.core.versions",
    "rootcause.core.triage.keywords",
    "rootcause.core.matching.index",
    "rootcause.core.matching.heads",
    "rootcause.core.matching.patterns",
    "rootcause.core.matching.lexical",
    "rootcause.core.matching.claims",
    "rootcause.core.matching.shapes",
    "rootcause.core.matching.skeletons",
    "rootcause.core.matching.re2_sets",
    "rootcause.core.matching.large_prefilter",
    "rootcause.core.matching.prefilter_db",
    "rootcause.core.normalize",  # the lexical stage's tokens and the parameterisation of its documents
)


@functools.cache
def _code_digest() -> str:
    """A digest of DERIVING_MODULES' source: a change to them in a checkout invalidates the cache as a new version
    would (the cache holds pickled entries, read one by one when a diagnosis asks, and derived patterns)."""
    digest = hashlib.sha256()
    for name in DERIVING_MODULES:
        spec = importlib.util.find_spec(name)
        try:
            digest.update(Path(spec.origin).read_bytes() if spec is not None and spec.origin else name.encode())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()[:16]


# -- the stamp: what changes when a canon folder does ---------------------------------------------
def _walk(root: Path, with_files: bool) -> tuple[list[tuple[str, int, int]], list[Path]]:
    """(path, mtime_ns, size) of root, its subfolders and (with_files) its entry files; and the subfolders."""
    out: list[tuple[str, int, int]] = []
    folders: list[Path] = []
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            entries = list(os.scandir(folder))
        except OSError:
            out.append((folder, -1, -1))
            continue
        out.append((folder, st.st_mtime_ns, st.st_size))
        folders.append(Path(folder))
        for item in entries:
            if item.is_dir(follow_symlinks=True):
                stack.append(item.path)
            elif with_files and item.name.endswith(".yaml"):
                try:
                    fst = item.stat()
                except OSError:
                    continue
                out.append((item.path, fst.st_mtime_ns, fst.st_size))
    return out, folders


def _folder_stamp(folders: list[Path]) -> Stamp:
    out: list[tuple[str, int, int]] = []
    for folder in map(str, folders):
        try:
            st = os.stat(folder)
        except OSError:
            out.append((folder, -1, -1))
        else:
            out.append((folder, st.st_mtime_ns, st.st_size))
    return tuple(out)


def _unchanged_folders(stamp: Stamp) -> bool:
    """The folders of a stamp still have the modification times and sizes it holds (a stat each)."""
    for folder, mtime_ns, size in stamp:
        try:
            st = os.stat(folder)
        except OSError:
            if mtime_ns != -1:
                return False
            continue
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            return False
    return True


class CachedEntries(Mapping[str, "Entry"]):
    """Entries by id, read from the index cache's per-entry pickles when first asked for: a diagnosis looks up the
    few it matched, and unpickling all 500 validated entries was a sixth of a cold `rootcause diagnose`."""

    def __init__(self, blobs: dict[str, bytes], loaded: dict[str, Entry], source: Path) -> None:
        self._blobs = blobs
        self._loaded = loaded  # shared by the views of one cache (every entry, the live ones)
        self._source = source

    def __getitem__(self, entry_id: str) -> Entry:
        entry = self._loaded.get(entry_id)
        if entry is None:
            try:
                entry = pickle.loads(self._blobs[entry_id])  # our own file's bytes
            except KeyError:
                raise
            except Exception as exc:  # damaged inside, though written whole: removed, so the next run rebuilds it
                self._source.unlink(missing_ok=True)
                raise StoreError(
                    f"{self._source}: the index cache is damaged ({entry_id}); removed: run again"
                ) from exc
            self._loaded[entry_id] = entry
        return entry

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)


@dataclass
class HeldCanon:
    """One canon folder list as loaded: its entries by id (withdrawn ones too), its index, its digest."""

    roots: tuple[Path, ...]
    key: str
    catalog: Mapping[str, Entry]
    index: CompiledIndex
    shipped_folders: list[Path]  # the shipped canon's folders, stat'ed at most once a second
    shipped_stamp: Stamp  # ... and their stamp
    extra_stamp: Stamp  # the extra folders and files, stat'ed on every call
    files_checked: float  # monotonic time of the last full stamp of the shipped canon's files
    files_stamp: Stamp

    @property
    def entries(self) -> list[Entry]:
        """Every entry, withdrawn ones too, in id order."""
        return list(self.catalog.values())


_held: dict[tuple[str, ...], HeldCanon] = {}  # by ROOTCAUSE_CANON and the extra folders
_held_lock = threading.Lock()
# the most recently used held canon when it has no extra folders (the API's usual call), by its name: the fast path
_last: tuple[tuple[str, ...], HeldCanon] | None = None


@functools.cache
def _shipped_root() -> Path:
    return builtin_canon_dir()


def _stamps(roots: tuple[Path, ...]) -> tuple[list[Path], Stamp, Stamp, Stamp]:
    shipped = _shipped_root()
    shipped_files: list[tuple[str, int, int]] = []
    shipped_folders: list[Path] = []
    extra: list[tuple[str, int, int]] = []
    for root in roots:
        if root == shipped:
            files, shipped_folders = _walk(root, with_files=True)
            shipped_files.extend(files)
        else:
            extra.extend(_walk(root, with_files=True)[0])
    return shipped_folders, _folder_stamp(shipped_folders), tuple(extra), tuple(shipped_files)


def _unchanged(held: HeldCanon, now: float) -> bool:
    """The cheap check: the extra folders and their files each call; the shipped canon's folders and files once a
    second (seven stats a call were a tenth of a held diagnosis)."""
    if held.extra_stamp:
        shipped = _shipped_root()
        extra = tuple(s for root in held.roots if root != shipped for s in _walk(root, with_files=True)[0])
        if extra != held.extra_stamp:
            return False
    if now - held.files_checked >= FILE_CHECK_SECONDS:
        if not _unchanged_folders(held.shipped_stamp):
            return False
        shipped_files = _stamps(held.roots)[3]
        if shipped_files != held.files_stamp:
            return False
        held.files_checked = now
    return True


def _from_cache(payload: dict[str, Any], lazy: bool, source: Path) -> tuple[Mapping[str, Entry], CompiledIndex]:
    blobs = {entry_id: blob for entry_id, _, blob in payload["entries"]}
    live = {entry_id: blob for entry_id, withdrawn, blob in payload["entries"] if not withdrawn}
    if lazy:
        loaded: dict[str, Entry] = {}
        catalog: Mapping[str, Entry] = CachedEntries(blobs, loaded, source)
        live_entries: Mapping[str, Entry] = CachedEntries(live, loaded, source)
    else:
        catalog = {entry_id: pickle.loads(blob) for entry_id, blob in blobs.items()}  # our own file's bytes
        live_entries = {entry_id: catalog[entry_id] for entry_id in live}
    index = CompiledIndex(
        live_entries,
        hs_blob=payload["hyperscan"],
        lexical=payload["lexical"],
        derived=payload["patterns"],
        lazy_regex=lazy,
        specific_texts=payload["specific_texts"],
        message_lines=payload["message_lines"],
        cut_prefilter=payload["cut_prefilter"],
    )
    return catalog, index


def _build(
    roots: tuple[Path, ...], extra: list[str], key: str, lazy: bool
) -> tuple[Mapping[str, Entry], CompiledIndex]:
    """Entries and index for a content digest: from the disk cache, or parsed and compiled (and cached)."""
    if os.environ.get(NO_CACHE_ENV):
        entries = load_entries(extra)
        return {e.id: e for e in entries}, CompiledIndex(entries, lazy_regex=lazy)
    path = cache_dir() / f"index-{key}-{_code_digest()}.pickle"
    if path.is_file():
        try:
            return _from_cache(pickle.loads(path.read_bytes()), lazy, path)  # our own file, written below
        except Exception:  # a stale or damaged cache is rebuilt, never trusted
            path.unlink(missing_ok=True)
    entries = load_entries(extra)
    index = CompiledIndex(entries, lazy_regex=lazy)
    payload = {
        # one pickle per entry, so that a diagnosis unpickles only those it matched (CachedEntries)
        "entries": [(e.id, e.is_withdrawn, pickle.dumps(e, pickle.HIGHEST_PROTOCOL)) for e in entries],
        "hyperscan": index.hyperscan_blob(),
        "lexical": index.lexical,
        "patterns": index.derived_patterns(),
        "specific_texts": index.specific_texts(),
        "message_lines": index.message_lines(),
        "cut_prefilter": index.cut_prefilter(),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic_bytes(path, pickle.dumps(payload))
        for old in path.parent.glob("index-*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)  # one cache per canon state
    except OSError:
        pass  # a read-only home still diagnoses, only slower
    return {e.id: e for e in entries}, index


def held_canon(extra: Iterable[str] = (), *, lazy: bool = False) -> HeldCanon:
    """The canon of the shipped, ROOTCAUSE_CANON and extra folders, held in this process. ``lazy``: a newly loaded
    canon unpickles each entry from the cache, and compiles each pattern's RE2, when first needed."""
    global _last
    extra = [os.fspath(p) for p in extra] if extra else []
    name = (env_value(CANON_ENV), *extra)
    now = time.monotonic()
    last = _last
    if last is not None and last[0] == name and now - last[1].files_checked < FILE_CHECK_SECONDS:
        # the shipped canon alone (no ROOTCAUSE_CANON or extra folder to stat on every call), checked less than a
        # second ago: _unchanged would return at once. Skipped are the lock and the least-recently-used reordering,
        # since this canon is the most recently used already
        return last[1]
    with _held_lock:
        held = _held.get(name)
        if held is not None and _unchanged(held, now):
            _held[name] = _held.pop(name)  # most recently used last
            _last = (name, held) if not held.extra_stamp else None
            return held
        roots = tuple(canon_dirs(extra))
        shipped_folders, shipped_stamp, extra_stamp, files_stamp = _stamps(roots)
        key = index_cache_key(_canon_texts(roots))
        if held is not None and held.key == key:  # touched, not changed
            catalog, index = held.catalog, held.index
        else:
            catalog, index = _build(roots, extra, key, lazy)
        held = HeldCanon(roots, key, catalog, index, shipped_folders, shipped_stamp, extra_stamp, now, files_stamp)
        _held.pop(name, None)
        _held[name] = held
        while len(_held) > HELD_CANONS:
            _held.pop(next(iter(_held)))
        _last = (name, held) if not held.extra_stamp else None
        return held


def load_index(extra: Iterable[str] = (), *, lazy: bool = False) -> CompiledIndex:
    """The compiled index for the shipped canon plus extra folders (held in the process, cached on disk).
    ``lazy`` suits a process that diagnoses once (the CLI): unpickling every entry and compiling every pattern's
    RE2 up front is a quarter of a second it would mostly not use; a held index (the API) does both when loaded."""
    return held_canon(extra, lazy=lazy).index


def forget_held() -> None:
    """Drop every held index (the next call loads again, from the disk cache when it can)."""
    global _last
    with _held_lock:
        _held.clear()
        _last = None
