"""Timestamps on raw log lines, as a sortable number of seconds and a short display form.

Formats (reference note §1a, §4.4, §5.1):
- c10 logger 2.4+ ``[E1206 18:44:16.994932383 file.cpp:1709]``; the month is not zero-padded
  (``[E709 17:05:38…]``), and the 9-digit fraction is CLOCK_MONOTONIC nanoseconds, not wall-clock
  time, so it is ignored (c10/util/Logging.cpp);
- glog ``E1202 14:40:51.868000 24393 file.py:1002]`` (torchrun's agent, 2.3+), 6-digit fraction;
- ISO ``2026-12-02 14:40:52,123`` (Python logging), ``[2026-12-02 14:40:52]`` (NCCL 2.26+ WARN);
- torchrun's ChildFailedError ``time      : 2026-12-02_14:40:52``.

The year is ignored (most formats lack it), so ordering is wrong only across New Year.
"""

from __future__ import annotations

import re

_C10 = re.compile(r"(?:^|[\[\s:])[IWEF](?P<md>\d{3,4}) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:\.(?P<f>\d+))?")
_ISO = re.compile(r"\d{4}-(?P<mo>\d\d)-(?P<d>\d\d)[ T_](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:[.,](?P<f>\d+))?")
HEAD = 200  # a timestamp must start within this many characters


def line_time(raw: str) -> tuple[float, str] | None:
    """(sort key in seconds, "MM-DD HH:MM:SS[.fff]") of the first timestamp on the line."""
    head = raw[:HEAD]
    if ":" not in head:
        return None
    m = _C10.search(head)
    if m is not None:
        md = m["md"]
        month, day = int(md[:-2]), int(md[-2:])
        frac = m["f"] if m["f"] and len(m["f"]) < 9 else None
        return _key(month, day, m, frac)
    m = _ISO.search(head)
    if m is not None:
        return _key(int(m["mo"]), int(m["d"]), m, m["f"])
    return None


def _key(month: int, day: int, m: re.Match[str], frac: str | None) -> tuple[float, str] | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    h, mi, s = int(m["h"]), int(m["mi"]), int(m["s"])
    seconds = ((month * 32 + day) * 24 + h) * 3600 + mi * 60 + s
    shown = f"{month:02d}-{day:02d} {h:02d}:{mi:02d}:{s:02d}"
    if frac:
        seconds += int(frac) / 10 ** len(frac)
        shown += f".{frac[:3]}"
    return float(seconds), shown


def last_time(context: str) -> tuple[float, str] | None:
    """The latest timestamp in the lines before an undated line: a lower bound of its time.

    Walks back from the nearest line, so the usual case (the line before is dated) costs one match.
    """
    end = len(context)
    while end > 0:
        start = context.rfind("\n", 0, end) + 1
        found = line_time(context[start:end])
        if found is not None:
            return found
        end = start - 1
    return None
