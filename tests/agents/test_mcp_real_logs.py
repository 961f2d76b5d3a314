"""The captured real error outputs through the MCP `diagnose` tool: the same findings, in the
same order, as `rootcause diagnose -f json FILE`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from click.testing import CliRunner
from mcp_support import REPO, sync_stdio_session, text_of

from rootcause.adapters.cli.main import app
from rootcause.core import agent_view as view

FIXTURES = REPO / "tests" / "fixtures"
DIRS = [FIXTURES / "real", FIXTURES / "real_hf"]
CANON = REPO / "src" / "rootcause" / "canon"
ATTEMPTS = 3
T = TypeVar("T")


def _logs() -> list[Path]:
    """Every captured log: those each MANIFEST.yaml lists (where captured), and any other *.log."""
    found: set[Path] = set()
    for folder in DIRS:
        manifest = folder / "MANIFEST.yaml"
        if manifest.is_file():
            for row in (yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}).get("logs", []):
                path = folder / row["file"]
                if path.is_file():
                    found.add(path)
        found.update(folder.glob("*.log"))
    return sorted(p for p in found if p.stat().st_size > 0)  # an empty capture holds no error


def _snapshot(tmp: Path) -> list[Path]:
    """Copies of the logs, so that both sides read the same bytes even while captures are redone."""
    copies = []
    for path in _logs():
        copy = tmp / path.parent.name / path.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(path.read_bytes())
        copies.append(copy)
    return copies


def _canon_state() -> list[tuple[str, int, int]]:
    return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in CANON.rglob("*.yaml"))


def _same_canon(load_both: Callable[[], T]) -> T:
    """Run ``load_both`` (which loads the canon on both sides) until no canon file changed meanwhile:
    others may be editing the canon while the tests run, and both sides must read the same one."""
    for _ in range(ATTEMPTS):
        before = _canon_state()
        result = load_both()
        if _canon_state() == before:
            return result
    pytest.skip(f"the canon kept changing during {ATTEMPTS} attempts")


def _cli(path: Path) -> dict[str, Any]:
    """The CLI's JSON for one file (the click command itself, in this process)."""
    result = CliRunner().invoke(app, ["diagnose", "-f", "json", str(path)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    assert doc["matched"] == (result.exit_code == 0)
    return doc


@pytest.fixture
def index_once(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """The in-process CLI loads the (cached) index once, when told to, not once per file."""
    import rootcause.adapters.loading as loading

    original = loading.load_index
    held: dict[str, Any] = {}
    monkeypatch.setattr(loading, "load_index", lambda extra=(), **_: held.get("index") or original(list(extra)))

    def load() -> None:
        held["index"] = original([])

    return load


def test_real_logs_through_mcp_match_the_cli(tmp_path: Path, index_once: Callable[[], None]) -> None:
    logs = _snapshot(tmp_path)
    assert len(logs) >= 10, logs

    def diagnose_all() -> dict[Path, dict[str, Any]]:
        got: dict[Path, dict[str, Any]] = {}
        with sync_stdio_session() as mcp:
            mcp.text("diagnose", {"text": "warm-up"})  # the server has loaded its canon now
            index_once()
            for path in logs:
                text = path.read_bytes().decode("utf-8", "replace")  # keeps lone \r (progress bars) as they are
                result = mcp.call("diagnose", {"text": text, "format": "json"})
                assert not result.is_error, (path.name, text_of(result))
                got[path] = json.loads(text_of(result))
        return got

    got = _same_canon(diagnose_all)
    expected = {path: _cli(path) for path in logs}
    assert sum(doc["matched"] for doc in expected.values()) >= len(logs) // 2, "most captured errors are known"
    for path in logs:
        cli, mcp = expected[path], got[path]
        cli_ids = [f["id"] for f in cli["findings"]]
        assert mcp["matched"] == cli["matched"], (path.name, mcp)
        if not cli["matched"]:
            continue
        shown = [f["id"] for f in mcp["findings"]]
        assert len(shown) == min(len(cli_ids), view.MAX_FINDINGS), (path.name, mcp)
        assert shown + mcp["more"] == cli_ids[: view.MAX_FINDINGS + view.MAX_MORE_IDS], path.name
        for mine, theirs in zip(mcp["findings"], cli["findings"], strict=False):
            assert mine["line"]["line"] == theirs["lines"][0]["line"], path.name
            assert mine["confidence"] == theirs["confidence"] and mine["score"] == theirs["score"], path.name
            assert set(mine["params"]) == set(list(theirs["params"])[:12]), path.name


def test_the_cli_binary_agrees_with_the_in_process_cli(tmp_path: Path, index_once: Callable[[], None]) -> None:
    """The comparison above runs the click command in-process; the real process says the same."""
    logs = _snapshot(tmp_path)

    def both() -> tuple[Path, list[str]]:
        index_once()
        path = next(p for p in logs if _cli(p)["matched"])
        proc = subprocess.run(
            [sys.executable, "-m", "rootcause.adapters.cli.main", "diagnose", "-f", "json", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        return path, [f["id"] for f in json.loads(proc.stdout)["findings"]]

    path, ids = _same_canon(both)
    assert ids == [f["id"] for f in _cli(path)["findings"]]
