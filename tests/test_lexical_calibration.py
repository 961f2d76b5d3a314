"""The lexical stage's threshold is calibrated on the canon (leave-one-out) and on unrelated errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootcause.adapters.loading import load_entries, load_index
from rootcause.core.diagnosis import LEXICAL_THRESHOLD, diagnose_text
from rootcause.core.matching.calibration import _precision_recall, calibrate

UNRELATED = [
    line
    for line in (Path(__file__).parent / "data" / "unrelated_errors.txt").read_text(encoding="utf-8").splitlines()
    if line
]


@pytest.fixture(scope="module")
def calibration():
    return calibrate(load_entries(), UNRELATED)


def test_operating_threshold_is_at_least_as_strict_as_calibrated(calibration) -> None:
    assert len(calibration.trials) >= 300, "leave-one-out needs the real canon's examples"
    assert calibration.threshold <= LEXICAL_THRESHOLD


def test_held_out_examples_precision_and_recall(calibration) -> None:
    precision, recall = _precision_recall(calibration.trials, LEXICAL_THRESHOLD)
    assert precision >= 0.9
    assert recall >= 0.75


def test_unrelated_errors_stay_below_the_threshold(calibration) -> None:
    assert max(calibration.negatives) < LEXICAL_THRESHOLD


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_error_yields_no_finding(text: str) -> None:
    d = diagnose_text(text, _index())
    assert [f.id for f in d.findings if not f.generic] == []


_cached = []


def _index():
    if not _cached:
        _cached.append(load_index())
    return _cached[0]


def test_reworded_message_is_found_lexically() -> None:
    """Wording drift: the 1.x form of the watchdog line with words reordered no pattern covers."""
    text = "Watchdog caught a collective operation timeout: WorkNCCL with OpType ALLREDUCE ran for 1800366 ms before it timed out"
    d = diagnose_text(text, _index())
    assert d.findings, d.nearest
    assert d.findings[0].matched_by == "lexical"
    assert "watchdog" in d.findings[0].id
