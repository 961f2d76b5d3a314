"""Real lines a named entry once claimed wrongly must stay unclaimed by it (tests/data/claims_not_made.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text

CASES = yaml.safe_load((Path(__file__).parent / "data" / "claims_not_made.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index():
    return load_index()


def test_each_case_is_sourced_and_names_entries_that_exist(index) -> None:
    assert CASES, "the file holds cases"
    for case in CASES:
        assert case["source"].startswith("https://") and case["text"].strip() and case["why"].strip()
        assert case["not"] and all(entry_id in index.entries for entry_id in case["not"]), case["source"]


@pytest.mark.parametrize("case", CASES, ids=[f"{i:02d}" for i in range(len(CASES))])
def test_a_line_once_claimed_wrongly_is_not_claimed_by_that_entry(index, case: dict) -> None:
    diagnosis = diagnose_text(case["text"], index)
    claimed = {f.id for f in diagnosis.findings if f.matched_by in ("pattern", "lexical")}
    assert not claimed & set(case["not"]), f"{case['source']}: {sorted(claimed & set(case['not']))}"
