"""The raw-text prefilter: one hyperscan database of every scanned pattern's loosened form, checked against the
canon's own examples before it is used.

Each scanned pattern is held by its prefilter form (``patterns.prefilter_source`` of ``heads.scan_tail``), or, in a
large canon, by literals (``large_prefilter``). The database must never miss a line its pattern matches: the scan
confirms only the lines it halts on. Hyperscan 5.4 (python-hyperscan 0.9.1) does miss some, with or without
``HS_FLAG_PREFILTER``: ``(?:zsh: |\\d+ +)(?:segmentation fault|bus error|floating point exception|illegal hardware
instruction)(?: \\(core dumped\\))? +python`` finds ``zsh: segmentation fault  python`` on its own but not after a
line of twelve or more characters (``HS_FLAG_SOM_LEFTMOST`` finds it). So the build scans each pattern's own
example lines, alone and after other lines (``PROBE_PREFIXES``); a pattern the database misses is held by its
literals instead, which hyperscan finds by a plain literal search, and the database is compiled again.
``Prefilter.blind`` lists the patterns it still misses (none has literals to be held by): ``rootcause lint``
reports them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rootcause.core.matching.heads import scan_tail
from rootcause.core.matching.large_prefilter import (
    hyperscan_literal,
    last_line_literal,
    literal_cover,
    unbounded_repeats,
)
from rootcause.core.matching.patterns import compile_re2, prefilter_source
from rootcause.errors import PatternError

try:  # hyperscan ships x86-64 wheels only
    import hyperscan
except ImportError:  # pragma: no cover - exercised on other architectures
    hyperscan = None  # type: ignore[assignment]

# What may stand before a pattern's line in a paste: nothing, a long unrelated line (the case Hyperscan 5.4 misses
# above), a Python import and a traceback's head.
PROBE_PREFIXES = (b"", b"x" * 40 + b"\n", b"import numpy\n", b"Traceback (most recent call last):\n")
PROBE_LINE_MAX = 2000  # an example line longer than this is not probed (a pasted log's one enormous line)
HEAL_LITERAL_MIN = 3  # a healed pattern's literals may be short: it is one of a few
PROBES_PER_PATTERN = 4  # texts of a pattern scanned at most, once behind each prefix


@dataclass(frozen=True)
class Scanned:
    """What the prefilter needs of one scanned pattern: its regex and window, and the texts of its own entry (its
    signature and examples), whose lines (one-line pattern) or whole texts (multi-line) that the pattern matches are
    the probes; they are read only for a pattern the database holds by its regex."""

    regex: str
    window: int
    owner: str
    texts: tuple[str, ...] = ()

    def probes(self) -> tuple[str, ...]:
        try:
            return probe_texts(compile_re2(self.regex), self.window, self.texts)
        except PatternError:
            return ()


@dataclass
class Prefilter:
    db: Any
    by_literal: set[int] = field(default_factory=set)  # patterns held by literals, not by their loosened form
    blind: list[int] = field(default_factory=list)  # patterns the database misses on their own examples


def literal_hold(regex: str, window: int, minimum: int) -> tuple[list[str], int] | None:
    """A pattern's literals as hyperscan expressions, and their flags: a one-line pattern's cover, a multi-line
    pattern's literal on the line where its match ends. None when it has none."""
    if window == 1:
        texts, caseless = literal_cover(regex, minimum)
    else:
        literal = last_line_literal(regex)
        texts, caseless = ((literal,) if len(literal) >= minimum else ()), False
    if not texts or any("\n" in t for t in texts):
        return None
    return [hyperscan_literal(t) for t in texts], hyperscan.HS_FLAG_CASELESS if caseless else 0


def literal_holds(patterns: Iterable[tuple[str, int]], minimum: int) -> dict[int, tuple[list[str], int]]:
    """A large canon's holds: each (regex, window) that has literals, by its position (``literal_hold``)."""
    return {i: h for i, (regex, window) in enumerate(patterns) if (h := literal_hold(regex, window, minimum))}


def build_prefilter(
    scanned: list[Scanned], extra: list[str], *, large_holds: dict[int, tuple[list[str], int]], large: bool
) -> Prefilter:
    """The database of ``scanned`` (ids 0..n-1) and the ``extra`` regexes after them (ids n, n+1, ...), healed of its
    blind spots (module docstring); a large canon's patterns held by ``large_holds`` (``literal_holds``)."""
    held = dict(large_holds)
    db = _compile(scanned, extra, held, large)
    blind = _missed(db, scanned, large_holds)  # a literal hold is a plain literal search: nothing to probe
    healed = {i: h for i in blind if (h := literal_hold(scanned[i].regex, scanned[i].window, HEAL_LITERAL_MIN))}
    if healed:
        held.update(healed)
        db = _compile(scanned, extra, held, large)
        blind = _missed(db, scanned, large_holds)
    return Prefilter(db, set(held), blind)


def _compile(scanned: list[Scanned], extra: list[str], held: dict[int, tuple[list[str], int]], large: bool) -> Any:
    flags = hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_ALLOWEMPTY
    sources, all_flags = [], []
    more: list[tuple[int, str, int]] = []  # a pattern's further literals, after the built-in ones, under its id
    for i, p in enumerate(scanned):
        hold = held.get(i)
        if hold is not None:
            sources.append(hold[0][0])
            all_flags.append(hold[1])
            more += [(i, text, hold[1]) for text in hold[0][1:]]
            continue
        source = prefilter_source(scan_tail(p.regex))
        sources.append(unbounded_repeats(source) if large else source)
        all_flags.append(flags)
    sources += extra
    all_flags += [flags] * len(extra)
    ids = list(range(len(sources))) + [i for i, _text, _flags in more]
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        db.compile(
            expressions=[s.encode() for s in sources] + [text.encode() for _i, text, _flags in more],
            ids=ids,
            elements=len(ids),
            flags=all_flags + [f for _i, _text, f in more],
        )
    except hyperscan.error as exc:
        raise PatternError(f"hyperscan cannot compile {_first_bad(scanned, sources, flags)}: {exc}") from None
    return db


def _first_bad(scanned: list[Scanned], sources: list[str], flags: int) -> str:
    for i, src in enumerate(sources):
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        try:
            db.compile(expressions=[src.encode()], ids=[0], elements=1, flags=[flags])
        except hyperscan.error:
            owner = scanned[i].owner if i < len(scanned) else "built-in"
            return f"{owner}: {src!r}"
    return "the database"


def _missed(db: Any, scanned: list[Scanned], skip: dict[int, tuple[list[str], int]]) -> list[int]:
    """The patterns that the database does not report on one of their probe texts after one of the prefixes."""
    scratch = hyperscan.Scratch(db)
    found: set[int] = set()

    def on_match(pattern_id: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
        found.add(pattern_id)

    def finds(pattern_id: int, data: bytes) -> bool:
        found.clear()
        db.scan(data, match_event_handler=on_match, scratch=scratch)
        return pattern_id in found

    return [
        i
        for i, p in enumerate(scanned)
        if i not in skip
        and not all(
            finds(i, prefix + text.encode("utf-8", "replace") + b"\n")
            for text in p.probes()[:PROBES_PER_PATTERN]
            for prefix in PROBE_PREFIXES
        )
    ]


def probe_texts(regex: Any, window: int, texts: Iterable[str]) -> tuple[str, ...]:
    """The texts (one-line pattern: their lines) that ``regex`` (compiled RE2) matches, short enough to probe."""
    pieces = (line for text in texts for line in text.splitlines()) if window == 1 else iter(texts)
    return tuple(dict.fromkeys(t for t in pieces if len(t) <= PROBE_LINE_MAX * window and regex.search(t)))
