"""`diagnose` reads a multi-rank input once: the main scanner's hyperscan database holds triage's keywords, and the
lines that hold one go to the triage from the same pass. The report is the one `rootcause triage` gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from triage_support import NCCL_FIXTURES, TESTS, file_chunks, triage_paths

from rootcause.adapters.inputs import expand_paths, rank_from_path
from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching import index as index_module
from rootcause.core.matching.index import CompiledIndex, index_cache_key
from rootcause.core.triage.engine import Triage

FOLDERS = [
    NCCL_FIXTURES / "nccl-desync-32" / "logs",
    NCCL_FIXTURES / "nccl-crash-first-8" / "logs",
    NCCL_FIXTURES / "nccl-ib-failure-64" / "logs",
    TESTS / "fixtures" / "triage-real" / "desync-op" / "plain",
    TESTS / "fixtures" / "triage-real" / "two-node" / "detail",
    TESTS / "fixtures" / "real" / "ranks" / "dist_gloo_timeout",
]


@pytest.fixture(scope="module")
def index() -> CompiledIndex:
    return load_index([])


def _one_pass(folder: Path, index: CompiledIndex, chunk: int) -> dict[str, object]:
    t = Triage()
    files = expand_paths([str(folder)])
    sources = [SourceInput(str(p), file_chunks(p, chunk), rank_from_path(p)) for p in files]
    diagnose_sources(sources, index, triage=t)
    return t.report().model_dump()


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.parent.name + "/" + p.name)
def test_one_pass_gives_the_triage_report(folder: Path, index: CompiledIndex) -> None:
    assert index.hs_db is not None, "hyperscan is a dependency on x86-64"
    assert _one_pass(folder, index, 1 << 16) == triage_paths(folder).model_dump()


def test_one_pass_across_tiny_chunks(index: CompiledIndex) -> None:
    folder = NCCL_FIXTURES / "nccl-crash-first-8" / "logs"
    assert _one_pass(folder, index, 7) == triage_paths(folder).model_dump()


def test_the_index_cache_key_follows_the_database_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [("a.yaml", "id: x\n")]
    before = index_cache_key(texts)
    monkeypatch.setattr(index_module, "TRIAGE_KEYWORDS", (*index_module.TRIAGE_KEYWORDS, b"a new keyword"))
    assert index_cache_key(texts) != before
