"""The canon as the MCP server holds it, on this machine or on the web service, and the
helpers that turn lookups and rootcause's own errors into MCP tool errors (see ``mcp_server``).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ToolError

from rootcause.core import agent_view as view
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry
from rootcause.errors import RootcauseError

if TYPE_CHECKING:
    from rootcause.adapters.web.state import ServiceState

ERROR_MAX = 2_000  # characters of one tool error


# -- the canon, as each host holds it ------------------------------------------------------------
class LocalCanon:
    """The canon of this machine, loaded on first use (the cached compiled index)."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self._extra = list(extra)
        self._index: CompiledIndex | None = None
        self._load_lock = threading.Lock()
        self._scan_lock = threading.Lock()  # hyperscan's scratch space serves one scan at a time

    def _loaded(self) -> CompiledIndex:
        if self._index is None:
            with self._load_lock:
                if self._index is None:
                    from rootcause.adapters.loading import load_index

                    self._index = load_index(self._extra)
        return self._index

    def warm(self) -> None:
        """Load ahead of the first call (a failure is raised again, with its message, at that call)."""
        with suppress(Exception):
            self._loaded()

    def entries(self) -> Mapping[str, Entry]:
        return self._loaded().entries

    @contextmanager
    def index(self) -> Iterator[CompiledIndex]:
        index = self._loaded()
        with self._scan_lock:
            yield index

    def entry(self, entry_id: str) -> Entry:
        return known_entry(self.entries(), entry_id)


class ServiceCanon:
    """The web service's canon: its thread-safe index, and rates measured from outcome reports."""

    def __init__(self, state: ServiceState) -> None:
        self.state = state

    def entries(self) -> Mapping[str, Entry]:
        return self.state.entries

    @contextmanager
    def index(self) -> Iterator[CompiledIndex]:
        yield self.state.thread_index()

    def entry(self, entry_id: str) -> Entry:
        return self.state.measured(known_entry(self.entries(), entry_id).id).entry


Canon = LocalCanon | ServiceCanon


ECHO_MAX = 120  # characters of an argument an error message repeats back


def echo(value: object) -> str:
    """An argument as an error message repeats it: quoted, on one line, at most ECHO_MAX characters
    (a 1 MiB argument must not come back as 1 MiB)."""
    text = str(value)
    shown = repr(view.flat(text, ECHO_MAX))
    return shown if len(text) <= ECHO_MAX else f"{shown} ({len(text)} characters)"


def known_entry(entries: Mapping[str, Entry], entry_id: str) -> Entry:
    wanted = entry_id.strip()
    entry = entries.get(wanted)
    if entry is not None:
        return entry
    close = difflib.get_close_matches(wanted, list(entries), n=3, cutoff=0.5) if len(wanted) <= ECHO_MAX else []
    hint = f" Did you mean: {', '.join(close)}?" if close else " search(query) finds entries by words."
    raise ToolError(f"no entry with id {echo(entry_id)}.{hint}")


@contextmanager
def as_tool_errors() -> Iterator[None]:
    """rootcause's own errors reach the agent as tool errors with their message."""
    try:
        yield
    except RootcauseError as exc:
        raise ToolError(view.flat(str(exc), ERROR_MAX)) from None
