"""Property-based fuzzing of what rootcause reads from others (hypothesis, bounded): entry
files mutated from real ones, and peer JSON (errorcanon-style and deadends.dev) mutated
subtree by subtree. Each ends in an entry or in one clear error - a ``RootcauseError`` on
one line naming the file (and, for entry files, the line and the field) - never a traceback."""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzz_support import (
    DEADENDS_SAMPLE,
    FUZZ,
    TEXT,
    check_clear_error,
    entry_files,
    mutated_entry,
    mutated_json,
)
from hypothesis import given
from hypothesis import strategies as st

from rootcause.adapters.canon_files import load_file, parse_entry
from rootcause.adapters.loading import load_entries
from rootcause.core.importers import detect_and_convert
from rootcause.core.model import Entry
from rootcause.core.render.json_view import entry_to_dict
from rootcause.errors import CanonError, RootcauseError

BASES = entry_files()
TODAY = dt.date(2026, 12, 3)
SEED_ID = "pytorch/nccl-timeout-allreduce"


def check_entry_file(entry_id: str, text: str) -> None:
    path = f"canon/{entry_id}.yaml"
    try:
        entry = parse_entry(text, path, expected_id=entry_id)
    except CanonError as exc:
        check_clear_error(exc, path)
        assert exc.line is not None and exc.line >= 1, str(exc)
        assert str(exc).startswith(f"{path}:{exc.line}: "), str(exc)
        if exc.field is not None:
            assert f": {exc.field}: " in str(exc)
        return
    assert isinstance(entry, Entry) and entry.id == entry_id


@FUZZ
@given(case=mutated_entry(BASES))
def test_mutated_entry_files(case: tuple[str, str]) -> None:
    check_entry_file(*case)


@FUZZ
@given(text=TEXT)
def test_arbitrary_entry_text(text: str) -> None:
    check_entry_file("pytorch/fuzz", text)


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 50_000,  # deep flow nesting
        "a:\n" + "".join(" " * i + "- \n" for i in range(0, 4000, 2)),  # deep block nesting
        "a: &x [1]\n" + "".join(f"b{i}: &x{i} [*x, *x, *x]\n" for i in range(3)),  # aliases
        "? [1, 2]\n: x\n",  # a key that is not hashable
        "? {a: 1}\n: x\n? {a: 1}\n: y\n",
        "id: !!python/object/apply:os.system ['true']\n",
        "\ufeffid: pytorch/fuzz\n",
        "id: pytorch/fuzz\x00\n",
        "",
        "---\n---\n",
    ],
)
def test_hostile_entry_files(text: str) -> None:
    check_entry_file("pytorch/fuzz", text)


@FUZZ
@given(data=st.binary(max_size=600))
def test_entry_file_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(data)
        try:
            load_file(path, expected_id="pytorch/fuzz")
        except CanonError as exc:
            check_clear_error(exc, str(path))


def _errorcanon_base() -> dict[str, Any]:
    seed = next(e for e in load_entries() if e.id == SEED_ID)
    return json.loads(json.dumps(entry_to_dict(seed)))


ERRORCANON = _errorcanon_base()


def check_import(data: Any) -> None:
    try:
        imported = detect_and_convert(data, "peer.json", TODAY)
    except RootcauseError as exc:
        check_clear_error(exc, "peer.json")
        return
    assert isinstance(imported.entry, Entry)
    assert all(isinstance(note, str) for note in imported.unmapped)


@FUZZ
@given(data=mutated_json(ERRORCANON))
def test_mutated_errorcanon_json(data: Any) -> None:
    check_import(data)


@FUZZ
@given(data=mutated_json(DEADENDS_SAMPLE))
def test_mutated_deadends_json(data: Any) -> None:
    check_import(data)


def test_the_unmutated_samples_import() -> None:
    assert detect_and_convert(ERRORCANON, "peer.json", TODAY).entry.id == SEED_ID
    assert detect_and_convert(DEADENDS_SAMPLE, "peer.json", TODAY).entry.id == "python/modulenotfounderror-py311-linux"


# -- Flight Recorder dumps ------------------------------------------------------------------------
FIXTURES = Path(__file__).parent / "fixtures"
REAL_PICKLE = (FIXTURES / "triage-real" / "desync-op" / "detail-fr" / "fr" / "fr_trace_rank_1").read_bytes()
NCCL_JSON = next((FIXTURES / "triage").glob("nccl-fr-*/dumps/*rank_0.json")).read_bytes()


def check_dump(data: bytes, name: str) -> None:
    from rootcause.core.triage.flight import parse_dump

    try:
        parse_dump(data, name)
    except RootcauseError as exc:
        check_clear_error(exc, name)


@FUZZ
@given(
    cut=st.integers(min_value=0, max_value=len(REAL_PICKLE)),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=8),
)
def test_mutated_real_pickle_dumps(cut: int, flips: list[tuple[int, int]]) -> None:
    data = bytearray(REAL_PICKLE[:cut] if cut else REAL_PICKLE)
    for at, byte in flips:
        if data:
            data[at % len(data)] = byte
    check_dump(bytes(data), "fr_trace_rank_1")


@FUZZ
@given(data=mutated_json(json.loads(NCCL_JSON)))
def test_mutated_nccl_json_dumps(data: Any) -> None:
    check_dump(json.dumps(data).encode(), "host_fr_trace_rank_0.json")


@FUZZ
@given(data=st.binary(max_size=600))
def test_arbitrary_bytes_as_a_dump(data: bytes) -> None:
    check_dump(b"\x80" + data, "fr_trace_rank_2")
    check_dump(data, "fr_trace_rank_3")


def test_the_unmutated_dumps_parse() -> None:
    from rootcause.core.triage.flight import parse_dump

    assert parse_dump(REAL_PICKLE, "fr_trace_rank_1").rank == 1
    assert parse_dump(NCCL_JSON, "host_fr_trace_rank_0.json").rank == 0
