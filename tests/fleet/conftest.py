"""One generated fleet per session (>= 2,000 rank logs from >= 200 jobs), the per-file diagnoses
that every engine must reproduce, and one cluster per engine shared by its tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fleetgen import Fleet, make_fleet

Key = tuple[str, str, int, int]  # path, entry id, first line, count


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    f = make_fleet(tmp_path_factory.mktemp("fleet") / "logs", jobs=220)
    assert len(f.logs) >= 2000 and len(f.jobs) >= 200
    return f


@pytest.fixture(scope="session")
def fleet_glob(fleet: Fleet) -> str:
    return str(fleet.root / "**" / "*.log")


@pytest.fixture(scope="session")
def per_file_findings(fleet: Fleet, tmp_path_factory: pytest.TempPathFactory) -> set[Key]:
    """What `rootcause diagnose FILE` finds in each rank log alone (the same code path as the CLI)."""
    os.environ["ROOTCAUSE_CACHE_DIR"] = str(tmp_path_factory.getbasetemp() / "cache")
    from rootcause.adapters.inputs import open_sources
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import diagnose_sources

    index = load_index()
    found: set[Key] = set()
    for path in fleet.logs:
        d = diagnose_sources(open_sources([(str(path), path)]), index)
        for f in d.findings:
            found.add((str(path), f.id, f.lines[0].line if f.lines else 0, f.count))
    return found


def known_keys(rows: list[dict]) -> set[Key]:
    return {(r["path"], r["entry_id"], r["line"], r["count"]) for r in rows if r["kind"] == "known"}


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def spark_session() -> Iterator[object]:
    import shutil
    import sys

    if shutil.which("java") is None:
        pytest.fail("Spark needs Java: apt-get install default-jre-headless (scripts/test.sh installs it)")
    sql = pytest.importorskip("pyspark.sql")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        sql.SparkSession.builder.master("local[2]")
        .appName("rootcause-fleet-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.sources.parallelPartitionDiscovery.threshold", str(1 << 30))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


@pytest.fixture(scope="session")
def ray_local() -> Iterator[object]:
    ray = pytest.importorskip("ray", reason="Ray does not install on this platform")
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
