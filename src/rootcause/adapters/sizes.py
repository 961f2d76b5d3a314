"""Sizes in settings: '33554432', '32MiB', '512k' (no heavy imports: the CLI reads them too)."""

from __future__ import annotations

import re

from rootcause.errors import UsageError

_SIZE_RE = re.compile(r"^\s*(\d+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)


def parse_size(spec: str, variable: str = "ROOTCAUSE_MAX_UPLOAD_BYTES") -> int:
    """'33554432', '32MiB', '512k' → bytes."""
    m = _SIZE_RE.match(spec)
    if not m:
        raise UsageError(f"{variable}: not a size: {spec!r}")
    unit = (m.group(2) or "b").lower()[0]
    return int(m.group(1)) * {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[unit]


def human_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"
