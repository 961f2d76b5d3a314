"""One fleet scan: list the logs, hand them to an engine, write the tables, and say what it did."""

from __future__ import annotations

import glob
import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from rootcause.adapters.fleet.output import FleetSink
from rootcause.adapters.fleet.payload import IndexPayload, make_payload
from rootcause.adapters.fleet.worker import DEFAULT_GROUP_BUDGET, now_ms
from rootcause.core.fleet.layout import Layout
from rootcause.errors import NotFoundError, UsageError

ENGINES: dict[str, str] = {
    "local": "rootcause.adapters.fleet.engine_local",
    "dask": "rootcause.adapters.fleet.engine_dask",
    "spark": "rootcause.adapters.fleet.engine_spark",
    "ray": "rootcause.adapters.fleet.engine_ray",
}
EXTRA_OF = {"dask": "dask", "spark": "spark", "ray": "ray"}


@dataclass
class FleetOptions:
    engine: str = "local"
    workers: int = 2  # local cluster size (Dask workers, Spark local[N], Ray CPUs); ignored with an address
    address: str | None = None  # an existing cluster: Dask scheduler, Spark master URL, Ray address
    batch_size: int = 64  # rank logs per batch (one buffer for the hyperscan pass)
    group_budget: int = DEFAULT_GROUP_BUDGET  # bytes of one job's logs its triage reads
    layout: list[str] = field(default_factory=list)  # regexes with named groups job, rank, host
    canon: list[str] = field(default_factory=list)
    triage: bool = True


@dataclass(frozen=True)
class LogRef:
    path: str
    job: str
    rank: int | None
    host: str | None


@dataclass
class FleetRun:
    """What an engine reports back."""

    logs: int = 0
    bytes: int = 0
    diagnosed: int = 0  # logs the batch pass could not rule out, diagnosed one by one
    findings: int = 0
    jobs: int = 0
    seconds: float = 0.0
    startup_seconds: float = 0.0  # of ``seconds``: starting the engine's own local cluster (0 on an existing one)
    meta: dict[str, Any] = field(default_factory=dict)


def plain_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """An engine's row as plain Python values for the sink: NaN (pandas' missing) as None, numpy scalars unwrapped."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if value is None or (isinstance(value, float) and value != value):
            out[key] = None
        elif hasattr(value, "item"):  # numpy scalars
            out[key] = value.item()
        else:
            out[key] = value
    return out


class Progress(Protocol):
    def __call__(self, logs: int, nbytes: int) -> object: ...


class Engine(Protocol):
    def scan(
        self,
        refs: Sequence[LogRef],
        payload: IndexPayload,
        options: FleetOptions,
        sink: FleetSink,
        scanned_at: int,
        progress: Progress | None,
    ) -> FleetRun: ...


def list_logs(patterns: Sequence[str]) -> list[str]:
    """Every file the patterns name (``**`` descends into folders), each once, in a stable order."""
    found: dict[str, None] = {}
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            matches = [str(p) for p in sorted(path.rglob("*")) if p.is_file() and not p.name.startswith(".")]
        else:
            matches = sorted(m for m in glob.glob(pattern, recursive=True) if Path(m).is_file())
        if not matches:
            raise NotFoundError(f"{pattern}: no log files match")
        for m in matches:
            found.setdefault(str(Path(m).absolute()), None)
    return list(found)


def load_engine(name: str) -> Engine:
    module_name = ENGINES.get(name)
    if module_name is None:
        raise UsageError(f"--engine: unknown engine {name!r} (choose from {', '.join(ENGINES)})")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        extra = EXTRA_OF.get(name, name)
        raise UsageError(
            f"--engine {name}: {exc.name or exc} is not installed; install it with: pip install 'rootcause[{extra}]'"
        ) from None
    return module.ENGINE


def scan_fleet(
    patterns: Sequence[str],
    options: FleetOptions,
    out: str | Path,
    progress: Progress | None = None,
    on_listed: Callable[[int, int], object] | None = None,
) -> FleetRun:
    """Scan every rank log the patterns name on the chosen engine; write ``out`` and its jobs table."""
    from rootcause.adapters.loading import load_index

    if options.batch_size < 1 or options.workers < 1 or options.group_budget < 1:
        raise UsageError("--batch-size, --workers and --group-budget must be positive")
    engine = load_engine(options.engine)
    layout = Layout(options.layout)
    paths = list_logs(patterns)
    refs = []
    for p in paths:
        place = layout.place(p)
        refs.append(LogRef(p, place.job, place.rank, place.host))
    if on_listed is not None:
        on_listed(len(refs), sum(Path(r.path).stat().st_size for r in refs))
    payload = make_payload(load_index(options.canon))
    sink = FleetSink(Path(out))
    started = time.perf_counter()
    scanned_at = now_ms()
    try:
        run = engine.scan(refs, payload, options, sink, scanned_at, progress)
        run.seconds = round(time.perf_counter() - started, 3)
        run.meta = {
            "engine": options.engine,
            "workers": options.workers,
            "address": options.address,
            "logs": run.logs,
            "bytes": run.bytes,
            "diagnosed": run.diagnosed,
            "jobs": run.jobs,
            "findings": run.findings,
            "seconds": run.seconds,
            "startup_seconds": round(run.startup_seconds, 3),
            "scanned_at": scanned_at,
            "canon": payload.digest,
            "layout": list(layout.patterns),
        }
        sink.close(run.meta)
    except BaseException:
        sink.abort()
        raise
    return run


def group_by_job(refs: Sequence[LogRef]) -> dict[str, list[tuple[str, int | None]]]:
    groups: dict[str, list[tuple[str, int | None]]] = {}
    for r in refs:
        groups.setdefault(r.job, []).append((r.path, r.rank))
    return groups
