"""A byte-count progress bar on stderr, for long scans (only on a terminal, only for big inputs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

PROGRESS_MIN_BYTES = 16 << 20


@contextmanager
def byte_progress(label: str, total: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    """Yield a callback that advances the bar by n bytes (a no-op when no bar is shown)."""
    if not enabled or total < PROGRESS_MIN_BYTES:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    columns = ("[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)
