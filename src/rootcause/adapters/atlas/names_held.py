"""The names index for the diagnosis's import check (core/import_names.py): the shipped file, loaded once per
process and only when a diagnosis has a `cannot import name` claim to check. `--no-atlas` or ROOTCAUSE_NO_ATLAS=1
turn it off with the located tier (both are read from the atlas's releases)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from rootcause.adapters.atlas.held import NO_ATLAS_ENV
from rootcause.adapters.atlas.names_build import load_names
from rootcause.adapters.canon_paths import env_value
from rootcause.core.atlas.names import NamesIndex

_held: list[NamesIndex] = []
_lock = threading.Lock()


def _load() -> NamesIndex:
    with _lock:
        if not _held:
            _held.append(load_names())
        return _held[0]


def names_loader(enabled: bool = True) -> Callable[[], NamesIndex] | None:
    """What `diagnose_sources(names=...)` takes: a function that loads the shipped names index when first called,
    or None when it is off."""
    if not enabled or env_value(NO_ATLAS_ENV).strip() not in ("", "0"):
        return None
    return _load
