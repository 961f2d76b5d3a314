"""The finding table and the job table as Parquet, written in batches as an engine yields them.

``findings.parquet`` holds one row per finding or unknown line; the job verdicts go beside it to
``findings.jobs.parquet``. Both are written to a temporary name and renamed when complete, so a
failed run leaves no half-written table. Run facts (engine, logs, bytes, times) are kept in the
Parquet key-value metadata under ``rootcause``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rootcause.core.fleet.rows import FINDING_COLUMNS, JOB_COLUMNS, Row
from rootcause.errors import UsageError

_TYPES = {
    "str": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "json": pa.string(),
    "time": pa.timestamp("ms", tz="UTC"),
}
META_KEY = b"rootcause"


def arrow_schema(columns: dict[str, str]) -> pa.Schema:
    return pa.schema([pa.field(name, _TYPES[kind]) for name, kind in columns.items()])


FINDINGS_SCHEMA = arrow_schema(FINDING_COLUMNS)
JOBS_SCHEMA = arrow_schema(JOB_COLUMNS)


def jobs_path(findings: Path) -> Path:
    name = findings.name
    stem = name[: -len(".parquet")] if name.endswith(".parquet") else name
    return findings.with_name(f"{stem}.jobs.parquet")


class _Writer:
    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self.schema = schema
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.writer = pq.ParquetWriter(self.tmp, schema, compression="zstd")
        self.rows = 0

    def write(self, rows: list[Row]) -> None:
        if rows:
            self.writer.write_table(pa.Table.from_pylist(rows, schema=self.schema))
            self.rows += len(rows)

    def close(self, meta: dict[str, Any]) -> None:
        self.writer.add_key_value_metadata({META_KEY: json.dumps(meta).encode()})
        self.writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        try:
            self.writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)


class FleetSink:
    """Where an engine puts its rows; ``close`` publishes both tables, ``abort`` leaves nothing."""

    def __init__(self, out: Path) -> None:
        if out.is_dir():
            raise UsageError(f"--out: {out} is a folder; give a file name such as findings.parquet")
        if not out.parent.is_dir():
            raise UsageError(f"--out: folder {out.parent} does not exist")
        self.findings = _Writer(out, FINDINGS_SCHEMA)
        self.jobs = _Writer(jobs_path(out), JOBS_SCHEMA)

    def write_rows(self, rows: Iterable[Row]) -> None:
        self.findings.write(list(rows))

    def write_jobs(self, rows: Iterable[Row]) -> None:
        self.jobs.write(list(rows))

    def close(self, meta: dict[str, Any]) -> None:
        self.findings.close(meta)
        self.jobs.close(meta)

    def abort(self) -> None:
        self.findings.abort()
        self.jobs.abort()


def _epoch_ms(value: Any) -> int:
    return int(value.timestamp() * 1000) if hasattr(value, "timestamp") else int(value)


def read_table(path: Path, schema: pa.Schema) -> tuple[list[Row], dict[str, Any]]:
    """Rows (times as epoch milliseconds) and run facts of a table written by FleetSink."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise UsageError(f"{path}: not a Parquet file: {exc}") from None
    missing = [name for name in schema.names if name not in table.column_names]
    if missing:
        raise UsageError(f"{path}: not a rootcause fleet table: column {missing[0]!r} missing")
    meta_raw = (pq.ParquetFile(path).metadata.metadata or {}).get(META_KEY)
    meta = json.loads(meta_raw) if meta_raw else {}
    rows = table.select(schema.names).to_pylist()
    for row in rows:
        if row.get("seen_at") is not None:
            row["seen_at"] = _epoch_ms(row["seen_at"])
    return rows, meta


def read_findings(path: Path) -> tuple[list[Row], list[Row], dict[str, Any]]:
    rows, meta = read_table(path, FINDINGS_SCHEMA)
    jobs: list[Row] = []
    if jobs_path(path).is_file():
        jobs, _ = read_table(jobs_path(path), JOBS_SCHEMA)
    return rows, jobs, meta
