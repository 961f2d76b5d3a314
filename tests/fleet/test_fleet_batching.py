"""Per-file overhead on the cluster engines: Spark packs many small logs into one task and scans them
where they are read (no shuffle of the logs' bytes)."""

from __future__ import annotations

import pytest
from fleetgen import Fleet

from rootcause.adapters.fleet import FleetOptions
from rootcause.errors import UsageError


@pytest.mark.parametrize(
    ("text", "expected"),
    [("134217728", 134217728), ("128m", 128 << 20), ("128MB", 128 << 20), ("1g", 1 << 30), ("64k", 64 << 10)],
)
def test_spark_size_settings_read_as_bytes(text: str, expected: int) -> None:
    pytest.importorskip("pyspark")
    from rootcause.adapters.fleet.engine_spark import byte_count

    assert byte_count(text) == expected


def test_spark_size_setting_that_is_no_size_is_refused() -> None:
    pytest.importorskip("pyspark")
    from rootcause.adapters.fleet.engine_spark import byte_count

    with pytest.raises(UsageError):
        byte_count("lots")


@pytest.mark.parametrize("batch_size", [32, 128])
def test_spark_packs_a_batch_of_logs_per_task_without_shuffle(
    fleet: Fleet, spark_session: object, batch_size: int
) -> None:
    from rootcause.adapters.fleet.engine_spark import scan_frame

    paths = [str(p) for p in fleet.logs]
    frame = scan_frame(spark_session, paths, None, FleetOptions(batch_size=batch_size), 0)  # type: ignore[arg-type]
    plan = frame._jdf.queryExecution().executedPlan().toString()
    assert "Exchange" not in plan, plan  # the logs' bytes are not shuffled
    logs_per_task = len(paths) / frame.rdd.getNumPartitions()
    assert batch_size / 2 <= logs_per_task <= batch_size * 2, logs_per_task
