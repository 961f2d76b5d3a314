"""One unnamed input may hold one rank only: `diagnose` feeds the triage from the first sign of a second rank
(a handled line framed with another rank), giving it the input read so far again; a single-rank log never
pays for the triage. An input longer than the replay window switches the triage on there, so it is read once."""

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
from rootcause.core.matching import scan
from rootcause.core.matching.index import CompiledIndex
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


def test_an_input_past_the_replay_window_feeds_the_triage_from_there_in_one_pass(
    index: CompiledIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "REPLAY_LIMIT", 64)  # the window closes after the first lines, before a 2nd rank
    report = _one_pass(COMBINED, index, 256)
    expected = triage_paths(COMBINED).model_dump()
    assert report["conclusion"] == expected["conclusion"] and report["conclusion"]["guilty_ranks"] == [2]
    assert report["timeline"] == expected["timeline"]  # the held start was given to it: nothing missed
    monkeypatch.setattr(inputs, "CHUNK", 256)  # the CLI reads in small chunks too
    result = CliRunner().invoke(app, ["diagnose", "-f", "json", str(COMBINED)])
    assert result.exit_code == 0, result.output
    conclusion = json.loads(result.stdout)["triage"]["conclusion"]
    assert conclusion["guilty_ranks"] == expected["conclusion"]["guilty_ranks"] == [2]
    assert conclusion["named_ranks"] == expected["conclusion"]["named_ranks"]
    assert conclusion["finding_ids"] == ["pytorch/gloo-timeout"]
