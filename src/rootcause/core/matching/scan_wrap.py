"""Second chances for small inputs, at the end of a scan: wrapped lines rejoined (a terminal's fixed
width, or a hand's break between words) and pastes cut short matched by the truncated patterns.

A mixin of ``scan.SourceScanner``, whose state it reads; it runs once per input, from ``finish()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rootcause.core.matching.frames import FRAME_LINE, MAX_CHECKED_HITS, raised_elsewhere
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.matching.scan_result import MAX_LINE, Hit, ScanResult
from rootcause.core.normalize import CleanLine, json_escaped, strip_framing

WRAP_WIDTHS = frozenset({80, 100, 120, 132, 150, 160, 200, 240})  # terminals cut mid-word at these
HAND_WRAP = (60, 120)  # users and mail clients break between words at about these widths
MAX_WRAPPED = 6  # the most lines of one wrapped message that are rejoined


def _frame_source_line(lines: list[str], n: int) -> bool:
    """Whether line ``n`` (1-based) is a traceback frame's source line (``    from torch._C import *`` under
    ``  File ".../torch/__init__.py", line 78, in <module>``): code, not a message cut short, whatever words it
    shares with one."""
    if n < 2:
        return False
    frame = FRAME_LINE.match(strip_framing(lines[n - 2][:MAX_LINE]).text)
    if frame is None:
        return False
    code = strip_framing(lines[n - 1][:MAX_LINE]).text
    indent = len(code) - len(code.lstrip())
    return bool(code.strip()) and indent > len(frame.group("indent"))


class WrapRepair:
    """Wrap repair and truncated-pattern matching of one scan's lines."""

    index: CompiledIndex
    result: ScanResult
    _scratch: Any
    _max_hits: int

    if TYPE_CHECKING:

        def _note_rank(self, rank: int | None) -> None: ...

        def _family(self, pattern: int) -> bool: ...

    def _match_truncated(self, lines: list[str]) -> None:
        """A paste cut short: each line that no pattern matched, tried against the truncated patterns (small
        inputs only; core/matching/heads.py). A line pasted inside a JSON string is tried against every
        one-line pattern too: the raw text's escapes hid it from the scan. A line that only a family entry matched
        is tried too: another entry's cut form ranks above the family (docs/ranking.md). A line cut where two
        entries still agree names neither; a family entry is not one of the two: cut where only a family and one
        member agree, the member answers, and cut before any member's words, the family does (``cannot import name
        'X' from 'peft.m`` is the missing-name family's, whatever follows)."""
        matched_lines = {
            n
            for h in self.result.hits
            if not self._family(h.pattern)
            for n in range(max(h.first_line, h.line - MAX_WRAPPED), h.line + 1)
        }
        todo = [n for n in range(1, len(lines) + 1) if n not in matched_lines]
        for n in sorted(self._may_be_cut(lines, todo)):
            if len(self.result.hits) >= self._max_hits:
                break
            if _frame_source_line(lines, n):  # checked on the few lines that may be cut, not on every line
                continue
            line = lines[n - 1]
            clean = strip_framing(line[:MAX_LINE])
            found = self.index.truncated_candidates(clean.text)
            if json_escaped(line):
                found += self.index.candidates(clean.text, 1, self._scratch)
            hits = [(p, params) for p in found if (params := self.index.confirm(p, clean.text)) is not None]
            cut = {self.index.patterns[p].entry_id for p, _ in hits if self.index.patterns[p].truncated}
            if len(cut) > 1:
                members = {self.index.patterns[p].entry_id for p, _ in hits if not self._family(p)}
                families = {self.index.patterns[p].entry_id for p, _ in hits if self._family(p)}
                if len(members) > 1 or (not members and len(families) > 1):
                    continue  # cut before the words that tell two entries apart: it names neither
            for p, params in hits:
                self.result.hits.append(Hit(p, n, n, line[:2000], clean.text[:2000], params, clean.rank))

    def _drop_raised_elsewhere(self, lines: list[str]) -> None:
        """A hit of a pattern scoped to its callers' modules (``raised_in``) on a line whose traceback, shown above
        it, passes through none of them is dropped, and its line noted, so that the lexical stage does not claim
        it either: the message is a Python library's own, raised by another program (core/matching/frames.py)."""
        patterns = self.index.patterns
        if not any(patterns[hit.pattern].raised_in for hit in self.result.hits):
            return
        kept: list[Hit] = []
        checks = 0
        for hit in self.result.hits:
            modules = patterns[hit.pattern].raised_in
            if modules and checks < MAX_CHECKED_HITS:  # bounded: a hostile paste repeats the message
                checks += 1
                if raised_elsewhere(lines, hit.first_line, modules):
                    self.result.raised_elsewhere.add(hit.line)
                    continue
            kept.append(hit)
        self.result.hits = kept

    def _may_be_cut(self, lines: list[str], numbers: list[int]) -> set[int]:
        """Of the given line numbers, those a truncated pattern may match, from one literal scan of them all (the
        cleaned line is the raw one less its framing, so it holds a literal only if the raw line does), and those
        whose cleaning changes more than their ends: a line pasted in a JSON string, or with ANSI codes."""
        raw = [lines[n - 1][:MAX_LINE] for n in numbers]
        holding = self._holding_cut_literals(raw)
        return {n for k, n in enumerate(numbers) if k in holding or "\x1b" in raw[k] or json_escaped(raw[k])}

    def _holding_cut_literals(self, texts: list[str]) -> set[int]:
        """The indexes of the texts that hold a truncated pattern's literal (all of them without hyperscan)."""
        cut = self.index.cut_prefilter()
        return set(range(len(texts))) if cut is None else cut.holding(texts)

    def _repair_wrapped(self, lines: list[str]) -> None:
        """Terminals wrap long lines at a fixed width, users and mail clients between words; rejoin and match
        them (small inputs): each pair of lines, and each run of up to ``MAX_WRAPPED`` wrapped lines, whose joined
        text may also end mid-message (the truncated forms are tried on it)."""
        seen = {(h.pattern, h.line) for h in self.result.hits}
        joins = self._joins(lines)
        texts = [joined.text for _i, joined, _last in joins]
        runs = [k for k, (i, _joined, last) in enumerate(joins) if last > i + 1]
        may_be_cut = {runs[k] for k in self._holding_cut_literals([texts[k] for k in runs])}
        for k, (i, joined, last) in enumerate(joins):
            found = self.index.candidates(joined.text, 1, self._scratch)
            if last > i + 1 and not any(self.index.confirm(p, joined.text) for p in found):
                found = self._unambiguous_cuts(joined.text) if k in may_be_cut else []
            for p in found:
                if any((p, n) in seen for n in range(i + 1, last + 2)):
                    continue
                params = self.index.confirm(p, joined.text)
                if params is not None:
                    raw = "".join(lines[i : last + 1])
                    self.result.hits.append(Hit(p, last + 1, i + 1, raw[:2000], joined.text, params, joined.rank))
                    seen.add((p, last + 1))
                    self._note_rank(joined.rank)

    def _joins(self, lines: list[str]) -> list[tuple[int, CleanLine, int]]:
        """Each join to try, in order: (its first line's index, the joined text, its last line's index): each pair
        of lines whose first is at a terminal's width or a hand's, and the longest run of wrapped lines from each
        line that starts one, once."""
        joins: list[tuple[int, CleanLine, int]] = []
        end = 0
        for i in range(len(lines) - 1):
            first = lines[i].rstrip("\r")
            width = len(first)
            here = [(i, strip_framing(first + lines[i + 1]), i + 1)] if width in WRAP_WIDTHS else []
            if HAND_WRAP[0] <= width <= HAND_WRAP[1]:
                head = strip_framing(first)
                joined = CleanLine(f"{head.text} {strip_framing(lines[i + 1]).text.lstrip()}", head.rank)
                here.append((i, joined, i + 1))
            if i >= end and here:  # the longest run of wrapped lines from here, once
                end = self._wrapped_run(lines, i)
                if end > i + 1:
                    here.append((i, self._join(lines, i, end), end))
            joins += here
        return joins

    @staticmethod
    def _wrapped_run(lines: list[str], start: int) -> int:
        """The index of the last line of the run of wrapped lines that starts at ``start``."""
        width = len(lines[start].rstrip("\r"))
        n = start
        while n + 1 < len(lines) and n - start < MAX_WRAPPED - 1:
            w = len(lines[n].rstrip("\r"))
            if not (w == width and w in WRAP_WIDTHS) and not HAND_WRAP[0] <= w <= HAND_WRAP[1]:
                break
            n += 1
        return n

    @staticmethod
    def _join(lines: list[str], start: int, end: int) -> CleanLine:
        """Lines start..end as one: at a terminal's width, glued; otherwise with a space between words."""
        first = lines[start].rstrip("\r")
        head = strip_framing(first)
        text, width = head.text, len(first)
        gap = first[len(first.rstrip()) :]  # a terminal cut the line inside the blanks the cleaning drops
        for n in range(start + 1, end + 1):
            raw = lines[n].rstrip("\r")
            part = strip_framing(raw).text
            text += gap + part if width in WRAP_WIDTHS else " " + part.lstrip()
            gap = raw[len(raw.rstrip()) :]
        return CleanLine(text[:MAX_LINE], head.rank)

    def _unambiguous_cuts(self, text: str) -> list[int]:
        """The truncated patterns that match a text, unless they name more than one entry."""
        found = [p for p in self.index.truncated_candidates(text) if self.index.confirm(p, text) is not None]
        return found if len({self.index.patterns[p].entry_id for p in found}) == 1 else []
