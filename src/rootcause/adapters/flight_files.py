"""Flight Recorder dumps among the inputs: told apart from logs by their first bytes, read whole (bounded)."""

from __future__ import annotations

from pathlib import Path

from rootcause.core.triage.flight_load import MAX_DUMP_BYTES, DumpError, looks_like_dump
from rootcause.errors import UsageError


def split_dumps(named: list[tuple[str, Path]]) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(logs, Flight Recorder dumps) of the inputs."""
    logs: list[tuple[str, Path]] = []
    dumps: list[tuple[str, Path]] = []
    for name, path in named:
        try:
            with path.open("rb") as fh:
                head = fh.read(4096)
        except OSError as exc:
            raise UsageError(f"{name}: cannot read: {exc}") from None
        (dumps if path.suffix != ".gz" and looks_like_dump(head) else logs).append((name, path))
    return logs, dumps


def read_dump(name: str, path: Path) -> bytes:
    with path.open("rb") as fh:
        data = fh.read(MAX_DUMP_BYTES + 1)
    if len(data) > MAX_DUMP_BYTES:
        raise DumpError(f"{name}: larger than the {MAX_DUMP_BYTES} bytes a Flight Recorder dump may have")
    return data
