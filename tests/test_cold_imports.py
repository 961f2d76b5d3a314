"""A one-file `rootcause diagnose` imports what the diagnosis needs and nothing else (issue 25: start-up).

Each test runs the real command in a fresh interpreter, with the index cache built by a first run, and lists
the modules it imported: the HTML renderer, the YAML parser, the triage's conclusions and the reproducers'
model are other commands' (or a multi-rank input's) business.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms\n"
# modules a single-rank diagnosis of a log, from the index cache, has no use for
NOT_NEEDED = (
    "jinja2",
    "yaml",
    "packaging.requirements",
    "rootcause.adapters.canon_files",
    "rootcause.core.render.html",
    "rootcause.core.reproducers",
    "rootcause.core.triage.conclude",
    "rootcause.core.triage.resolve",
    "rootcause.core.triage.flight",
)
PROBE = """
import json, sys
from rootcause.adapters.cli.main import run
sys.argv = ["rootcause", *sys.argv[2:]]
out = sys.argv.pop(-1)
try:
    run()
except SystemExit as exc:
    code = exc.code
with open(out, "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules)}, fh)
"""


def _diagnose(tmp_path: Path, fmt: str) -> dict[str, object]:
    log = tmp_path / "train.log"
    log.write_text("step 10 loss 2.31\n" + MESSAGE, encoding="utf-8")
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, "-c", PROBE, "-", "diagnose", "-f", fmt, "--no-progress", str(log), str(out)]
    for _ in range(2):  # the first run builds the index cache; the second reads it, as every later run does
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fmt", ["text", "json", "md"])
def test_a_single_rank_diagnosis_imports_only_what_it_needs(tmp_path: Path, fmt: str) -> None:
    seen = _diagnose(tmp_path, fmt)
    assert seen["code"] == 0  # a known error matched: the diagnosis itself ran
    modules = set(seen["modules"])
    assert "rootcause.core.diagnosis" in modules
    assert sorted(m for m in NOT_NEEDED if m in modules) == []
