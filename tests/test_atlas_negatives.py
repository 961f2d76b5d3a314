"""Nothing from outside the stack is located: every negative of the corpus, and every real error of another
stack, gets an empty `located`, with the fixture atlas and with the shipped atlas where it is there."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from atlas_support import fixture_index

from rootcause.adapters.atlas.held import load_atlas
from rootcause.adapters.atlas.store import default_atlas_path
from rootcause.adapters.loading import load_index
from rootcause.core.atlas.locate import AtlasIndex
from rootcause.core.diagnosis import diagnose_text

ROOT = Path(__file__).parent.parent
NEGATIVES = [
    (case["id"], case["paste"])
    for path in sorted((ROOT / "corpus" / "negatives").glob("*.yaml"))
    for case in yaml.safe_load(path.read_text(encoding="utf-8"))
]
UNRELATED = [
    (f"unrelated-{n:02d}-{item['stack']}", item["text"])
    for n, item in enumerate(
        yaml.safe_load((Path(__file__).parent / "data" / "unrelated_errors_sourced.yaml").read_text(encoding="utf-8"))
    )
]


@pytest.fixture(scope="module")
def index():
    return load_index()


@pytest.fixture(scope="module")
def fixture_atlas(tmp_path_factory: pytest.TempPathFactory) -> AtlasIndex:
    return fixture_index(tmp_path_factory.mktemp("atlas"))


def test_the_negatives_are_many() -> None:
    assert len(NEGATIVES) >= 100 and len(UNRELATED) >= 60


def _located(index, atlas: AtlasIndex, cases: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    out = []
    for case_id, paste in cases:
        for item in diagnose_text(paste, index, atlas=atlas).located:
            out.append((case_id, item.package, item.text[:120]))
    return out


def test_no_negative_is_located_with_the_fixture(index, fixture_atlas: AtlasIndex) -> None:
    assert _located(index, fixture_atlas, NEGATIVES + UNRELATED) == []


@pytest.mark.skipif(default_atlas_path() is None, reason="no atlas shipped in this tree")
def test_no_negative_is_located_with_the_shipped_atlas(index) -> None:
    shipped = default_atlas_path()
    assert shipped is not None
    atlas = load_atlas(shipped)
    assert _located(index, atlas, NEGATIVES + UNRELATED) == []
