"""The compiled index, serialised once on the driver and loaded once per worker process.

The payload holds the validated entries, the serialised hyperscan database and the lexical index,
exactly what the on-disk index cache holds: a worker rebuilds only the RE2 objects (milliseconds)
and never compiles the hyperscan database. Engines broadcast the bytes (Spark broadcast,
``ray.put``, Dask ``scatter``); workers key their copy by its digest.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from dataclasses import dataclass

from rootcause.core.matching.index import CompiledIndex


@dataclass(frozen=True)
class IndexPayload:
    digest: str
    data: bytes


def make_payload(index: CompiledIndex) -> IndexPayload:
    data = pickle.dumps(
        {"entries": list(index.entries.values()), "hyperscan": index.hyperscan_blob(), "lexical": index.lexical},
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    return IndexPayload(hashlib.sha256(data).hexdigest()[:24], data)


_LOADED: dict[str, CompiledIndex] = {}
_LOCK = threading.Lock()
LOADS = {"count": 0}  # how many times this process built an index from a payload (tests read it)


def index_from_payload(payload: IndexPayload) -> CompiledIndex:
    """This process's index for the payload, built on first use only."""
    index = _LOADED.get(payload.digest)
    if index is not None:
        return index
    with _LOCK:
        index = _LOADED.get(payload.digest)
        if index is None:
            state = pickle.loads(payload.data)  # our own bytes, made by make_payload
            index = CompiledIndex(state["entries"], hs_blob=state["hyperscan"], lexical=state["lexical"])
            _LOADED.clear()  # one canon state per process
            _LOADED[payload.digest] = index
            LOADS["count"] += 1
    return index
