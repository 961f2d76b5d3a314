"""The Python API holds the loaded index in the process and reloads only when a canon folder changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rootcause
from rootcause.adapters.canon_files import builtin_canon_dir
from rootcause.adapters.loading import CachedEntries, forget_held, held_canon, load_index
from rootcause.core.diagnosis import diagnose_text

ENTRY_ID = "pytorch/nccl-communicator-aborted"
PROBE = "NCCL communicator was aborted on rank 3."
OTHER = "Zebra herd stampeded through rank 3"


def _entry_text() -> str:
    return (builtin_canon_dir() / f"{ENTRY_ID}.yaml").read_text(encoding="utf-8")


def _ids(text: str, canon: list[str]) -> list[str]:
    return [f.id for f in rootcause.diagnose(text, canon=canon).findings]


def test_second_call_reuses_the_loaded_index() -> None:
    first = rootcause.diagnose(PROBE).findings
    held = load_index()
    assert rootcause.diagnose(PROBE).findings[0].id == first[0].id == ENTRY_ID
    assert load_index() is held  # not loaded, unpickled or compiled again
    assert held_canon().index is held


def test_changes_to_a_canon_folder_are_picked_up_and_a_touch_reloads_nothing(tmp_path: Path) -> None:
    canon = [str(tmp_path)]
    (tmp_path / "pytorch").mkdir()
    empty = load_index(canon)
    assert load_index(canon) is empty
    assert ENTRY_ID not in _ids(OTHER, canon)
    # a new file: the folder's stamp changes
    path = tmp_path / f"{ENTRY_ID}.yaml"
    path.write_text(_entry_text().replace("value: 0.5", "value: 0.25", 1), encoding="utf-8")
    added = load_index(canon)
    assert added is not empty
    assert added.entries[ENTRY_ID].fix_rate.value == 0.25
    # the same file rewritten in place (the folder's stamp stays): its pattern now says zebras
    text = _entry_text().replace(
        r"- regex: NCCL communicator was aborted on rank (?P<rank>\d+)\.?\s*$",
        r"- regex: Zebra herd stampeded through rank (?P<rank>\d+)",
        1,
    )
    assert text != _entry_text()
    path.write_text(text, encoding="utf-8")
    edited = load_index(canon)
    assert edited is not added
    assert ENTRY_ID in _ids(OTHER, canon)
    # touched, same content: the digest is the same, so the held index stays
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns + 10**9, stat.st_mtime_ns + 10**9))
    assert load_index(canon) is edited


def test_an_index_from_the_disk_cache_with_lazy_patterns_matches_as_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI's path: patterns (the derived heads too) read back from the cache, each RE2 compiled on first use."""
    monkeypatch.setenv("ROOTCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    canon = [str(tmp_path / "extra")]
    (tmp_path / "extra").mkdir()
    forget_held()
    built = load_index(canon)  # parsed, compiled, written to the cache
    built_entries = held_canon(canon).entries
    assert list((tmp_path / "cache").glob("index-*.pickle"))
    forget_held()
    cached = load_index(canon, lazy=True)
    assert cached is not built
    assert cached.patterns == built.patterns and cached.n_scanned == built.n_scanned
    assert any(p.truncated for p in cached.patterns)
    assert all(rx is None for rx in cached._rx)  # nothing compiled before it is needed
    assert isinstance(cached.entries, CachedEntries) and not cached.entries._loaded  # nor unpickled
    assert list(cached.entries) == list(built.entries)
    texts = [OTHER]
    for entry in list(built.entries.values())[::8]:  # whole examples, and cut short (the derived heads' work)
        text = entry.examples[0].text
        texts += [text, text[: len(text) * 2 // 3]]
    for text in texts:
        got = [(f.id, f.matched_by, f.score) for f in diagnose_text(text, cached).findings]
        assert got == [(f.id, f.matched_by, f.score) for f in diagnose_text(text, built).findings], text
    assert any(rx is not None for rx in cached._rx)
    assert any(rx is not None for p, rx in zip(cached.patterns, cached._rx, strict=True) if p.truncated)
    assert 0 < len(cached.entries._loaded) < len(cached.entries)  # the matched ones only
    assert held_canon(canon).entries == built_entries  # withdrawn ones too, in the same order
    forget_held()


def test_a_cached_entry_damaged_inside_is_a_one_line_error_and_the_cache_goes(tmp_path: Path) -> None:
    """The cache file is written whole, but its per-entry bytes are unpickled only when an entry is matched: bytes
    damaged inside surface then, as a store error naming the cache (removed, so the next run rebuilds it)."""
    from rootcause.errors import StoreError

    source = tmp_path / "index-x.pickle"
    source.write_bytes(b"whole")
    entries = CachedEntries({"pytorch/x": b"\x80\x05not a pickle"}, {}, source)
    with pytest.raises(StoreError, match="index cache is damaged"):
        entries["pytorch/x"]
    assert not source.exists()
    with pytest.raises(KeyError):
        entries["pytorch/absent"]
