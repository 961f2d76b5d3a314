"""Load the canon and its compiled index, cached on disk by the canon's content.

A cold ``rootcause diagnose`` reads the entry files' bytes (cheap), hashes them, and
when the hash is known loads the validated entries and the serialised hyperscan
database from the cache instead of parsing YAML and compiling patterns again.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable
from pathlib import Path

from rootcause.adapters.canon_files import (
    canon_dirs,
    iter_entry_files,
    load_canon,
    write_atomic_bytes,
)
from rootcause.core.matching.index import CompiledIndex, index_cache_key
from rootcause.core.model import Entry

CACHE_ENV = "ROOTCAUSE_CACHE_DIR"
NO_CACHE_ENV = "ROOTCAUSE_NO_CACHE"


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rootcause"
    )
    return Path(base)


def _canon_texts(extra: Iterable[str]) -> list[tuple[str, str]]:
    texts: list[tuple[str, str]] = []
    for n, root in enumerate(canon_dirs(extra)):
        if not root.is_dir():
            continue
        for file, entry_id in iter_entry_files(root):
            texts.append((f"{n}:{entry_id}", file.read_text(encoding="utf-8", errors="replace")))
    return texts


def load_entries(extra: Iterable[str] = ()) -> list[Entry]:
    return [loaded.entry for loaded in load_canon(list(extra))]


def load_index(extra: Iterable[str] = ()) -> CompiledIndex:
    """The compiled index for the shipped canon plus extra folders (cached)."""
    extra = list(extra)
    if os.environ.get(NO_CACHE_ENV):
        return CompiledIndex(load_entries(extra))
    key = index_cache_key(_canon_texts(extra))
    path = cache_dir() / f"index-{key}.pickle"
    if path.is_file():
        try:
            payload = pickle.loads(path.read_bytes())  # our own file, written below
            return CompiledIndex(payload["entries"], hs_blob=payload["hyperscan"], lexical=payload["lexical"])
        except Exception:  # a stale or damaged cache is rebuilt, never trusted
            path.unlink(missing_ok=True)
    entries = load_entries(extra)
    index = CompiledIndex(entries)
    payload = {"entries": entries, "hyperscan": index.hyperscan_blob(), "lexical": index.lexical}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic_bytes(path, pickle.dumps(payload))
        for old in path.parent.glob("index-*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)  # one cache per canon state
    except OSError:
        pass  # a read-only home still diagnoses, only slower
    return index
