"""The local engine over the generated fleet: the same findings as `rootcause diagnose` per file,
the tables, the report and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import known_keys
from fleetgen import BAD_HOST, Fleet

from rootcause.adapters.fleet import FleetOptions, scan_fleet
from rootcause.adapters.fleet.output import read_findings
from rootcause.core.fleet.layout import Layout


@pytest.fixture(scope="module")
def local_scan(fleet: Fleet, fleet_glob: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "findings.parquet"
    run = scan_fleet([fleet_glob], FleetOptions(engine="local"), out)
    assert run.logs == len(fleet.logs)
    assert 0 < run.diagnosed < run.logs  # the batch pass rules most healthy logs out
    return out


def test_local_engine_finds_what_diagnose_finds_per_file(local_scan: Path, per_file_findings: set) -> None:
    rows, _jobs, meta = read_findings(local_scan)
    assert per_file_findings, "the fleet holds real errors"
    assert known_keys(rows) == per_file_findings
    assert meta["engine"] == "local" and meta["logs"] >= 2000


def test_rows_carry_job_rank_host_and_versions(local_scan: Path, fleet: Fleet) -> None:
    rows, jobs, _ = read_findings(local_scan)
    layout = Layout()
    for r in rows:
        place = layout.place(r["path"])
        assert (r["job"], r["host"]) == (place.job, place.host)
        assert r["rank"] == place.rank
        assert "status" in json.loads(r["versions"])
        assert isinstance(json.loads(r["params"]), dict)
    failed_jobs = {r["job"] for r in rows if r["kind"] == "known"}
    assert failed_jobs <= set(fleet.jobs)
    assert len({j["job"] for j in jobs}) == len(fleet.jobs)  # one verdict per job


def test_job_verdicts_name_the_failing_rank(local_scan: Path, fleet: Fleet) -> None:
    _, jobs, _ = read_findings(local_scan)
    by_job = {j["job"]: j for j in jobs}
    healthy = [job for job in fleet.jobs if job not in fleet.failures]
    assert all(by_job[job]["conclusion"] == "undecided" for job in healthy[:50])
    decided = [by_job[job] for job in fleet.failures if by_job[job]["conclusion"] != "undecided"]
    assert decided, "failing jobs get a verdict"
    assert any(json.loads(j["guilty_ranks"]) for j in decided)


def test_group_budget_bounds_what_triage_reads(fleet: Fleet, tmp_path: Path) -> None:
    job = next(iter(fleet.failures))
    paths = fleet.jobs[job]
    out = tmp_path / "f.parquet"
    scan_fleet([str(p) for p in paths], FleetOptions(engine="local", group_budget=1), out)
    _, jobs, _ = read_findings(out)
    (row,) = jobs
    assert row["bytes_read"] <= len(paths) * (64 << 10)
    assert row["truncated"] == int(any(p.stat().st_size > (64 << 10) for p in paths))


def test_cli_scan_report_and_same_findings_as_cli_diagnose(
    fleet: Fleet, fleet_glob: str, local_scan: Path, tmp_path: Path
) -> None:
    exe = [sys.executable, "-m", "rootcause.adapters.cli.main"]
    html, js = tmp_path / "report.html", tmp_path / "report.json"
    done = subprocess.run(
        [*exe, "fleet", "report", str(local_scan), "--html", str(html), "--json", str(js)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "recurring nodes" in done.stdout
    report = json.loads(js.read_text())
    assert report["recurring_nodes"][0]["host"] == BAD_HOST
    assert report["top_errors"] and report["top_errors"][0]["hits"] >= report["top_errors"][-1]["hits"]
    page = html.read_text()
    assert "<svg" in page and "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    # a few failing rank logs, through the real `rootcause diagnose` command
    rows, _, _ = read_findings(local_scan)
    failing = sorted({r["path"] for r in rows if r["kind"] == "known"})[:3]
    for path in failing:
        d = json.loads(subprocess.run([*exe, "diagnose", "-f", "json", path], capture_output=True, text=True).stdout)
        assert {(f["id"], f["lines"][0]["line"]) for f in d["findings"]} == {
            (r["entry_id"], r["line"]) for r in rows if r["path"] == path and r["kind"] == "known"
        }


def test_cli_refuses_bad_input(tmp_path: Path, fleet_glob: str) -> None:
    exe = [sys.executable, "-m", "rootcause.adapters.cli.main"]
    missing = subprocess.run(
        [*exe, "fleet", "scan", str(tmp_path / "nothing*.log"), "--out", str(tmp_path / "f.parquet")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "no log files match" in missing.stderr
    assert not (tmp_path / "f.parquet").exists()
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    r = subprocess.run([*exe, "fleet", "report", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("rootcause: error:") and "bad.parquet" in r.stderr
