"""The local engine: this process, batch after batch (no cluster; the reference for the others)."""

from __future__ import annotations

from collections.abc import Sequence

from rootcause.adapters.fleet.output import FleetSink
from rootcause.adapters.fleet.payload import IndexPayload
from rootcause.adapters.fleet.run import FleetOptions, FleetRun, LogRef, Progress, group_by_job
from rootcause.adapters.fleet.worker import FleetScanner, LogText, mtime_of, triage_job
from rootcause.core.fleet.layout import Layout
from rootcause.errors import UsageError


def read_log(path: str) -> LogText:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    if path.endswith(".gz"):
        import gzip

        data = gzip.decompress(data)
    return LogText(path, data, mtime_of(path))


class LocalEngine:
    def scan(
        self,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
        progress: Progress | None,
    ) -> FleetRun:
        scanner = FleetScanner(payload, Layout(options.layout), scanned_at)
        run = FleetRun()
        for start in range(0, len(refs), options.batch_size):
            batch = [read_log(r.path) for r in refs[start : start + options.batch_size]]
            rows = scanner.scan_batch(batch)
            sink.write_rows(rows)
            run.findings += len(rows)
            if progress is not None:
                progress(len(batch), sum(len(b.data) for b in batch))
        run.logs, run.bytes, run.diagnosed = scanner.logs, scanner.bytes, scanner.diagnosed
        if options.triage:
            groups = group_by_job(refs)
            sink.write_jobs(
                [triage_job(job, members, options.group_budget, scanned_at) for job, members in groups.items()]
            )
            run.jobs = len(groups)
        return run


ENGINE = LocalEngine()
