"""The atlas for the located tier: found, loaded once per process, cached on disk.

Which atlas: `--atlas PATH` (the CLI), else `ROOTCAUSE_ATLAS`, else the one shipped with the package (when it
is there). `--no-atlas` or `ROOTCAUSE_NO_ATLAS=1` turns the tier off. The atlas is loaded lazily: a diagnosis
asks for it only when a line no entry claims needs locating. The compiled index (the rows and the serialised
hyperscan database) is cached next to the canon's index cache (adapters/loading.py), in a folder keyed by the
atlas file's path, size and modification time and this code's layout: the rows' blob is mapped from disk, not
read, so that a cached atlas loads in milliseconds whatever its size. A damaged cache is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import pickle
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from rootcause.adapters.atlas.store import default_atlas_path, load_templates
from rootcause.adapters.canon_paths import env_value
from rootcause.adapters.loading import NO_CACHE_ENV, cache_dir
from rootcause.core.atlas.locate import LAYOUT, AtlasIndex
from rootcause.errors import UsageError

ATLAS_ENV = "ROOTCAUSE_ATLAS"
NO_ATLAS_ENV = "ROOTCAUSE_NO_ATLAS"

_held: dict[str, tuple[tuple[int, int], AtlasIndex]] = {}  # by resolved path: (size, mtime_ns), index
_lock = threading.Lock()


def atlas_path(explicit: str | None = None) -> Path | None:
    """The atlas file to use, or None when the tier is off or no atlas is there. A path the user named
    (`--atlas`, ROOTCAUSE_ATLAS) that is not a file is a usage error."""
    if env_value(NO_ATLAS_ENV).strip() not in ("", "0"):
        return None
    named = explicit or env_value(ATLAS_ENV).strip() or None
    if named is not None:
        path = Path(named).expanduser()
        if not path.is_file():
            source = "--atlas" if explicit else ATLAS_ENV
            raise UsageError(f"{source}: {named}: no atlas file there")
        return path
    return default_atlas_path()


def _cache_key(path: Path, stamp: tuple[int, int]) -> str:
    from rootcause import __version__

    text = "\0".join([LAYOUT, __version__, str(path), str(stamp[0]), str(stamp[1])])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


BLOBS = ("rows", "literals")  # kept as files of their own, mapped (the hyperscan shards are in index.pickle)


def _mapped(path: Path) -> mmap.mmap | bytes:
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return b""
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def _read_cache(folder: Path) -> AtlasIndex:
    """The cached index: its arrays unpickled, the hyperscan database read, the rows and literals mapped from
    disk (a row is read only where a line needs it)."""
    payload = pickle.loads((folder / "index.pickle").read_bytes())  # our own file, written below
    for name in BLOBS:
        path = folder / f"{name}.bin"
        if not path.is_file():
            payload[name] = None
        else:
            payload[name] = _mapped(path)
    return AtlasIndex.from_payload(payload)


def _write_cache(folder: Path, index: AtlasIndex) -> None:
    payload = index.payload()
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name in BLOBS:
        blob = payload.pop(name)
        if blob is not None:
            (tmp / f"{name}.bin").write_bytes(blob)
    (tmp / "index.pickle").write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    try:
        tmp.rename(folder)  # whole or absent: a reader never sees half a cache
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process wrote it first
    for old in folder.parent.glob("atlas-index-*"):
        if old != folder and old.is_dir() and ".tmp" not in old.name:
            shutil.rmtree(old, ignore_errors=True)  # one cache per atlas state


def _build(path: Path, stamp: tuple[int, int], notice: Callable[[str], object] | None) -> AtlasIndex:
    if os.environ.get(NO_CACHE_ENV):
        return AtlasIndex.from_templates(load_templates(path))
    folder = cache_dir() / f"atlas-index-{_cache_key(path, stamp)}"
    if folder.is_dir():
        try:
            return _read_cache(folder)
        except Exception:  # a stale or damaged cache is rebuilt, never trusted
            shutil.rmtree(folder, ignore_errors=True)
    if notice is not None:
        notice(f"indexing the message atlas {path.name} (once: later runs load it from the cache)")
    index = AtlasIndex.from_templates(load_templates(path))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        _write_cache(folder, index)
    except OSError:
        pass  # a read-only home still locates, only slower
    return index


def load_atlas(path: Path, notice: Callable[[str], object] | None = None) -> AtlasIndex:
    """The index of an atlas file, held in this process until the file changes."""
    resolved = path.resolve()
    st = resolved.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    with _lock:
        held = _held.get(str(resolved))
        if held is not None and held[0] == stamp:
            return held[1]
        index = _build(resolved, stamp, notice)
        _held[str(resolved)] = (stamp, index)
        return index


def atlas_loader(
    explicit: str | None = None, enabled: bool = True, notice: Callable[[str], object] | None = None
) -> Callable[[], AtlasIndex | None] | None:
    """What `diagnose_sources(atlas=...)` takes: a function that loads the atlas when first called, or None when
    the tier is off. A named path (``--atlas``, ROOTCAUSE_ATLAS) is checked now (a bad one fails before the scan);
    the shipped atlas is looked up when the function is called, which returns None when none ships. ``notice`` is
    told when the index must be built (no cache yet: tens of seconds for a large atlas)."""
    if not enabled:
        return None
    if not explicit and env_value(NO_ATLAS_ENV).strip() in ("", "0") and not env_value(ATLAS_ENV).strip():
        # the shipped atlas, looked up only when a line needs locating: the lookup's stat was a twelfth of a held
        # `rootcause.diagnose(text)` whose caches other work had left cold, and most diagnoses never locate a line
        return _load_shipped if notice is None else lambda: _load_shipped(notice)
    path = atlas_path(explicit)
    if path is None:
        return None
    return lambda: load_atlas(path, notice)


def _load_shipped(notice: Callable[[str], object] | None = None) -> AtlasIndex | None:
    path = default_atlas_path()
    return None if path is None else load_atlas(path, notice)


def forget_atlas() -> None:
    with _lock:
        _held.clear()
