"""Which ranks an input's lines belong to, from every line's prefix: a second, linear read for triage.

The one-pass prefilter keeps only the lines that hold a keyword, so a rank that printed nothing worth parsing (one
that finished its epoch and exited 0 while the others waited) leaves no trace of having existed. When the first
conclusion is `undecided` with no candidates, the adapter reads the inputs once more through this scanner, which
records per prefix the first and last line it was seen on:

- ``[rankN]:`` (global rank), ``[defaultN]:`` (torchrun's local rank), and
- Slurm's ``srun --label`` ``N: ``, counted only when nearly every line of the input carries one (a log that is
  not labelled may well hold lines that start with a number and a colon).

Cost: linear in the bytes (one anchored regex per line head), memory bounded by `MAX_PREFIXES` per input and a
line head of `HEAD` bytes carried between chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rootcause.core.triage.events import Ev
from rootcause.core.triage.state import Accumulator, Key, RankAcc

HEAD = 96  # a line's prefixes lie within its first bytes
MAX_PREFIXES = 1 << 14
SLURM_SHARE = 0.9  # the share of lines that must carry an srun label for the labels to count
_PREFIX = re.compile(
    rb"^(?:[ ]{0,3}(?P<slurm>\d{1,5}): )?(?:\[default(?P<local>\d{1,6})\]:)?(?:\[rank(?P<rank>\d{1,6})\]:)?",
    re.MULTILINE,
)

PrefixKey = tuple[str, int]  # ("rank" | "local" | "slurm", number)


@dataclass
class Presence:
    """What one input showed: per prefix, (first line, last line), 1-based."""

    lines: int = 0
    labelled: int = 0  # lines with an srun label
    seen: dict[PrefixKey, tuple[int, int]] = field(default_factory=dict)
    heads: dict[PrefixKey, bytes] = field(default_factory=dict)  # the head of each prefix's last line
    capped: bool = False

    def ranks(self) -> dict[PrefixKey, tuple[int, int]]:
        """The prefixes to trust: srun labels only when nearly every line carries one."""
        slurm_ok = self.lines > 0 and self.labelled >= SLURM_SHARE * self.lines
        return {k: v for k, v in self.seen.items() if k[0] != "slurm" or slurm_ok}


class PresenceScan:
    """Feed an input's bytes in order; `finish` gives its `Presence`."""

    def __init__(self) -> None:
        self._out = Presence()
        self._pending = b""  # the start (at most HEAD bytes) of the line not yet ended
        self._skip = False  # the current line's head was already read

    def feed(self, chunk: bytes) -> None:
        data = self._pending + chunk if self._pending else chunk
        self._pending = b""
        pos = 0
        if self._skip:
            nl = data.find(b"\n")
            if nl < 0:
                return
            self._out.lines += 1
            pos = nl + 1
            self._skip = False
        end = data.rfind(b"\n") + 1  # the complete lines are data[pos:end]
        if end > pos:
            self._heads(data, pos, end)
        rest = data[max(end, pos) :]
        if len(rest) >= HEAD:  # a long line: its head is here, skip to its end
            self._heads(rest[:HEAD] + b"\n", 0, HEAD + 1, count=False)
            self._skip = True
        else:
            self._pending = rest

    def finish(self) -> Presence:
        if self._pending:
            self._heads(self._pending + b"\n", 0, len(self._pending) + 1)
            self._pending = b""
        elif self._skip:
            self._out.lines += 1
            self._skip = False
        return self._out

    def _heads(self, data: bytes, pos: int, end: int, *, count: bool = True) -> None:
        out = self._out
        base = out.lines
        at, line = pos, base
        latest: dict[bytes, tuple[int, int, int]] = {}  # a prefix as written -> (last line, where, lines) here
        for m in _PREFIX.finditer(data, pos, end):
            start, stop = m.span()
            if start == stop:
                continue
            line += data.count(b"\n", at, start)
            at = start
            head = m.group(0)
            seen = latest.get(head)
            if seen is None:
                if len(latest) >= MAX_PREFIXES:
                    out.capped = True
                    continue
                self._first(head, line + 1)
            latest[head] = (line + 1, start, seen[2] + 1 if seen else 1)
        for head, (last, start, lines) in latest.items():
            stop = data.find(b"\n", start, min(start + HEAD, end))
            text = data[start : stop if stop >= 0 else min(start + HEAD, end)]
            keys = _keys(head)
            for key in keys:
                if key in out.seen:
                    out.seen[key] = (out.seen[key][0], last)
                    out.heads[key] = text
            if any(kind == "slurm" for kind, _ in keys):
                out.labelled += lines
        if count:
            out.lines = base + data.count(b"\n", pos, end)
        else:
            out.lines = base  # the long line is counted when it ends

    def _first(self, head: bytes, line: int) -> None:
        out = self._out
        for key in _keys(head):
            if key not in out.seen:
                if len(out.seen) >= MAX_PREFIXES:
                    out.capped = True
                    continue
                out.seen[key] = (line, line)


def _keys(head: bytes) -> list[PrefixKey]:
    m = _PREFIX.match(head)
    if m is None:
        return []
    return [(kind, int(v)) for kind in ("rank", "local", "slurm") if (v := m.group(kind)) is not None]


def apply_presence(acc: Accumulator, src: int, seen: Presence) -> None:
    """Each rank the second read saw in an input gets a log there and its last line (`RankAcc.seen_last`). Left
    out for an input that holds several attempts (its later lines belong to the restarts)."""
    info = acc.sources[src]
    if info.exits > 1 or info.path_attempt > 0:
        return
    for prefix, (_, last) in seen.ranks().items():
        kind, number = prefix
        key: Key = ("l", src, number) if kind == "local" else ("g", number)
        if kind == "local":
            info.local_ranks.add(number)
        state = acc.keys.setdefault(key, RankAcc())
        state.has_log = True
        if src not in state.sources and len(state.sources) < 8:
            state.sources.append(src)
        if src in state.seen_last or len(state.seen_last) < 8:
            state.seen_last[src] = max(last, state.seen_last.get(src, 0))
        if state.seen_ev is None or (state.seen_ev.src, state.seen_ev.line) < (src, last):
            text = seen.heads.get(prefix, b"").decode("utf-8", "replace").rstrip("\r")
            state.seen_ev = Ev(src, last, text, None, None, None, "last-line", key)
