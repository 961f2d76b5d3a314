"""Spark: ``mapInPandas`` over rows of ``(path, content, modificationTime)`` read by the
``binaryFile`` source (exact bytes, any Hadoop file system).

The index payload goes out once as a broadcast variable; each Python worker builds its index on
first use and keeps it. ``spark.sql.execution.arrow.maxRecordsPerBatch`` makes one batch of
``batch_size`` logs, scanned as one buffer. The per-job triage is ``groupBy("job").applyInPandas``
over the file listing: a group holds paths, and the group's worker streams the logs within its byte
budget.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence

import pandas as pd
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from rootcause.adapters.fleet.output import FleetSink
from rootcause.adapters.fleet.payload import IndexPayload
from rootcause.adapters.fleet.run import FleetOptions, FleetRun, LogRef, Progress, plain_record
from rootcause.adapters.fleet.worker import FleetScanner, LogText, triage_job
from rootcause.core.fleet.layout import Layout
from rootcause.core.fleet.rows import FINDING_COLUMNS, JOB_COLUMNS
from rootcause.errors import UsageError

_SPARK_TYPES = {"str": StringType(), "int": LongType(), "float": DoubleType(), "json": StringType()}
STATS = "__stats__"


def spark_schema(columns: dict[str, str]) -> StructType:
    # times travel as epoch milliseconds (LongType): no session time zone in between
    return StructType([StructField(n, _SPARK_TYPES.get(k, LongType()), True) for n, k in columns.items()])


FINDINGS = spark_schema(FINDING_COLUMNS)
JOBS = spark_schema(JOB_COLUMNS)


def local_path(uri: str) -> str:
    """``file:/a/b`` or ``file:///a/b`` -> ``/a/b``; other URLs (hdfs://, s3a://) stay as they are."""
    if uri.startswith("file:"):
        rest = uri[len("file:") :]
        return "/" + rest.lstrip("/")
    return uri


def _ms(value: object) -> int | None:
    if value is None or value is pd.NaT:
        return None
    return int(pd.Timestamp(value).timestamp() * 1000)


def _scan_batches(payload_bc: object, layout: list[str], scanned_at: int):
    def scan(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        scanner = FleetScanner(payload_bc.value, Layout(layout), scanned_at)  # type: ignore[attr-defined]
        for pdf in batches:
            logs = [
                LogText(local_path(p), bytes(c), _ms(t))
                for p, c, t in zip(pdf["path"], pdf["content"], pdf["modificationTime"], strict=True)
            ]
            before = (scanner.logs, scanner.bytes, scanner.diagnosed)
            rows = scanner.scan_batch(logs)
            stats = [a - b for a, b in zip((scanner.logs, scanner.bytes, scanner.diagnosed), before, strict=True)]
            rows.append({"kind": STATS, "text": json.dumps(stats)})
            yield pd.DataFrame(rows, columns=list(FINDING_COLUMNS), dtype=object)

    return scan


def _triage_groups(budget: int, scanned_at: int):
    def triage(pdf: pd.DataFrame) -> pd.DataFrame:
        job = str(pdf["job"].iloc[0])
        ranks = [None if pd.isna(r) else int(r) for r in pdf["rank"]]
        row = triage_job(job, list(zip(pdf["path"], ranks, strict=True)), budget, scanned_at)
        return pd.DataFrame([row], columns=list(JOB_COLUMNS), dtype=object)

    return triage


def scan_frame(
    spark: SparkSession, paths: list[str], payload_bc: object, options: FleetOptions, scanned_at: int
) -> DataFrame:
    """The finding rows of ``paths``: each input partition packs whole files (about ``batch_size`` logs,
    with the session's ``spark.sql.files.maxPartitionBytes`` as the cap), and is scanned where it is read.
    No shuffle: the logs' bytes never go through shuffle files."""
    sizes = [_size(p) for p in paths]
    spark.conf.set("spark.sql.files.openCostInBytes", str(pack_cost(sizes, options.batch_size, spark)))
    files = spark.read.format("binaryFile").load(paths)
    found = files.select("path", "content", "modificationTime")
    return found.mapInPandas(_scan_batches(payload_bc, options.layout, scanned_at), FINDINGS)


def _size(path: str) -> int:
    try:
        return os.path.getsize(local_path(path))
    except OSError:
        return 0  # not a local path (hdfs://, s3a://): Spark lists it


def pack_cost(sizes: list[int], batch_size: int, spark: SparkSession) -> int:
    """The ``openCostInBytes`` that makes Spark pack about ``batch_size`` files of this fleet into one partition.

    Spark fills a partition until its bytes plus one open cost per file reach ``maxPartitionBytes``, so
    a cost of ``max_bytes / batch_size`` less the mean file size does it (small files: a batch; large
    files: one partition per ``maxPartitionBytes`` of logs, as Spark would anyway)."""
    max_bytes = byte_count(spark.conf.get("spark.sql.files.maxPartitionBytes", "128MB") or "128MB")
    mean = sum(sizes) // max(len(sizes), 1)
    return max(max_bytes // batch_size - mean, 0)


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def byte_count(text: str) -> int:
    """A Spark size setting (``134217728``, ``128m``, ``128MB``, ``1g``) in bytes."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", text.lower())
    if m is None:
        raise UsageError(f"spark.sql.files.maxPartitionBytes: not a size: {text!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]


class SparkEngine:
    def scan(
        self,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
        progress: Progress | None,
    ) -> FleetRun:
        active = SparkSession.getActiveSession()
        spark = active
        started = time.perf_counter()
        if spark is None:
            # local Python workers run this interpreter (the one with rootcause and pyarrow installed)
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            builder = SparkSession.builder.appName("rootcause-fleet").master(
                options.address or f"local[{options.workers}]"
            )
            # list the given files on the driver, not with one Spark task per file
            builder = builder.config("spark.sql.sources.parallelPartitionDiscovery.threshold", str(1 << 30))
            builder = builder.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            spark = builder.getOrCreate()
            spark.sparkContext.setLogLevel("ERROR")
        startup = time.perf_counter() - started if active is None else 0.0
        try:
            run = self._run(spark, refs, payload, options, sink, scanned_at)
            run.startup_seconds = startup
            return run
        finally:
            if active is None:
                spark.stop()

    def _run(
        self,
        spark: SparkSession,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
    ) -> FleetRun:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(options.batch_size))
        spark.conf.set("spark.sql.sources.parallelPartitionDiscovery.threshold", str(1 << 30))
        payload_bc = spark.sparkContext.broadcast(payload)
        found = None
        try:
            found = scan_frame(spark, [r.path for r in refs], payload_bc, options, scanned_at)
            # every partition in one job, on every core; toLocalIterator alone runs one job per partition,
            # one after the other. What is kept is the findings, not the logs.
            found = found.persist(StorageLevel.MEMORY_AND_DISK)
            found.count()
            run = FleetRun()
            batch: list[dict] = []
            for row in found.toLocalIterator():
                record = plain_record(row.asDict())
                if record["kind"] == STATS:
                    logs, nbytes, diagnosed = json.loads(record["text"])
                    run.logs += logs
                    run.bytes += nbytes
                    run.diagnosed += diagnosed
                    continue
                batch.append(record)
                if len(batch) >= 10_000:
                    sink.write_rows(batch)
                    run.findings += len(batch)
                    batch = []
            sink.write_rows(batch)
            run.findings += len(batch)
            if options.triage:
                listing = spark.createDataFrame(
                    [(r.job, r.path, r.rank) for r in refs],
                    StructType(
                        [
                            StructField("job", StringType()),
                            StructField("path", StringType()),
                            StructField("rank", LongType()),
                        ]
                    ),
                )
                verdicts = listing.groupBy("job").applyInPandas(_triage_groups(options.group_budget, scanned_at), JOBS)
                jobs = [plain_record(r.asDict()) for r in verdicts.toLocalIterator()]
                sink.write_jobs(jobs)
                run.jobs = len(jobs)
            return run
        finally:
            if found is not None:
                found.unpersist()
            payload_bc.unpersist()


ENGINE = SparkEngine()
