"""`rootcause import`: errorcanon-style index.json and deadends.dev canon JSON."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import SEED_ID, run_cli

from rootcause.adapters.canon_files import load_canon
from rootcause.adapters.loading import load_entries
from rootcause.core.importers import ImportFormatError, detect_and_convert, from_errorcanon
from rootcause.core.render.json_view import entry_to_dict

TODAY = dt.date(2026, 12, 2)


@pytest.fixture(scope="module")
def deadends_canons(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real files of the deadends-dev package, installed at test time (never committed)."""
    target = tmp_path_factory.mktemp("deadends")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), "deadends-dev==0.9.0"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    canons = target / "data" / "canons"
    assert canons.is_dir()
    return canons


def test_imports_the_real_deadends_package(deadends_canons: Path, tmp_path: Path) -> None:
    files = list(deadends_canons.rglob("*.json"))
    assert len(files) > 2000
    result = run_cli("import", str(deadends_canons), "--into", str(tmp_path / "canon"))
    imported = list((tmp_path / "canon").rglob("*.yaml"))
    assert len(imported) >= 0.95 * len(files), result.stdout[-2000:]
    assert f"{len(imported)} imported" in result.stderr
    # every written file loads through the normal validating loader
    loaded = {le.entry.id: le.entry for le in load_canon([tmp_path / "canon"])}
    entry = loaded["pytorch/inplace-operation-gradient-pytorch2-linux"]
    assert entry.signature.startswith("RuntimeError: one of the variables needed for gradient computation")
    assert [v.requirement for v in entry.versions] == ["torch>=2.0", "python>=3.9"]
    assert entry.os_specific == {"linux": "reported environment"}
    assert entry.fix_rate and entry.fix_rate.basis == "estimate"
    assert entry.verification == "ai_generated" and len(entry.workarounds) == 3
    assert entry.sources[0].kind == "import"
    # the per-file report names what had no home
    assert "not mapped: Chinese text: none in the source" in result.stdout


def test_errorcanon_round_trip_of_our_own_json() -> None:
    seed = next(e for e in load_entries() if e.id == SEED_ID)
    back = from_errorcanon(json.loads(json.dumps(entry_to_dict(seed))), "index.json", TODAY)
    assert back.entry.model_dump(exclude={"modified"}) == seed.model_dump(exclude={"modified"})


def test_errorcanon_free_text_versions_and_empty_dead_ends() -> None:
    data = {
        "id": "cuda/device-incompatible-cubin",
        "signature": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "regex": "no kernel image is available",
        "domain": "cuda",
        "category": "build_error",
        "subcategory": None,
        "root_cause": "The binary was not built for this GPU's architecture.",
        "root_cause_type": "generic",
        "versions": [
            {"version": "CUDA 12.0", "status": "active"},
            {"version": "NVIDIA A100 (sm_80)", "status": "active"},
            {"version": "Ubuntu 22.04", "status": "active"},
            {"version": "pytorch>=1.12.0", "status": "active"},
        ],
        "os_specific": {},
        "dead_ends": [{"action": "", "why_fails": "x", "fail_rate": 0.6, "condition": "", "sources": []}],
        "workarounds": [
            {"action": "Rebuild for the GPU", "success_rate": 0.9, "how": "TORCH_CUDA_ARCH_LIST=8.0 pip install ."}
        ],
    }
    imported = detect_and_convert(data, "index.json", TODAY)
    entry = imported.entry
    assert [v.requirement for v in entry.versions] == ["cuda==12.0", "torch>=1.12.0"]
    assert entry.hardware == ["NVIDIA A100 (sm_80)"]
    assert "ubuntu" in entry.os_specific
    assert entry.dead_ends == []
    assert any("dead_ends.0: empty action" in note for note in imported.unmapped)
    assert any("is hardware" in note for note in imported.unmapped)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([1, 2], "expected a JSON object"),
        ({"id": "x/y"}, "neither an errorcanon-style"),
        ({"id": "x/y", "signature": "boom", "domain": "x"}, "root_cause: missing"),
        ({"error": {"regex": "x"}, "id": "a/b"}, "error.signature: missing"),
    ],
)
def test_invalid_input_is_refused_clearly(payload: object, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        detect_and_convert(payload, "bad.json", TODAY)


def test_cli_refuses_non_json_and_writes_nothing_for_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    result = run_cli("import", str(bad), "--into", str(tmp_path / "out"))
    assert result.returncode == 1
    assert f"{bad}: refused: not JSON" in result.stdout
    assert not (tmp_path / "out").exists()
