"""Dask, Spark and Ray, each for real on a local cluster, over the generated fleet: the same rows as
the local engine, which gives what `rootcause diagnose` gives per file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import known_keys
from fleetgen import Fleet

from rootcause.adapters.fleet import FleetOptions, scan_fleet
from rootcause.adapters.fleet.output import read_findings


def _verdicts(jobs: list[dict]) -> dict[str, tuple]:
    return {j["job"]: (j["conclusion"], j["guilty_ranks"], j["ranks"]) for j in jobs}


def _check(out: Path, fleet: Fleet, per_file_findings: set, engine: str) -> list[dict]:
    rows, jobs, meta = read_findings(out)
    assert meta["engine"] == engine and meta["logs"] == len(fleet.logs)
    assert known_keys(rows) == per_file_findings
    assert len(jobs) == len(fleet.jobs)
    unknown = sorted((r["path"], r["line"]) for r in rows if r["kind"] == "unknown")
    assert unknown, "unknown error lines are carried too"
    return jobs


@pytest.fixture(scope="module")
def local_jobs(fleet: Fleet, fleet_glob: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    out = tmp_path_factory.mktemp("ref") / "f.parquet"
    scan_fleet([fleet_glob], FleetOptions(engine="local"), out)
    return _verdicts(read_findings(out)[1])


def test_dask_engine(
    fleet: Fleet, fleet_glob: str, per_file_findings: set, local_jobs: dict, dask_cluster: str, tmp_path: Path
) -> None:
    from distributed import Client

    from rootcause.adapters.fleet.payload import LOADS

    out = tmp_path / "f.parquet"
    scan_fleet([fleet_glob], FleetOptions(engine="dask", address=dask_cluster, batch_size=128), out)
    jobs = _check(out, fleet, per_file_findings, "dask")
    assert _verdicts(jobs) == local_jobs
    with Client(dask_cluster) as client:
        loads = client.run(lambda: LOADS["count"])
    assert loads and all(n <= 1 for n in loads.values()), loads  # each worker built its index once


_FORKED_CLUSTER = """
from distributed import Client
from rootcause.adapters.fleet import engine_dask
from rootcause.adapters.fleet.payload import holds_index, make_payload
from rootcause.adapters.loading import load_index
payload = make_payload(load_index())
with engine_dask.local_cluster(2, payload) as cluster, Client(cluster) as client:
    print(sorted(client.run(holds_index, payload.digest).values()))
"""


def test_dask_engine_own_cluster_forks_workers_that_hold_the_index(
    fleet: Fleet, fleet_glob: str, per_file_findings: set, local_jobs: dict, tmp_path: Path, monkeypatch
) -> None:
    """The engine's own LocalCluster: by default, from a fresh process whose only thread is the main one (as a CLI
    run is), it forks workers that start with the driver's index; from a process running another thread it spawns
    them and they build their own; either way the rows are the per-file ones."""
    import os
    import subprocess
    import sys
    import threading

    from distributed import Client

    from rootcause.adapters.fleet import engine_dask
    from rootcause.adapters.fleet.payload import holds_index, make_payload
    from rootcause.adapters.loading import load_index

    env = {k: v for k, v in os.environ.items() if k != "ROOTCAUSE_DASK_START_METHOD"}
    forked = subprocess.run(
        [sys.executable, "-c", _FORKED_CLUSTER], env=env, capture_output=True, text=True, timeout=240, check=True
    )
    assert forked.stdout.strip().splitlines()[-1] == "[True, True]", forked.stderr[-2000:]

    monkeypatch.delenv("ROOTCAUSE_DASK_START_METHOD", raising=False)
    payload = make_payload(load_index())
    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()  # a thread of the driver's own, as a Spark gateway or another cluster runs: no fork then
    try:
        with engine_dask.local_cluster(2, payload) as cluster, Client(cluster) as client:
            held = client.run(holds_index, payload.digest)  # before any task ran
    finally:
        release.set()
    assert len(held) == 2 and set(held.values()) == {False}, held

    out = tmp_path / "own.parquet"
    scan_fleet([fleet_glob], FleetOptions(engine="dask", workers=2, batch_size=128), out)
    assert _verdicts(_check(out, fleet, per_file_findings, "dask")) == local_jobs


def test_dask_start_method_forks_only_where_safe(monkeypatch) -> None:
    import threading

    from rootcause.adapters.fleet import engine_dask
    from rootcause.errors import UsageError

    monkeypatch.delenv("ROOTCAUSE_DASK_START_METHOD", raising=False)
    monkeypatch.setattr(engine_dask.sys, "platform", "linux")
    monkeypatch.setattr(engine_dask.threading, "active_count", lambda: 1)
    assert engine_dask.start_method() == "fork"
    monkeypatch.setattr(engine_dask.threading, "active_count", lambda: 2)
    assert engine_dask.start_method() == "spawn"
    monkeypatch.setattr(engine_dask.threading, "active_count", threading.active_count)
    monkeypatch.setattr(engine_dask.sys, "platform", "darwin")
    assert engine_dask.start_method() == "spawn"
    monkeypatch.setenv("ROOTCAUSE_DASK_START_METHOD", "threads")
    with pytest.raises(UsageError, match="ROOTCAUSE_DASK_START_METHOD='threads'"):
        engine_dask.start_method()
    monkeypatch.setenv("ROOTCAUSE_DASK_START_METHOD", "forkserver")
    assert engine_dask.start_method() == "forkserver"
    monkeypatch.setenv("ROOTCAUSE_DASK_START_METHOD", "fork")
    assert engine_dask.start_method() == "fork"


def test_spark_engine(
    fleet: Fleet, fleet_glob: str, per_file_findings: set, local_jobs: dict, spark_session: object, tmp_path: Path
) -> None:
    out = tmp_path / "f.parquet"
    scan_fleet([fleet_glob], FleetOptions(engine="spark", batch_size=128), out)
    jobs = _check(out, fleet, per_file_findings, "spark")
    assert _verdicts(jobs) == local_jobs


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own context warns about its own defaults
def test_ray_engine(
    fleet: Fleet, fleet_glob: str, per_file_findings: set, local_jobs: dict, ray_local: object, tmp_path: Path
) -> None:
    out = tmp_path / "f.parquet"
    scan_fleet([fleet_glob], FleetOptions(engine="ray", batch_size=128), out)
    jobs = _check(out, fleet, per_file_findings, "ray")
    assert _verdicts(jobs) == local_jobs
