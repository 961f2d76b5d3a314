"""The compiled index, serialised once on the driver and loaded once per worker process.

The payload holds what the on-disk index cache holds (adapters/loading.py): each entry pickled on its own, the
serialised hyperscan database, the lexical index, the derived patterns and the specific texts. A worker never
compiles the hyperscan database nor derives the patterns again; it unpickles an entry only when a log it diagnoses
matches it, and compiles a pattern's RE2 only when first confirmed (as the CLI does), since a worker of a healthy
fleet diagnoses few logs. Engines broadcast the bytes (Spark broadcast, ``ray.put``, Dask ``scatter``); workers
key their copy by its digest.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from dataclasses import dataclass
from pathlib import Path

from rootcause.core.matching.index import CompiledIndex


@dataclass(frozen=True)
class IndexPayload:
    digest: str
    data: bytes


def make_payload(index: CompiledIndex) -> IndexPayload:
    data = pickle.dumps(
        {
            "entries": [(e.id, pickle.dumps(e, pickle.HIGHEST_PROTOCOL)) for e in index.entries.values()],
            "hyperscan": index.hyperscan_blob(),
            "lexical": index.lexical,
            "patterns": index.derived_patterns(),
            "specific_texts": index.specific_texts(),
            "message_lines": index.message_lines(),
            "cut_prefilter": index.cut_prefilter(),
        },
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    return IndexPayload(hashlib.sha256(data).hexdigest()[:24], data)


def _build(payload: IndexPayload) -> CompiledIndex:
    from rootcause.adapters.loading import CachedEntries

    state = pickle.loads(payload.data)  # our own bytes, made by make_payload
    blobs = dict(state["entries"])
    return CompiledIndex(
        CachedEntries(blobs, {}, Path(f"fleet-payload-{payload.digest}")),  # no file: a damaged blob only says so
        hs_blob=state["hyperscan"],
        lexical=state["lexical"],
        derived=state["patterns"],
        lazy_regex=True,
        specific_texts=state["specific_texts"],
        message_lines=state["message_lines"],
        cut_prefilter=state["cut_prefilter"],
    )


_LOADED: dict[str, CompiledIndex] = {}
_LOCK = threading.Lock()
LOADS = {"count": 0}  # how many times this process built an index from a payload (tests read it)


def holds_index(digest: str) -> bool:
    """Whether this process already holds the index of the payload with this digest."""
    return digest in _LOADED


def index_from_payload(payload: IndexPayload) -> CompiledIndex:
    """This process's index for the payload, built on first use only."""
    index = _LOADED.get(payload.digest)
    if index is not None:
        return index
    with _LOCK:
        index = _LOADED.get(payload.digest)
        if index is None:
            index = _build(payload)
            _LOADED.clear()  # one canon state per process
            _LOADED[payload.digest] = index
            LOADS["count"] += 1
    return index
