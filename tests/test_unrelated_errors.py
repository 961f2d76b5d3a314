"""Real errors from other stacks get no answer: neither a pattern nor the lexical stage claims them.

Only a catch-all may speak (a Python traceback is a Python exception, whatever raised it)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text

SOURCED = yaml.safe_load((Path(__file__).parent / "data" / "unrelated_errors_sourced.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index():
    return load_index()


def test_the_set_is_large_sourced_and_covers_the_overlapping_stacks() -> None:
    assert len(SOURCED) >= 60
    assert all(item["source"].startswith("https://github.com/") and item["text"].strip() for item in SOURCED)
    stacks = {item["stack"] for item in SOURCED}
    assert {"kubernetes", "node", "java", "gunicorn", "npm", "postgresql", "docker", "terraform"} <= stacks
    assert len({item["text"] for item in SOURCED}) == len(SOURCED), "no duplicates"


@pytest.mark.parametrize("item", SOURCED, ids=[f"{i:02d}-{item['stack']}" for i, item in enumerate(SOURCED)])
def test_unrelated_real_error_gets_no_known_error(index, item: dict[str, str]) -> None:
    d = diagnose_text(item["text"], index)
    claimed = [(f.id, f.matched_by) for f in d.findings if not index.entries[f.id].catch_all]
    assert claimed == [], f"{item['source']}: {claimed}"
