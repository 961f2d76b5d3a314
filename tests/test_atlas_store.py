"""The atlas's SQLite store: what is written reads back the same, plain or xz-compressed."""

from __future__ import annotations

import lzma
import sqlite3
from pathlib import Path

import pytest

from rootcause.adapters.atlas.store import load_manifest, load_templates, write_atlas
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind
from rootcause.errors import NotFoundError, StoreError

TEMPLATE = Template(
    package="peft",
    module="peft/tuners/lora/model.py",
    function="LoraModel._create_new_module",
    line=123,
    exception="ValueError",
    kind=TemplateKind.RAISE,
    message="Target module {target} is not supported.",
    pattern=r"Target module (?P<p0>.{0,200}?)(?: is not supported\.)?",
    literal=" is not supported.",
    releases=(ReleaseInterval(first="0.3.0", last="0.5.0"), ReleaseInterval(first="0.7.1", last="0.7.1")),
    source_url="https://github.com/huggingface/peft/blob/v0.7.1/src/peft/tuners/lora/model.py#L123",
)
MANIFEST = AtlasManifest(packages={"peft": ["0.3.0", "0.5.0", "0.7.1"]}, digests={"peft==0.3.0": "ab" * 32})


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "atlas.sqlite"
    assert write_atlas(path, MANIFEST, [TEMPLATE]) == 1
    assert load_templates(path) == [TEMPLATE]
    assert load_manifest(path) == MANIFEST
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(template)")]
    assert columns[-2:] == ["releases_json", "source_url"]


def _packed_atlas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An xz-compressed one-template atlas, with the user cache under tmp_path."""
    monkeypatch.delenv("ROOTCAUSE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    plain = tmp_path / "plain.sqlite"
    write_atlas(plain, MANIFEST, [TEMPLATE])
    packed = tmp_path / "atlas.sqlite.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    return packed


def test_xz_atlas_is_decompressed_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packed = _packed_atlas(tmp_path, monkeypatch)
    assert load_templates(packed) == [TEMPLATE]
    assert len(list((tmp_path / "cache" / "rootcause").glob("atlas-*.sqlite"))) == 1
    written = tmp_path / "written.sqlite.xz"
    write_atlas(written, MANIFEST, [TEMPLATE])
    assert lzma.decompress(written.read_bytes())[:16] == b"SQLite format 3\x00"
    assert load_manifest(written) == MANIFEST and not list(tmp_path.glob("*.plain"))


def test_missing_and_foreign_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        load_templates(tmp_path / "nope.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not an atlas"):
        load_manifest(other)


def test_threads_that_first_need_a_compressed_atlas_decompress_it_once(tmp_path, monkeypatch) -> None:
    """The service's threads ask for the shipped atlas at once: none may see another's half-written file."""
    import lzma
    import threading

    from rootcause.adapters.atlas import store

    plain = tmp_path / "atlas.sqlite"
    plain.write_bytes(b"SQLite format 3\0" + bytes(1 << 20))
    packed = tmp_path / "atlas.sqlite.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    monkeypatch.setenv("ROOTCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    got: list[object] = []

    def ask() -> None:
        try:
            got.append(store._decompressed(packed))
        except Exception as exc:
            got.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len({str(g) for g in got}) == 1 and all(isinstance(g, type(got[0])) for g in got), got
    assert got[0].read_bytes() == plain.read_bytes()  # type: ignore[union-attr]
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [got[0].name]  # type: ignore[union-attr]


def test_shipped_atlas_lookup_is_held_but_a_removed_copy_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped atlas's path is looked up at most once a second; a decompressed copy removed meanwhile (a
    cleaned cache) is decompressed again on the next call, not handed out stale."""
    from rootcause.adapters.atlas import store

    packed = _packed_atlas(tmp_path, monkeypatch)
    monkeypatch.setattr(store, "SHIPPED", tmp_path / "absent.sqlite")
    monkeypatch.setattr(store, "SHIPPED_XZ", packed)
    monkeypatch.setattr(store, "_default_seen", None)
    first = store.default_atlas_path()
    assert first is not None and store.default_atlas_path() == first
    first.unlink()
    again = store.default_atlas_path()
    assert again is not None and again.is_file() and load_templates(again) == [TEMPLATE]
    monkeypatch.setattr(store, "SHIPPED_XZ", tmp_path / "gone.sqlite.xz")
    monkeypatch.setattr(store, "_default_seen", None)
    assert store.default_atlas_path() is None
