"""The service's settings, from the environment (``rootcause serve`` sets them too)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from rootcause.adapters.sizes import human_size, parse_size
from rootcause.adapters.store import database_url
from rootcause.errors import UsageError

__all__ = ["Settings", "human_size", "parse_rate_limit", "parse_size"]

DEFAULT_MAX_UPLOAD = 32 << 20
DEFAULT_RATE_LIMIT = "30/minute"
_UNITS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}
_RATE_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)?\s*([a-z]+?)s?\s*$")


def parse_rate_limit(spec: str) -> tuple[int, int] | None:
    """'30/minute' → (30, 60); '100/10s' → (100, 10); 'off' → None."""
    if spec.strip().lower() in ("off", "none", "0"):
        return None
    m = _RATE_RE.match(spec.lower())
    if not m or m.group(3) not in _UNITS or int(m.group(1)) < 1:
        raise UsageError(f"ROOTCAUSE_RATE_LIMIT: expected N/second|minute|hour|day, got {spec!r}")
    return int(m.group(1)), int(m.group(2) or 1) * _UNITS[m.group(3)]


@dataclass(frozen=True)
class Settings:
    database_url: str
    host: str = "127.0.0.1"
    port: int = 8000
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD
    rate_limit: tuple[int, int] | None = (30, 60)
    canon: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        try:
            port = int(env.get("ROOTCAUSE_PORT", "8000"))
        except ValueError:
            raise UsageError("ROOTCAUSE_PORT: not a number") from None
        return cls(
            database_url=database_url(),
            host=env.get("ROOTCAUSE_HOST", "127.0.0.1"),
            port=port,
            max_upload_bytes=parse_size(env.get("ROOTCAUSE_MAX_UPLOAD_BYTES", str(DEFAULT_MAX_UPLOAD))),
            rate_limit=parse_rate_limit(env.get("ROOTCAUSE_RATE_LIMIT", DEFAULT_RATE_LIMIT)),
        )
