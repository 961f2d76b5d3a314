"""Real captured error output (tests/fixtures/real*, with the scripts that produced it)
is diagnosed as expected: the right entry first, and the others found too; an exception no entry
explains is reported as unclassified, never as a known error."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTATIONS = yaml.safe_load((FIXTURES / "expectations.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index():
    return load_index()


def test_every_captured_log_has_an_expectation() -> None:
    logs = {str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("real*/*.log")}
    assert logs and logs <= set(EXPECTATIONS), sorted(logs - set(EXPECTATIONS))


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_captured_log_is_diagnosed_as_expected(index, name: str) -> None:
    expected = EXPECTATIONS[name]
    path = FIXTURES / name
    d = diagnose_sources([SourceInput(name, iter([path.read_bytes()]))], index)
    ids = [f.id for f in d.findings]
    if expected.get("unclassified"):  # a Python exception in the ML stack that no known error explains
        assert d.unclassified and not d.matched, (ids, d.unclassified)
    if expected["first"] is None:
        assert [f.id for f in d.findings if not f.generic] == []
        return
    assert ids and ids[0] == expected["first"], ids
    for other in expected.get("also", []):
        assert other in ids, (other, ids)
    for wrong in expected.get("never", []):
        assert wrong not in ids, (wrong, ids)
    first = d.findings[0]
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")  # the engine counts \n, as editors do
    assert first.lines and lines[first.lines[0].line - 1].rstrip("\r") == first.lines[0].text.rstrip("\r")


def test_manifest_key_lines_are_in_their_logs() -> None:
    for manifest in FIXTURES.glob("real*/MANIFEST.yaml"):
        data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
        for item in data["logs"]:
            log = manifest.parent / item["file"]
            assert item["key_line"] in log.read_text(encoding="utf-8", errors="replace"), item["file"]
