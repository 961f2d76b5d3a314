"""Where a log sits in a fleet: its job, rank and host, read from its path.

The default layouts cover ``<job>/<host>/rank<N>.log`` and ``<job>/rank<N>.log`` (also
``worker<N>``, ``proc<N>``, torchrun's ``<job>/.../<local_rank>/stderr.log``). A fleet with another
layout passes its own regular expression with the named groups ``job`` (required), ``rank`` and ``host``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rootcause.errors import UsageError

_RANK_FILE = r"[^/]*?(?:rank|worker|proc)[_\-.]?(?P<rank>\d+)[^/]*"
DEFAULT_LAYOUTS: tuple[str, ...] = (
    rf"(?:^|/)(?P<job>[^/]+)/(?P<host>[^/]+)/{_RANK_FILE}$",
    rf"(?:^|/)(?P<job>[^/]+)/{_RANK_FILE}$",
    r"(?:^|/)(?P<job>[^/]+)/(?:[^/]+/)*(?P<rank>\d+)/(?:stderr|stdout|error)[^/]*$",
    r"(?:^|/)(?P<job>[^/]+)/[^/]+$",
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
