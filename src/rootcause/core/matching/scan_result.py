"""What a streaming scan (``scan.SourceScanner``) gives back: its hits and its result."""

from __future__ import annotations

from dataclasses import dataclass, field

from rootcause.core.versions import Environment

MAX_LINE = 64 << 10  # longer lines are cut for matching (hostile input)


@dataclass(slots=True)
class Hit:
    pattern: int
    line: int  # 1-based line number of the last line of the match
    first_line: int
    raw: str
    clean: str
    params: dict[str, str]
    rank: int | None
    context: str = ""  # a multi-line pattern's window (the lines before, cleaned): the traceback's frames


@dataclass
class ScanResult:
    lines: int = 0
    bytes: int = 0
    hits: list[Hit] = field(default_factory=list)
    errorish: list[tuple[int, str, str, int | None]] = field(default_factory=list)
    env: Environment = field(default_factory=dict)
    truncated_hits: int = 0
    open_end: bool = False  # a small input whose last line has no line break: a paste that may be cut there
    # lines whose message the paste's traceback shows was raised outside its pattern's `raised_in` (matching/frames.py)
    raised_elsewhere: set[int] = field(default_factory=set)
