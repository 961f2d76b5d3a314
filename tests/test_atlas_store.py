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


def test_xz_atlas_is_decompressed_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROOTCAUSE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    plain = tmp_path / "atlas.sqlite"
    write_atlas(plain, MANIFEST, [TEMPLATE])
    packed = tmp_path / "atlas.sqlite.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
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
