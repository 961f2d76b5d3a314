"""Ray Data: the path listing (``from_items``, one block per batch of ``batch_size`` paths) and
``map_batches`` with a stateful callable class, one actor per worker, that reads each batch's files.

The index payload is put in the object store once (``ray.put``); each actor fetches it and builds
its index in its constructor, then reads and scans every batch of ``batch_size`` logs as one buffer.
(``read_binary_files`` made one read task per file and moved every log's bytes through the object
store, with a quarter of a CPU kept back for the reads.) The per-job triage is
``groupby("job").map_groups`` over the file listing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

import pandas as pd
import ray

from rootcause.adapters.fleet.output import FleetSink
from rootcause.adapters.fleet.payload import IndexPayload
from rootcause.adapters.fleet.run import FleetOptions, FleetRun, LogRef, Progress, plain_record
from rootcause.adapters.fleet.worker import FleetScanner, LogText, mtime_of, triage_job
from rootcause.core.fleet.layout import Layout
from rootcause.core.fleet.rows import FINDING_COLUMNS, JOB_COLUMNS

STATS = "__stats__"


def read_any(path: str) -> bytes:
    """A log's bytes: a local path directly, a URL (``s3://``, ``hdfs://``) through pyarrow's file systems."""
    if "://" not in path:
        with open(path, "rb") as fh:
            return fh.read()
    from pyarrow import fs

    filesystem, inner = fs.FileSystem.from_uri(path)
    with filesystem.open_input_stream(inner) as stream:
        return stream.read()


class ScanBatches:
    """The stateful callable: built once per actor (the index from the payload), called once per batch of
    paths, whose files it reads itself: no read task per file, no log bytes through the object store."""

    def __init__(self, payload_ref: list[Any], layout: list[str], scanned_at: int) -> None:
        payload: IndexPayload = ray.get(payload_ref[0])
        self.scanner = FleetScanner(payload, Layout(layout), scanned_at)

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        s = self.scanner
        logs = [LogText(str(p), read_any(str(p)), mtime_of(str(p))) for p in batch["path"]]
        before = (s.logs, s.bytes, s.diagnosed)
        rows = s.scan_batch(logs)
        stats = [a - b for a, b in zip((s.logs, s.bytes, s.diagnosed), before, strict=True)]
        rows.append({"kind": STATS, "text": json.dumps(stats)})
        return pd.DataFrame(rows, columns=list(FINDING_COLUMNS), dtype=object)


def _triage_group(budget: int, scanned_at: int):
    def triage(group: pd.DataFrame) -> pd.DataFrame:
        ranks = [None if pd.isna(r) else int(r) for r in group["rank"]]
        row = triage_job(str(group["job"].iloc[0]), list(zip(group["path"], ranks, strict=True)), budget, scanned_at)
        return pd.DataFrame([row], columns=list(JOB_COLUMNS), dtype=object)

    return triage


def path_blocks(n_paths: int, options: FleetOptions) -> int:
    """Blocks of the path listing: one per batch of ``batch_size`` paths, so a block is one actor call."""
    return max(1, -(-n_paths // options.batch_size))


class RayEngine:
    def scan(
        self,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
        progress: Progress | None,
    ) -> FleetRun:
        started = False
        clock = time.perf_counter()
        if not ray.is_initialized():
            if options.address:
                ray.init(address=options.address)
            else:
                os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
                os.environ.setdefault("RAY_DATA_EXECUTION_NO_PROGRESS_TIMEOUT_S", "600")
                ray.init(num_cpus=options.workers, include_dashboard=False, log_to_driver=False)
            started = True
        startup = time.perf_counter() - clock if started else 0.0
        try:
            run = self._run(refs, payload, options, sink, scanned_at)
            run.startup_seconds = startup
            return run
        finally:
            if started:
                ray.shutdown()

    def _run(
        self, refs: Sequence[LogRef], payload: IndexPayload, options: FleetOptions, sink: FleetSink, scanned_at: int
    ) -> FleetRun:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        payload_ref = ray.put(payload)
        paths = [r.path for r in refs]
        blocks = path_blocks(len(paths), options)
        listing = ray.data.from_items([{"path": p} for p in paths], override_num_blocks=blocks)
        found = listing.map_batches(
            ScanBatches,
            fn_constructor_kwargs={"payload_ref": [payload_ref], "layout": options.layout, "scanned_at": scanned_at},
            batch_size=options.batch_size,
            batch_format="pandas",
            compute=ray.data.ActorPoolStrategy(size=options.workers),
            num_cpus=1,
        )
        run = FleetRun()
        for batch in found.iter_batches(batch_format="pandas", batch_size=None):
            rows = [plain_record(r) for r in batch.to_dict("records")]  # type: ignore[union-attr]  # pandas batches
            kept = []
            for r in rows:
                if r["kind"] == STATS:
                    logs, nbytes, diagnosed = json.loads(r["text"])
                    run.logs += logs
                    run.bytes += nbytes
                    run.diagnosed += diagnosed
                else:
                    kept.append(r)
            sink.write_rows(kept)
            run.findings += len(kept)
        if options.triage:
            listing = ray.data.from_items([{"job": r.job, "path": r.path, "rank": r.rank} for r in refs])
            verdicts = listing.groupby("job").map_groups(
                _triage_group(options.group_budget, scanned_at), batch_format="pandas"
            )
            jobs = [plain_record(r) for r in verdicts.take_all()]
            sink.write_jobs(jobs)
            run.jobs = len(jobs)
        return run


ENGINE = RayEngine()
