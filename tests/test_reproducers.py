"""Reproducers: `rootcause verify` runs real programs and judges them through the real engine;
`rootcause lint` refuses `reproduced` without a passing record. Programs here print a real
error line and exit non-zero, so the tests stay fast; the shipped reproducers run in CI."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml
from testkit import run_cli

from rootcause.adapters.canon_files import builtin_canon_dir, load_canon
from rootcause.adapters.loading import load_index
from rootcause.adapters.reproducers import load_reproducer, reproducers_root
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.reproducers import Outcome, Record, RunRecord, Spec, output_diff, record_passes

ENTRY = "pytorch/tensor-matmul-shape-mismatch"
LINE = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x7 and 10x5)"
FAILING = f"""
import sys
mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
if mode == "workaround-0":
    print("ok")
    sys.exit(0)
if mode == "broken-fix":
    print({LINE!r}, file=sys.stderr)
    sys.exit(1)
if mode == "sleep":
    import time
    time.sleep(30)
print("Traceback (most recent call last):", file=sys.stderr)
print({LINE!r}, file=sys.stderr)
sys.exit(1)
"""


def make_canon(tmp: Path, spec: dict, *, record: dict | None = None, program: str = FAILING) -> Path:
    """A canon folder overriding ENTRY with a reproducer folder of its own."""
    canon = tmp / "canon"
    (canon / "pytorch").mkdir(parents=True)
    data = yaml.safe_load((builtin_canon_dir() / f"{ENTRY}.yaml").read_text(encoding="utf-8"))
    data["reproducers"] = [{"folder": "pytorch/test-repro"}]
    (canon / f"{ENTRY}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    folder = tmp / "reproducers" / "pytorch" / "test-repro"
    folder.mkdir(parents=True)
    (folder / "repro.py").write_text(textwrap.dedent(program), encoding="utf-8")
    (folder / "reproducer.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    if record is not None:
        (folder / "record.yaml").write_text(yaml.safe_dump(record), encoding="utf-8")
    return canon


def verify_json(canon: Path, *extra: str) -> tuple[int, dict]:
    result = run_cli("verify", ENTRY, "--canon", str(canon), "-f", "json", *extra)
    assert result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout)


BASE_SPEC = {"what": "prints a matmul shape error", "program": "repro.py", "timeout": 20}


def test_a_reproducer_that_fails_as_the_entry_says_and_is_fixed_passes(tmp_path: Path) -> None:
    canon = make_canon(tmp_path, {**BASE_SPEC, "fixed": [{"workaround": 0, "args": ["workaround-0"]}]})
    code, data = verify_json(canon)
    assert code == 0, data
    rep = data["reproducers"][0]
    assert rep["verdict"] == "pass"
    assert [(r["run"], r["result"]) for r in rep["runs"]] == [("failing", "reproduced"), ("workaround 0", "fixed")]
    assert rep["runs"][0]["exit_code"] == 1 and rep["runs"][1]["exit_code"] == 0


def test_a_fix_that_does_not_fix_fails_and_a_dead_end_that_still_fails_passes(tmp_path: Path) -> None:
    spec = {
        **BASE_SPEC,
        "fixed": [{"workaround": 0, "args": ["broken-fix"]}, {"dead_end": 0, "args": ["broken-fix"]}],
    }
    code, data = verify_json(make_canon(tmp_path, spec))
    assert code == 1
    runs = {r["run"]: r for r in data["reproducers"][0]["runs"]}
    assert runs["workaround 0"]["result"] == "not-fixed" and not runs["workaround 0"]["passed"]
    assert runs["dead end 0"]["result"] == "not-fixed" and runs["dead end 0"]["passed"]


def test_output_no_longer_matching_fails_with_the_diff_against_expected(tmp_path: Path) -> None:
    program = 'import sys\nprint("RuntimeError: some new wording of the error", file=sys.stderr)\nsys.exit(1)\n'
    canon = make_canon(tmp_path, {**BASE_SPEC, "fixed": [{"workaround": 0, "args": ["x"]}]}, program=program)
    (tmp_path / "reproducers/pytorch/test-repro/expected.log").write_text(LINE + "\n", encoding="utf-8")
    code, data = verify_json(canon)
    assert code == 1
    failing = data["reproducers"][0]["runs"][0]
    assert failing["result"] == "not-reproduced"
    assert f"-{LINE}" in failing["diff"] and "+RuntimeError: some new wording of the error" in failing["diff"]
    text = run_cli("verify", ENTRY, "--canon", str(canon))
    assert text.returncode == 1 and "diff between expected.log and the real output" in text.stdout


def test_missing_packages_gpu_and_timeouts_are_never_passes(tmp_path: Path) -> None:
    gpu = make_canon(tmp_path / "a", {**BASE_SPEC, "device": "gpu", "fixed": [{"workaround": 0}]})
    code, data = verify_json(gpu, "--cpu-only")
    assert code == 0 and data["reproducers"][0]["skipped"]["result"] == "skipped-gpu"
    assert data["summary"] == {"reproducers": 1, "passed": 0, "failed": 0, "skipped": 1}

    spec = {**BASE_SPEC, "requires": ["surely-not-installed-pkg==1.0"], "fixed": [{"workaround": 0}]}
    missing = make_canon(tmp_path / "b", spec)
    code, data = verify_json(missing)
    assert code == 0 and data["reproducers"][0]["skipped"]["result"] == "environment-missing"
    assert "surely-not-installed-pkg==1.0 (not installed)" in data["reproducers"][0]["skipped"]["why"]
    assert verify_json(missing, "--strict")[0] == 1

    slow = make_canon(
        tmp_path / "c",
        {**BASE_SPEC, "args": ["sleep"], "timeout": 2, "fixed": [{"workaround": 0, "args": ["workaround-0"]}]},
    )
    code, data = verify_json(slow)
    assert code == 1 and data["reproducers"][0]["runs"][0]["result"] == "timed-out"


def test_the_shell_launcher_runs_in_a_temporary_folder(tmp_path: Path) -> None:
    spec = {
        "what": "shell",
        "launcher": "shell",
        "command": f"python repro.py && touch made-here; echo {LINE!r} >&2; exit 3",
        "fixed": [{"workaround": 0, "command": "python repro.py workaround-0"}],
    }
    canon = make_canon(tmp_path, spec, program="print('hello')\n")
    code, data = verify_json(canon)
    assert code == 0, data
    assert not (tmp_path / "reproducers/pytorch/test-repro/made-here").exists()


def test_lint_refuses_reproduced_without_a_passing_record(tmp_path: Path) -> None:
    spec = {**BASE_SPEC, "fixed": [{"workaround": 0, "args": ["workaround-0"]}]}
    canon = make_canon(tmp_path / "none", spec)
    result = run_cli("lint", str(canon))
    assert "[RC802]" in result.stdout and result.returncode == 1

    failed = {
        "verified": "2026-12-01",
        "where": "CPU only",
        "python": "3.11.7",
        "runs": [{"run": "failing", "result": "reproduced"}, {"run": "workaround 0", "result": "not-fixed"}],
    }
    result = run_cli("lint", str(make_canon(tmp_path / "failed", spec, record=failed)))
    assert "[RC802]" in result.stdout

    passed = {
        **failed,
        "runs": [{"run": "failing", "result": "reproduced"}, {"run": "workaround 0", "result": "fixed"}],
    }
    result = run_cli("lint", str(make_canon(tmp_path / "passed", spec, record=passed)))
    assert "RC802" not in result.stdout and "RC803" not in result.stdout


def test_lint_reports_a_broken_reproducer(tmp_path: Path) -> None:
    spec = {**BASE_SPEC, "fixed": [{"workaround": 99}], "program": "absent.py"}
    result = run_cli("lint", str(make_canon(tmp_path, spec)))
    assert "workaround 99, which does not exist" in result.stdout
    assert "the program 'absent.py' is not in the folder" in result.stdout
    shutil.rmtree(tmp_path / "reproducers")
    result = run_cli("lint", str(tmp_path / "canon"))
    assert "[RC803]" in result.stdout and "reproducer.yaml: no such file" in result.stdout


def test_update_records_writes_the_record_and_expected_output(tmp_path: Path) -> None:
    canon = make_canon(tmp_path, {**BASE_SPEC, "fixed": [{"workaround": 0, "args": ["workaround-0"]}]})
    assert run_cli("verify", ENTRY, "--canon", str(canon), "--update-records").returncode == 0
    folder = tmp_path / "reproducers/pytorch/test-repro"
    record = Record.model_validate(yaml.safe_load((folder / "record.yaml").read_text(encoding="utf-8")))
    assert record.passed and ("CPU" in record.where or "GPU" in record.where)
    assert LINE in (folder / "expected.log").read_text(encoding="utf-8")
    assert run_cli("lint", str(canon)).stdout.count("RC802") == 0


def test_spec_and_record_rules() -> None:
    with pytest.raises(ValueError, match="exactly one of workaround or dead_end"):
        Spec.model_validate({"what": "x", "program": "p.py", "fixed": [{"workaround": 0, "dead_end": 1}]})
    with pytest.raises(ValueError, match="shell launcher needs a command"):
        Spec.model_validate({"what": "x", "launcher": "shell", "fixed": [{"workaround": 0}]})
    with pytest.raises(ValueError, match="PEP 508"):
        Spec.model_validate({"what": "x", "program": "p.py", "requires": ["torch>>2"], "fixed": [{"workaround": 0}]})
    ok = [RunRecord(run="failing", result=Outcome.REPRODUCED), RunRecord(run="dead end 0", result=Outcome.NOT_FIXED)]
    assert record_passes(ok)
    assert not record_passes(ok[:1])  # a reproducer without a variant proves nothing about the fix
    assert not record_passes([ok[0], RunRecord(run="workaround 1", result=Outcome.NOT_FIXED)])
    assert "0x…" in output_diff("at 0x7f00", "at 0x8f11 and more")


# -- the shipped reproducers: their recorded output is a fixture the engine must keep matching --
SHIPPED = [
    (loaded.entry.id, ref.folder, reproducers_root(loaded.path))
    for loaded in load_canon()
    for ref in loaded.entry.reproducers
]


@pytest.fixture(scope="module")
def index():
    return load_index()


@pytest.mark.parametrize(("entry_id", "folder", "root"), SHIPPED, ids=[f for _, f, _ in SHIPPED])
def test_shipped_reproducer_is_valid_and_its_expected_output_is_matched_first(index, entry_id, folder, root) -> None:
    rep = load_reproducer(entry_id, folder, root)
    assert rep.spec is not None, rep.problem
    assert any(v.workaround is not None for v in rep.spec.fixed) or rep.spec.fixed
    if rep.record is not None:
        assert rep.record.passed
        assert rep.expected_output is not None
        findings = diagnose_text(rep.expected_output, index).findings
        assert findings and findings[0].id == entry_id, [f.id for f in findings]


def test_show_has_a_reproduce_it_section_only_for_entries_with_reproducers() -> None:
    md = run_cli("show", ENTRY, "-f", "md")
    assert md.returncode == 0, md.stderr
    section = md.stdout.split("## Reproduce it", 1)[1]
    assert "`python repro.py`" in section and "workaround 0: `python repro.py workaround-0`" in section
    assert "**Last verified:** 20" in section and "torch 2." in section
    assert "torch.nn.Linear(in_features, 5)" in section  # the program itself
    html = run_cli("show", ENTRY, "-f", "html").stdout
    assert 'id="h-reproduce"' in html and "reproducers/pytorch/tensor-matmul-shape-mismatch/" in html
    assert json.loads(run_cli("show", ENTRY, "-f", "json").stdout)["reproduce"][0]["command"] == "python repro.py"
    assert "Reproduce it" in run_cli("show", ENTRY).stdout
    seed = run_cli("show", "pytorch/nccl-timeout-allreduce", "-f", "md").stdout
    assert "Reproduce it" not in seed


def test_record_stores_reproducer_runs_apart_from_field_reports(tmp_path: Path) -> None:
    from rootcause.adapters.reproducers import reproducer_views
    from rootcause.adapters.store import open_store

    spec = {
        **BASE_SPEC,
        "fixed": [{"workaround": 0, "args": ["workaround-0"]}, {"dead_end": 0, "args": ["broken-fix"]}],
    }
    canon = make_canon(tmp_path, spec)
    url = f"sqlite:///{tmp_path / 'rc.db'}"
    for _ in range(2):
        result = run_cli("verify", ENTRY, "--canon", str(canon), "--record", "--database-url", url)
        assert result.returncode == 0 and "stored 2 outcome reports (source: reproducer)" in result.stderr
    store = open_store(url)
    try:
        runs = store.tally(ENTRY, source="reproducer")
        assert runs.workarounds[0].worked == 2 and runs.dead_ends[0].failed == 2
        assert store.tally(ENTRY).reports == 0  # field rates never include reproducer runs
        exported = list(store.iter_outcomes(ENTRY))
        assert {o.source for o in exported} == {"reproducer"} and exported[0].versions == {}
    finally:
        store.close()
    entry = next(item.entry for item in load_canon([str(canon)]) if item.entry.id == ENTRY)
    view = reproducer_views(entry, [builtin_canon_dir(), canon], runs)[0]
    assert view.variants[0][2] == "measured on reproducer, 2 runs: 2 fixed"
    assert view.variants[1][2] == "measured on reproducer, 2 runs: 2 still failed"


def test_an_older_database_gains_the_source_column(tmp_path: Path) -> None:
    import sqlite3

    from rootcause.adapters.store import open_store

    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE rc_outcomes (id INTEGER PRIMARY KEY, uid VARCHAR(32) NOT NULL UNIQUE, entry_id VARCHAR(200) NOT NULL,"
        " kind VARCHAR(16) NOT NULL, item_index INTEGER NOT NULL, action TEXT NOT NULL, result VARCHAR(16) NOT NULL,"
        " versions TEXT NOT NULL, note TEXT, token_id INTEGER NOT NULL, created_at DATETIME NOT NULL)"
    )
    con.execute(
        "INSERT INTO rc_outcomes VALUES (1, 'u1', 'a/b', 'workaround', 0, 'x', 'worked', '{}', NULL, 1, '2026-01-01 00:00:00')"
    )
    con.commit()
    con.close()
    store = open_store(f"sqlite:///{db}")
    try:
        assert store.tally("a/b").workarounds[0].worked == 1
        assert store.tally("a/b", source="reproducer").reports == 0
    finally:
        store.close()
