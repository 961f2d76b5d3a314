"""Open the inputs of a diagnosis: files (plain or .gz), folders of rank logs, or stdin."""

from __future__ import annotations

import atexit
import gzip
import os
import re
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from rootcause.adapters.sizes import parse_size
from rootcause.core.diagnosis import SourceInput
from rootcause.errors import InputTooLargeError, NotFoundError, UsageError

CHUNK = 1 << 20
# rank3.log, rank_3.txt, 3/stderr.log (torchrun --log-dir), worker-3.log, node0-rank12.out
_RANK_IN_NAME = re.compile(r"(?:^|[^a-z])(?:rank|worker|proc)[_\-.]?(\d+)(?:\D|$)", re.IGNORECASE)
_RANK_DIR = re.compile(r"^\d+$")


def rank_from_path(path: Path) -> int | None:
    m = _RANK_IN_NAME.search(path.name)
    if m:
        return int(m.group(1))
    if _RANK_DIR.match(path.parent.name) and path.name.startswith(("stderr", "stdout", "error")):
        return int(path.parent.name)
    return None


def _read_chunks(path: Path) -> Iterator[bytes]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                yield chunk
    except (OSError, EOFError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None


DEFAULT_MAX_STDIN = 4 << 30  # ROOTCAUSE_MAX_STDIN_BYTES; a larger log is read from its file, unspooled


def max_stdin_bytes() -> int:
    raw = os.environ.get("ROOTCAUSE_MAX_STDIN_BYTES")
    return DEFAULT_MAX_STDIN if not raw else parse_size(raw, "ROOTCAUSE_MAX_STDIN_BYTES")


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds, so atexit removes the spool


def _remove_on_every_exit(path: Path) -> None:
    """Registered before the first byte is spooled: a normal exit, an error, Ctrl-C (KeyboardInterrupt)
    and SIGTERM or SIGHUP (turned into SystemExit here) all remove the file; only SIGKILL cannot."""
    atexit.register(lambda: path.unlink(missing_ok=True))
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, _exit_on_signal)


def spool_stdin(limit: int | None = None) -> Path:
    """Copy stdin to a temporary file in chunks, so it can be read twice in bounded memory; at most
    ``limit`` bytes (ROOTCAUSE_MAX_STDIN_BYTES, default 4 GiB) reach the disk."""
    limit = max_stdin_bytes() if limit is None else limit
    fd, name = tempfile.mkstemp(prefix="rootcause-stdin-", suffix=".log")
    path = Path(name)
    _remove_on_every_exit(path)
    try:
        with os.fdopen(fd, "wb") as out:
            stream = sys.stdin.buffer
            total = 0
            while chunk := stream.read(CHUNK):
                total += len(chunk)
                if total > limit:
                    raise InputTooLargeError(
                        f"<stdin>: more than {limit} bytes (ROOTCAUSE_MAX_STDIN_BYTES); pass a large log as a file"
                    )
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def materialise(paths: list[str]) -> list[tuple[str, Path]]:
    """(display name, file) for every input; '-' or nothing is stdin, spooled to a file."""
    named: list[tuple[str, Path]] = []
    if not paths or "-" in paths:
        named.append(("<stdin>", spool_stdin()))
    named += [(str(p), p) for p in expand_paths([p for p in paths if p != "-"])]
    return named


def files_below(folder: Path) -> list[Path]:
    """The files below a folder (hidden files left out), sorted. Walked with a stack, not recursion (a folder
    1,000 levels deep is no error); links to folders are not followed (no loops)."""
    found: list[Path] = []
    todo = [folder]
    while todo:
        here = todo.pop()
        try:
            entries = list(os.scandir(here))
        except OSError as exc:
            raise UsageError(f"{here}: cannot read: {exc.strerror or exc}") from None
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                todo.append(Path(entry.path))
            elif entry.is_file() and not entry.name.startswith("."):
                found.append(Path(entry.path))
    return sorted(found)


def expand_paths(paths: list[str]) -> list[Path]:
    """Files as given; folders become the log files below them, in a stable order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(files_below(path))
        elif path.is_file():
            files.append(path)
        else:
            raise NotFoundError(f"{raw}: no such file or directory")
    return files


def open_sources(named: list[tuple[str, Path]]) -> list[SourceInput]:
    """Every input as a lazily read source."""
    return [SourceInput(name, _read_chunks(path), rank_from_path(path)) for name, path in named]
