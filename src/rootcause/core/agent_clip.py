"""Budgets and clipping for answers sized for a model's context (see ``agent_view``).

The character budgets of one answer, and the helpers that shorten text to fit them:
head-and-tail clipping, one-line flattening, and the head-and-tail cut of a huge input.

Pure: data in, strings out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Format = Literal["text", "json"]

MAX_CHARS = 4_000  # one compact answer (diagnose, get_entry, search)
DETAIL_MAX_CHARS = 24_000  # one answer with detail=true
MAX_FINDINGS = 3
DETAIL_MAX_FINDINGS = 10
MAX_WORKAROUNDS = 3
MAX_DEAD_ENDS = 3
MAX_MORE_IDS = 20
MAX_TEXT_BYTES = 1 << 20  # larger inputs keep their head and tail
ELLIPSIS = " … "


# -- truncation helpers ------------------------------------------------------------------------
def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: the head and the tail, joined by an ellipsis."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS) + 2:
        return text[:limit]
    keep = limit - len(ELLIPSIS)
    head = (keep * 2 + 2) // 3
    return text[:head].rstrip() + ELLIPSIS + text[len(text) - (keep - head) :].lstrip()


_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]")


def flat(text: str, limit: int) -> str:
    """One line (terminal colour codes and control characters out, whitespace collapsed), clipped."""
    return clip(" ".join(_CONTROL.sub("", text).split()), limit)


@dataclass(frozen=True)
class TruncatedInput:
    text: str
    dropped_bytes: int = 0
    head_bytes: int = 0
    tail_bytes: int = 0

    @property
    def note(self) -> str | None:
        if not self.dropped_bytes:
            return None
        return (
            f"input truncated: {self.dropped_bytes} bytes dropped from the middle "
            f"(kept the first {self.head_bytes} and the last {self.tail_bytes} bytes); "
            "line numbers after the cut count from the marker line"
        )


def truncate_input(text: str, max_bytes: int = MAX_TEXT_BYTES) -> TruncatedInput:
    """Keep the head and the tail of a huge text (cut at line ends), with a marker line between."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return TruncatedInput(text)
    half = max_bytes // 2
    head = data[:half]
    cut = head.rfind(b"\n")
    if cut > half // 2:
        head = head[: cut + 1]
    tail = data[len(data) - half :]
    cut = tail.find(b"\n")
    if 0 <= cut < half // 2:
        tail = tail[cut + 1 :]
    dropped = len(data) - len(head) - len(tail)
    marker = f"\n[… rootcause dropped {dropped} bytes here …]\n"
    joined = head.decode("utf-8", "ignore") + marker + tail.decode("utf-8", "ignore")
    return TruncatedInput(joined, dropped, len(head), len(tail))


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
