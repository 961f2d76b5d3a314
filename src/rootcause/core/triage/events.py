"""One candidate line as evidence, and the provisional key of the rank it belongs to while streaming."""

from __future__ import annotations

from dataclasses import dataclass

Key = tuple[object, ...]


@dataclass(slots=True)
class Ev:
    """One candidate line, as evidence.

    ``t`` is the line's own timestamp; a line without one gets only ``lo``, a lower bound: the latest
    timestamp before it in the same input. Orderings that decide a conclusion use ``t`` only.
    """

    src: int
    line: int
    text: str
    t: float | None
    lo: float | None
    shown: str | None
    kind: str
    key: Key

    def order(self) -> tuple[int, float, int, int]:
        return (0 if self.lo is None else 1, self.lo or 0.0, self.src, self.line)
