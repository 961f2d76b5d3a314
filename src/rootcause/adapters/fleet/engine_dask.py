"""Dask: a bag of path batches with ``map_partitions`` on a distributed cluster.

Each partition holds ``batch_size`` paths; its worker reads each file's bytes whole (a local path as the local
engine reads it, a URL through fsspec, so object-store URLs work as with ``read_text``), with no split into
lines and no join back: a line costs nothing in Python unless the scan stops on it. The index payload is scattered
to every worker once and each worker process builds its index once.

A ``LocalCluster`` the engine starts itself forks its workers after loading the index in the driver when forking is
safe: on Linux, from a process whose only thread is the main one (a CLI run). Each worker then starts with Python,
rootcause and the index already in memory, where a spawned one imports them again. Anywhere else it spawns them:
beside another cluster or Spark's gateway in the same process, a forked worker inherited a lock some other thread
held and hung. ``ROOTCAUSE_DASK_START_METHOD`` overrides the choice. The per-job triage is a group-by on job over
the file listing: a group holds paths, and its worker streams the logs within the group's byte budget.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import dask.bag as db
import fsspec
from distributed import Client, LocalCluster, as_completed

from rootcause.adapters.fleet.engine_local import read_log
from rootcause.adapters.fleet.output import FleetSink
from rootcause.adapters.fleet.payload import IndexPayload, index_from_payload
from rootcause.adapters.fleet.run import FleetOptions, FleetRun, LogRef, Progress
from rootcause.adapters.fleet.worker import FleetScanner, LogText, mtime_of, triage_job
from rootcause.core.fleet.layout import Layout
from rootcause.core.fleet.rows import Row
from rootcause.errors import UsageError

START_METHODS = ("auto", "fork", "forkserver", "spawn")


def fork_is_safe() -> bool:
    """Whether a fork now copies no lock that another thread may hold: Linux, no Python thread but the main one,
    and no Ray runtime in the process (its threads are native, so ``threading`` does not count them)."""
    ray = sys.modules.get("ray")
    ray_running = ray is not None and getattr(ray, "is_initialized", lambda: False)()
    return sys.platform == "linux" and threading.active_count() == 1 and not ray_running


def start_method() -> str:
    """How the engine's own LocalCluster starts its worker processes (ROOTCAUSE_DASK_START_METHOD, default auto)."""
    method = os.environ.get("ROOTCAUSE_DASK_START_METHOD", "").strip() or "auto"
    if method not in START_METHODS:
        raise UsageError(f"ROOTCAUSE_DASK_START_METHOD={method!r}: expected one of {', '.join(START_METHODS)}")
    if method == "auto":
        return "fork" if fork_is_safe() else "spawn"
    return method


def local_cluster(workers: int, payload: IndexPayload) -> LocalCluster:
    """A cluster of ``workers`` single-threaded processes; forked ones inherit the driver's index for ``payload``."""
    import dask

    method = start_method()
    if method == "fork":
        index_from_payload(payload)  # built here once, so every forked worker starts with it
    with dask.config.set({"distributed.worker.multiprocessing-method": method}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")


def scan_partition(paths: list[str], payload: IndexPayload, layout: list[str], scanned_at: int) -> list[dict[str, Any]]:
    """One partition: a batch of whole files. Returns rows plus one stats row."""
    logs = []
    for path in paths:
        if "://" not in path:  # a local file: read as the local engine reads it (a .gz decompressed), without fsspec
            logs.append(read_log(path))
            continue
        with fsspec.open(path, "rb") as fh:
            logs.append(LogText(path, fh.read(), mtime_of(path)))
    scanner = FleetScanner(payload, Layout(layout), scanned_at)
    rows: list[dict[str, Any]] = scanner.scan_batch(logs)
    rows.append({"__stats__": (scanner.logs, scanner.bytes, scanner.diagnosed)})
    return rows


def _triage_group(item: tuple[str, list[tuple[str, str, int | None]]], budget: int, scanned_at: int) -> Row:
    job, members = item
    return triage_job(job, [(path, rank) for _job, path, rank in members], budget, scanned_at)


class DaskEngine:
    def scan(
        self,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
        progress: Progress | None,
    ) -> FleetRun:
        cluster = None
        clock = time.perf_counter()
        if options.address:
            client = Client(options.address)
        else:
            cluster = local_cluster(options.workers, payload)
            client = Client(cluster)
        startup = time.perf_counter() - clock if cluster is not None else 0.0
        try:
            run = self._run(client, refs, payload, options, sink, scanned_at)
            run.startup_seconds = startup
            return run
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    def _run(
        self,
        client: Client,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
    ) -> FleetRun:
        shared = client.scatter(payload, broadcast=True)
        paths = [r.path for r in refs]
        batches = max(1, -(-len(paths) // options.batch_size))
        bag = db.from_sequence(paths, npartitions=batches)
        parts = bag.map_partitions(scan_partition, shared, options.layout, scanned_at).to_delayed()
        run = FleetRun()
        for future in as_completed(client.compute(parts)):
            rows = future.result()
            stats = rows.pop()["__stats__"]
            run.logs += stats[0]
            run.bytes += stats[1]
            run.diagnosed += stats[2]
            sink.write_rows(rows)
            run.findings += len(rows)
        if options.triage:
            listing = db.from_sequence([(r.job, r.path, r.rank) for r in refs], npartitions=max(options.workers, 1) * 4)
            verdicts = listing.groupby(lambda m: m[0], shuffle="tasks").map(
                _triage_group, options.group_budget, scanned_at
            )
            jobs = client.compute(verdicts).result()
            sink.write_jobs(jobs)
            run.jobs = len(jobs)
        return run


ENGINE = DaskEngine()
