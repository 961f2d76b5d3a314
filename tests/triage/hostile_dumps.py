"""Hostile Flight Recorder dumps and inputs, each a few hundred bytes, each once unbounded: shared by the CLI,
engine and service tests."""

from __future__ import annotations

import json
import os
import pickle
import struct
from pathlib import Path


def span_pair() -> tuple[bytes, bytes]:
    """Two ~1 KB JSON dumps whose sequence ids are 0 and 10**17: comparing every id in the span never ends."""

    def dump(rank: int, seq: int) -> bytes:
        entry = {
            "record_id": 0,
            "pg_id": 0,
            "process_group": ["0", "default_pg"],
            "collective_seq_id": seq,
            "p2p_seq_id": 0,
            "profiling_name": "nccl:all_reduce",
            "input_sizes": [[1024]],
            "output_sizes": [[1024]],
            "input_dtypes": ["Float"],
            "output_dtypes": ["Float"],
            "state": "scheduled",
            "is_p2p": False,
        }
        return json.dumps({"version": "2.10", "rank": rank, "pg_config": {}, "entries": [entry]}).encode()

    return dump(0, 0), dump(1, 10**17)


def memo_bomb() -> bytes:
    """9 bytes: LONG_BINPUT at index 0x0fffffff, which makes the C unpickler grow its memo array to 2 GB."""
    return b"\x80\x04N" + pickle.LONG_BINPUT + struct.pack("<I", 0x0FFFFFFF) + pickle.STOP


def shared_references(levels: int = 60) -> bytes:
    """About 500 bytes: input_sizes is a list of two references to a list of two references ... (2**levels leaves
    when unfolded), in an otherwise valid dump of two ranks' worth of fields."""
    x: list[object] = [1]
    for _ in range(levels):
        x = [x, x]
    entry = {"collective_seq_id": 1, "profiling_name": "nccl:all_reduce", "input_sizes": x, "state": "scheduled"}
    return pickle.dumps({"rank": 0, "entries": [entry]}, protocol=4)


def shared_tuple_keys(levels: int = 100) -> bytes:
    """A dict whose key is a tuple of two references to a tuple of two references ... (hashing it unfolds
    2**levels leaves), written opcode by opcode: building it in Python would hash it."""
    out = b"\x80\x04" + pickle.EMPTY_DICT + pickle.BININT1 + b"\x01" + pickle.TUPLE1 + pickle.MEMOIZE
    for n in range(levels):  # memo n holds the tuple of level n
        get = pickle.LONG_BINGET + struct.pack("<I", n)
        out += pickle.POP + get + get + pickle.TUPLE2 + pickle.MEMOIZE
    return out + pickle.BININT1 + b"\x01" + pickle.SETITEM + pickle.STOP


def deep_list(depth: int = 1_000_000) -> bytes:
    """A list nested `depth` deep as entries[0]['input_sizes'], written opcode by opcode (pickle.dumps recurses)."""
    key = pickle.SHORT_BINUNICODE
    head = b"\x80\x04" + pickle.EMPTY_DICT + key + b"\x04rank" + pickle.BININT1 + b"\x00"
    head += pickle.SETITEM + key + b"\x07entries" + pickle.EMPTY_LIST + pickle.EMPTY_DICT
    head += key + b"\x11collective_seq_id" + pickle.BININT1 + b"\x01" + pickle.SETITEM
    head += key + b"\x0binput_sizes"
    body = pickle.EMPTY_LIST * depth + pickle.APPEND * (depth - 1)
    return head + body + pickle.SETITEM + pickle.APPEND + pickle.SETITEM + pickle.STOP


def deep_folder(root: Path, depth: int = 1000) -> Path:
    """A folder `depth` levels deep with one rank log at the bottom (one-letter names keep the path short)."""
    root.mkdir()
    here = str(root)
    for _ in range(depth):  # one level at a time: os.makedirs and Path.mkdir(parents=True) recurse
        here += "/d"
        os.mkdir(here)
    with open(here + "/rank1.log", "w") as fh:
        fh.write("RuntimeError: boom\n")
    (root / "rank0.log").write_text("hello\n")
    return root


def remove_deep_folder(root: Path) -> None:
    """Remove what `deep_folder` made, bottom up (shutil.rmtree, and so pytest's tmp_path clean-up, recurse)."""
    here = str(root)
    while os.path.isdir(here + "/d"):
        here += "/d"
    while len(here) >= len(str(root)):
        for name in os.listdir(here):
            if name != "d":
                os.remove(f"{here}/{name}")
        os.rmdir(here)
        here = here.rsplit("/", 1)[0]
