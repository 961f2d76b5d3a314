"""Where a log sits in a fleet: its job, rank and host, read from its path.

The default layouts cover torchrun's ``--log-dir`` tree (``<run>/attempt_<n>/<local_rank>/stderr.log``:
the job is the run), ``<job>/<host>/rank<N>.log`` and ``<job>/rank<N>.log`` (also ``worker<N>``,
``proc<N>``), one log per node (``<job>/node3.log``), and otherwise one job per file (``<folder>/<name>``).
A fleet with another layout passes its own regular expression with the named groups ``job`` (required),
``rank`` and ``host``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rootcause.errors import UsageError

_RANK_FILE = r"[^/]*?(?:rank|worker|proc)[_\-.]?(?P<rank>\d+)[^/]*"
_STREAM_FILE = r"(?:stderr|stdout|error)[^/]*"
# a folder or file named for a machine: node-013, host7, nid001234, gpu-a3, compute-2, ip-10-0-0-7, 10.0.0.7
_NODE = r"(?:(?:node|host|nid|gpu|compute|ip)[_\-.]?[A-Za-z0-9\-]*|\d+\.\d+\.\d+\.\d+)"
_NODE_FILE = rf"(?P<host>{_NODE})(?:\.[A-Za-z]+[A-Za-z0-9]*)+"
DEFAULT_LAYOUTS: tuple[str, ...] = (
    # torchrun --log-dir: <log-dir>/<run_id>/attempt_<n>/<local_rank>/stderr.log; the job is the run
    rf"(?:^|/)(?P<job>[^/]+)/attempt_\d+/(?P<rank>\d+)/{_STREAM_FILE}$",
    rf"(?:^|/)(?P<job>[^/]+)/(?P<rank>\d+)/{_STREAM_FILE}$",
    rf"(?:^|/)(?P<job>[^/]+)/(?P<host>{_NODE})/{_RANK_FILE}$",
    rf"(?:^|/)(?P<job>[^/]+)/{_RANK_FILE}$",
    # one log per node in the job's folder: <job>/node3.log, <job>/host-a17.out
    rf"(?:^|/)(?P<job>[^/]+)/{_NODE_FILE}$",
    # any other file is a job of its own, named by its folder and its name without extensions
    r"(?:^|/)(?P<job>[^/]+/[^/.]+)[^/]*$",
)


@dataclass(frozen=True)
class LogPlace:
    job: str
    rank: int | None
    host: str | None


class Layout:
    """Reads job, rank and host from a log's path (forward slashes; a URL's scheme is ignored)."""

    def __init__(self, patterns: tuple[str, ...] | list[str] | None = None) -> None:
        sources = tuple(patterns) if patterns else DEFAULT_LAYOUTS
        self.patterns = sources
        self._compiled: list[re.Pattern[str]] = []
        for src in sources:
            try:
                rx = re.compile(src)
            except re.error as exc:
                raise UsageError(f"--layout: {src!r} is not a regular expression: {exc}") from None
            if "job" not in rx.groupindex:
                raise UsageError(f"--layout: {src!r} has no named group 'job'")
            self._compiled.append(rx)

    def place(self, path: str) -> LogPlace:
        path = path.replace("\\", "/")
        path = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.\-]*://", "/", path)  # file://, s3://, hdfs://
        for rx in self._compiled:
            m = rx.search(path)
            if m is None:
                continue
            groups = m.groupdict()
            rank = groups.get("rank")
            return LogPlace(job=groups["job"], rank=int(rank) if rank else None, host=groups.get("host") or None)
        return LogPlace(job=path.rsplit("/", 1)[0] or path, rank=None, host=None)
