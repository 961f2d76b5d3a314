"""One unnamed input may hold one rank only: `diagnose`'s triage feed holds the lines that hold its keywords
unread until the first sign of a second rank (a handled or held line framed with another rank), then reads them
and everything after; a single-rank log, however long, never pays for the triage's reading of its lines. Held
lines past the feed's limit make it read them there. The input is read once either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from triage_support import TESTS, file_chunks, triage_paths

from rootcause.adapters import inputs
from rootcause.adapters.cli.main import app
from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.matching.scan import SourceScanner
from rootcause.core.triage import engine
from rootcause.core.triage.engine import Triage

COMBINED = TESTS / "fixtures" / "triage-real" / "straggler" / "plain" / "console.log"  # [defaultN]: prefixes
ONE_RANK = TESTS / "fixtures" / "real" / "ranks" / "dist_gloo_timeout" / "none_ut2u32zp" / "attempt_0" / "0"


@pytest.fixture(scope="module")
def index() -> CompiledIndex:
    return load_index([])


def _one_pass(path: Path, index: CompiledIndex, chunk: int) -> dict[str, object]:
    t = Triage()
    diagnose_sources([SourceInput(str(path), file_chunks(path, chunk))], index, triage=t)
    return t.report().model_dump()


@pytest.mark.parametrize("chunk", [7, 1 << 16])
def test_a_combined_log_is_replayed_from_its_start(index: CompiledIndex, chunk: int) -> None:
    report = _one_pass(COMBINED, index, chunk)
    expected = triage_paths(COMBINED).model_dump()
    assert report["conclusion"] == expected["conclusion"] and report["conclusion"]["guilty_ranks"] == [2]
    assert report["timeline"] == expected["timeline"]
    assert report["evidence"] == expected["evidence"]


def test_a_single_rank_log_never_reaches_the_triage(index: CompiledIndex) -> None:
    log = ONE_RANK / "stderr.log"
    alone = triage_paths(log).model_dump()
    assert alone["timeline"], "the log holds lines the triage reads"
    report = _one_pass(log, index, 1 << 16)
    assert report["timeline"] == [] and report["inputs"][0]["bytes"] == 0


def test_a_long_single_rank_log_is_held_not_read(index: CompiledIndex) -> None:
    """No size of input switches the triage on: 64 copies of a real rank's log hold one rank only, so the feed
    keeps only its keyword lines with their context (at most HOLD_LIMIT bytes) and the triage never reads them."""
    data = (ONE_RANK / "stderr.log").read_bytes()
    t = Triage()
    feed = t.open("one-rank.log")
    scanner = SourceScanner(index, tap=feed, defer_tap=True)
    for _ in range(64):
        scanner.feed(data)
    scanner.finish()
    assert feed.holding and 0 < feed.held_bytes <= engine.HOLD_LIMIT
    feed.close()
    assert t.report().model_dump()["timeline"] == []


def test_a_second_rank_seen_only_on_keyword_lines_starts_the_triage(index: CompiledIndex) -> None:
    lines = [
        f"[rank{r}]: node-1:4242:4242 [{r}] NCCL INFO comm 0x5581 rank {r} nranks 2 cudaDev {r} nvmlDev {r} "
        f"busId {r}000 commId 0x77 localRank {r} localRanks 2 localRank {r} - Init COMPLETE"
        for r in (0, 1)
    ]
    t = Triage()
    feed = t.open("two.log")
    scanner = SourceScanner(index, tap=feed, defer_tap=True)
    scanner.feed(("\n".join(lines) + "\n").encode())
    scanner.finish()
    assert not feed.holding, "the second rank's prefix on a held line released the feed"
    feed.close()
    assert t.report().model_dump()["inputs"][0]["lines"] == 2


def test_held_lines_past_the_limit_are_read_from_there_in_one_pass(
    index: CompiledIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "HOLD_LIMIT", 64)  # the feed lets go after its first line, before a 2nd rank
    report = _one_pass(COMBINED, index, 256)
    expected = triage_paths(COMBINED).model_dump()
    assert report["conclusion"] == expected["conclusion"] and report["conclusion"]["guilty_ranks"] == [2]
    assert report["timeline"] == expected["timeline"]  # the held lines were read first: nothing missed
    monkeypatch.setattr(inputs, "CHUNK", 256)  # the CLI reads in small chunks too
    result = CliRunner().invoke(app, ["diagnose", "-f", "json", str(COMBINED)])
    assert result.exit_code == 0, result.output
    conclusion = json.loads(result.stdout)["triage"]["conclusion"]
    assert conclusion["guilty_ranks"] == expected["conclusion"]["guilty_ranks"] == [2]
    assert conclusion["named_ranks"] == expected["conclusion"]["named_ranks"]
    assert conclusion["finding_ids"] == ["pytorch/gloo-timeout"]
