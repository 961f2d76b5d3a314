"""Answers sized for a model's context: compact, size-bounded views of a diagnosis,
of an entry and of search results, for coding agents (the MCP server).

An agent pays for every token, so each answer has a hard character budget. A view is
first built with generous per-field caps; when it does not fit, the caps tighten level
by level (shorter lines, fewer workarounds, no explanations) until it does. Nothing is
cut silently: every shortened answer says so and how to get the rest.

Workarounds and dead ends carry their index in the entry, the number that
``report_outcome`` takes.

Pure: data in, strings out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rootcause.core.atlas.located import Located
from rootcause.core.diagnosis import Diagnosis, Finding
from rootcause.core.model import Entry
from rootcause.core.render.labels import Lang, pick
from rootcause.core.render.located import located_where

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
HINT_TEXT = (
    "next: get_entry(id) for the whole entry; after trying a workaround, "
    "report_outcome(id, index=<index>, result=worked|partial|failed)"
)


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


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- per-field caps, loosest first ---------------------------------------------------------------
@dataclass(frozen=True)
class Caps:
    signature: int
    line: int
    params: int
    param_value: int
    root_cause: int
    versions: int
    workarounds: int
    action: int
    how: int
    condition: int
    dead_ends: int
    dead_action: int
    why: int


LEVELS: tuple[Caps, ...] = (
    Caps(300, 400, 12, 120, 600, 200, MAX_WORKAROUNDS, 240, 700, 200, MAX_DEAD_ENDS, 160, 300),
    Caps(200, 240, 10, 100, 400, 120, MAX_WORKAROUNDS, 160, 400, 120, MAX_DEAD_ENDS, 120, 160),
    Caps(160, 200, 8, 80, 240, 80, 2, 140, 240, 0, 2, 100, 100),
    Caps(140, 160, 6, 60, 160, 0, 1, 120, 160, 0, 2, 80, 0),
    Caps(120, 120, 4, 40, 0, 0, 1, 100, 0, 0, 1, 60, 0),
    Caps(80, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),  # the last resort: what matched, and where
)
DETAIL_CAPS = Caps(2000, 2000, 64, 500, 8000, 2000, 99, 2000, 8000, 1000, 99, 1000, 2000)


@dataclass(frozen=True)
class Item:
    """A workaround or a dead end, with its index in the entry (None when unknown)."""

    index: int | None
    action: str
    text: str  # a workaround's how, a dead end's why_fails
    rate: float
    basis: str
    condition: str | None = None
    repeats: bool = False  # the how says nothing the action does not (imported entries often)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _workarounds(f: Finding, entry: Entry | None) -> list[Item]:
    if entry is None:
        return [
            Item(None, w.action, w.how, w.success_rate, w.basis, w.condition, _same(w.how, w.action))
            for w in f.workarounds
        ]
    return _entry_workarounds(entry, "en")


def _dead_ends(f: Finding, entry: Entry | None) -> list[Item]:
    if entry is None:
        return [Item(None, d.action, d.why_fails, d.fail_rate, d.basis) for d in f.dead_ends]
    return _entry_dead_ends(entry, "en")


def _entry_workarounds(entry: Entry, lang: Lang) -> list[Item]:
    """Best first."""
    ranked = sorted(enumerate(entry.workarounds), key=lambda iw: -iw[1].success_rate.value)
    return [
        Item(
            i,
            pick(w.action, w.action_zh, lang),
            w.how,
            w.success_rate.value,
            w.success_rate.basis.value,
            pick(w.condition, w.condition_zh, lang) if w.condition else None,
            _same(w.how, w.action),
        )
        for i, w in ranked
    ]


def _entry_dead_ends(entry: Entry, lang: Lang) -> list[Item]:
    ranked = sorted(enumerate(entry.dead_ends), key=lambda idn: -idn[1].fail_rate.value)
    return [
        Item(i, d.action, pick(d.why_fails, d.why_fails_zh, lang), d.fail_rate.value, d.fail_rate.basis.value)
        for i, d in ranked
    ]


def _how(item: Item, caps: Caps) -> str:
    return clip(item.text.strip(), caps.how) if caps.how > 0 else ""


def _indent(text: str, prefix: str) -> str:
    return text.replace("\n", "\n" + prefix)


def _pct(rate: float) -> str:
    return f"{round(rate * 100)}%"


# -- one item list, in either format ---------------------------------------------------------------
def _items_text(label: str, items: Sequence[Item], caps: Caps, *, dead: bool) -> list[str]:
    if not items:
        return []
    lines = [label]
    for item in items:
        tag = f"[{item.index}] " if item.index is not None else "- "
        if dead:
            why = f": {flat(item.text, caps.why)}" if caps.why > 0 else ""
            lines.append(f"  {tag}{flat(item.action, caps.dead_action)}{why}")
            continue
        lines.append(f"  {tag}{_pct(item.rate)} ({item.basis}) {flat(item.action, caps.action)}")
        how = "" if item.repeats else _how(item, caps)  # text: said once is enough
        if how:
            lines.append("      how: " + _indent(how, "           "))
        if item.condition and caps.condition > 0:
            lines.append("      when: " + flat(item.condition, caps.condition))
    return lines


def _items_json(items: Sequence[Item], caps: Caps, *, dead: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        row: dict[str, Any] = {"index": item.index}
        if dead:
            row["action"] = flat(item.action, caps.dead_action)
            if caps.why > 0:
                row["why_fails"] = flat(item.text, caps.why)
        else:
            row["action"] = flat(item.action, caps.action)
            how = _how(item, caps)
            if how:
                row["how"] = how
            row["success_rate"] = item.rate
            row["basis"] = item.basis
            if item.condition and caps.condition > 0:
                row["condition"] = flat(item.condition, caps.condition)
        out.append(row)
    return out


# -- a finding ---------------------------------------------------------------------------------------
def _ranks(ranks: Sequence[int]) -> str:
    """[0, 1, 2, 5] → '0-2,5'."""
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _seen(f: Finding) -> str:
    parts = []
    if f.count > 1:
        parts.append(f"seen {f.count}×")
    if f.ranks:
        parts.append(f"rank{'s' if len(f.ranks) > 1 else ''} {_ranks(f.ranks)}")
    return " ".join(parts)


def _versions(f: Finding, caps: Caps) -> str:
    status = f.versions.status.value
    reasons = "; ".join(f.versions.reasons)
    if reasons and caps.versions > 0 and status != "unknown":
        return f"{status} ({flat(reasons, caps.versions)})"
    return status


def _params(params: Mapping[str, str], caps: Caps) -> dict[str, str]:
    return {k: flat(v, caps.param_value) for k, v in list(params.items())[: caps.params]}


def finding_text(n: int, f: Finding, entry: Entry | None, caps: Caps) -> str:
    head = [f"#{n} {f.id}", f"confidence {f.confidence} ({f.score:.2f})", f"matched by {f.matched_by}", f.role]
    if f.generic:
        head.append("generic")
    if seen := _seen(f):
        head.append(seen)
    lines = [" · ".join(head)]
    if not f.lines or not _same(f.lines[0].text, f.signature):
        lines.append(f"signature: {flat(f.signature, caps.signature)}")
    if f.lines:
        first = f.lines[0]
        lines.append(f"line {first.line}: {flat(first.text, caps.line)}")
    if f.params:
        lines.append("params: " + ", ".join(f"{k}={v}" for k, v in _params(f.params, caps).items()))
    lines.append(f"versions: {_versions(f, caps)}")
    if caps.root_cause > 0:
        lines.append(f"cause: {flat(f.root_cause, caps.root_cause)}")
    lines += _items_text(
        "workarounds ([index] success rate):", _workarounds(f, entry)[: caps.workarounds], caps, dead=False
    )
    lines += _items_text("dead ends (do not try):", _dead_ends(f, entry)[: caps.dead_ends], caps, dead=True)
    return "\n".join(lines)


def finding_json(f: Finding, entry: Entry | None, caps: Caps) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f.id,
        "confidence": f.confidence,
        "score": f.score,
        "matched_by": f.matched_by,
        "role": f.role,
        "generic": f.generic,
        "count": f.count,
        "ranks": f.ranks,
        "signature": flat(f.signature, caps.signature),
    }
    if f.lines:
        first = f.lines[0]
        row["line"] = {"source": first.source, "line": first.line, "text": flat(first.text, caps.line)}
    row["params"] = _params(f.params, caps)
    row["versions"] = _versions(f, caps)
    if caps.root_cause > 0:
        row["root_cause"] = flat(f.root_cause, caps.root_cause)
    row["workarounds"] = _items_json(_workarounds(f, entry)[: caps.workarounds], caps, dead=False)
    row["dead_ends"] = _items_json(_dead_ends(f, entry)[: caps.dead_ends], caps, dead=True)
    return row


def _fit(render: Any, budget: int, levels: Sequence[Caps]) -> tuple[Any, int]:
    """The loosest level whose rendering fits ``budget`` characters, else the tightest one."""
    for n, caps in enumerate(levels):
        out = render(caps)
        size = len(out) if isinstance(out, str) else len(_dumps(out))
        if size <= budget:
            return out, n
    return render(levels[-1]), len(levels) - 1


# -- a diagnosis -------------------------------------------------------------------------------------
def diagnosis_view(
    d: Diagnosis,
    entries: Mapping[str, Entry] | None = None,
    *,
    fmt: Format = "text",
    detail: bool = False,
    notes: Iterable[str] = (),
    max_chars: int | None = None,
) -> str:
    """The findings best-first, at most ``MAX_FINDINGS`` of them, in at most ``max_chars`` characters."""
    entries = entries or {}
    budget = max_chars or (DETAIL_MAX_CHARS if detail else MAX_CHARS)
    limit = DETAIL_MAX_FINDINGS if detail else MAX_FINDINGS
    levels = (DETAIL_CAPS, *LEVELS) if detail else LEVELS
    notes = list(notes)
    if d.truncated_hits:
        notes.append(f"{d.truncated_hits} further matching lines were not recorded")
    if not d.findings or not d.matched:  # not matched with findings: only a wrapper, around an unknown error
        return _no_match(d, fmt, notes, budget)
    shown, rest = d.findings[:limit], d.findings[limit:]
    more = [f.id for f in rest]
    if fmt == "json":
        return _diagnosis_json(shown, more, entries, levels, notes, budget)
    return _diagnosis_text(shown, more, entries, levels, notes, budget)


def _more_text(more: Sequence[str]) -> str:
    if not more:
        return ""
    ids = ", ".join(more[:MAX_MORE_IDS])
    extra = f" and {len(more) - MAX_MORE_IDS} more" if len(more) > MAX_MORE_IDS else ""
    return f"also matched, lower ranked (not shown): {ids}{extra}"


def _diagnosis_text(
    shown: Sequence[Finding],
    more: Sequence[str],
    entries: Mapping[str, Entry],
    levels: Sequence[Caps],
    notes: list[str],
    budget: int,
) -> str:
    total = len(shown) + len(more)
    head = f"rootcause: {total} known error{'s' if total != 1 else ''} matched, best first."
    tail_lines = [line for line in (_more_text(more), *(f"note: {n}" for n in notes), HINT_TEXT) if line]
    shortened = "note: shortened to fit; get_entry(id, detail=true) has everything"
    reserve = len(head) + sum(len(t) + 1 for t in tail_lines) + len(shortened) + 8
    remaining = budget - reserve
    blocks: list[str] = []
    tight = False
    for n, f in enumerate(shown, 1):
        share = max(remaining // (len(shown) - n + 1), 0)
        block, level = _fit(lambda caps, n=n, f=f: finding_text(n, f, entries.get(f.id), caps), share, levels)
        if len(block) > share:
            block = clip(block, share)
        tight = tight or level > 0
        blocks.append(block)
        remaining -= len(block) + 2
    if tight:
        tail_lines.insert(len(tail_lines) - 1, shortened)
    out = "\n\n".join([head, *blocks, "\n".join(tail_lines)])
    return clip(out, budget)


def _diagnosis_json(
    shown: Sequence[Finding],
    more: Sequence[str],
    entries: Mapping[str, Entry],
    levels: Sequence[Caps],
    notes: list[str],
    budget: int,
) -> str:
    shown = list(shown)
    more = list(more)
    while True:
        doc: dict[str, Any] = {"matched": True, "findings": [], "more": more[:MAX_MORE_IDS], "notes": list(notes)}
        remaining = budget - len(_dumps(doc)) - 120
        tight = False
        for n, f in enumerate(shown):
            share = max(remaining // (len(shown) - n), 0)
            row, level = _fit(lambda caps, f=f: finding_json(f, entries.get(f.id), caps), share, levels)
            tight = tight or level > 0
            doc["findings"].append(row)
            remaining -= len(_dumps(row)) + 1
        if tight:
            doc["notes"].append("shortened to fit; get_entry(id, detail=true) has everything")
        text = _dumps(doc)
        if len(text) <= budget or len(shown) <= 1:
            return text
        more.insert(0, shown.pop().id)


def _no_match(d: Diagnosis, fmt: Format, notes: list[str], budget: int) -> str:
    reason = d.abstain_reason or "no pattern matched"
    nearest = [(c.id, c.score, flat(c.signature, 200)) for c in d.nearest]
    if fmt == "json":
        doc = {
            "matched": False,
            "message": "no known error matched",
            "reason": reason,
            "nearest": [{"id": i, "similarity": s, "signature": sig} for i, s, sig in nearest],
            "located": [_located_json(item) for item in d.located[:MAX_LOCATED_SHOWN]],
            "notes": notes,
        }
        return _dumps(doc)  # small by construction: three candidates and a few located lines at most
    lines = ["rootcause: no known error matched.", reason]
    if nearest:
        lines.append("nearest entries (below the threshold, NOT a diagnosis):")
        lines += [f"  - {i} (similarity {s:.2f}): {sig}" for i, s, sig in nearest]
    if d.located:
        lines.append("known messages, no reviewed entry (located in the message atlas):")
        for item in d.located[:MAX_LOCATED_SHOWN]:
            lines.append(f"  - line {item.line}: {located_where(item)}")
            lines += [f"    check: {c}" for c in item.checks[:2]]
    lines += [f"note: {n}" for n in notes]
    lines.append("next: search(query) looks the canon up by words")
    return clip("\n".join(lines), budget)


MAX_LOCATED_SHOWN = 5


def _located_json(item: Located) -> dict[str, Any]:
    doc = item.model_dump(include={"package", "module", "function", "kind", "exception", "first", "last", "line"})
    doc.update(source_url=item.source_url, installed_has_it=item.installed_has_it, family=item.family)
    doc["checks"] = item.checks[:2]
    return doc


# -- an entry ----------------------------------------------------------------------------------------
def entry_text(entry: Entry, lang: Lang, caps: Caps) -> str:
    tags = [entry.domain, entry.category, entry.verification.value]
    if entry.error_code:
        tags.insert(0, entry.error_code)
    if entry.generic:
        tags.append("generic")
    if entry.fix_rate is not None:
        tags.append(f"fix rate {_pct(entry.fix_rate.value)} ({entry.fix_rate.basis.value})")
    lines = [f"{entry.id}: {flat(pick(entry.signature, entry.signature_zh, lang), caps.signature)}", " · ".join(tags)]
    if entry.is_withdrawn:
        lines.append(f"WITHDRAWN on {entry.withdrawn}")
    if entry.versions and caps.versions > 0:
        ranges = "; ".join(f"{v.requirement} ({v.status.value})" for v in entry.versions)
        lines.append("versions: " + flat(ranges, caps.versions))
    if caps.root_cause > 0:
        lines.append("cause: " + flat(pick(entry.root_cause, entry.root_cause_zh, lang), caps.root_cause))
    workarounds = _entry_workarounds(entry, lang)
    dead_ends = _entry_dead_ends(entry, lang)
    lines += _items_text("workarounds ([index] success rate):", workarounds[: caps.workarounds], caps, dead=False)
    lines += _items_text("dead ends (do not try):", dead_ends[: caps.dead_ends], caps, dead=True)
    hidden = max(len(workarounds) - caps.workarounds, 0) + max(len(dead_ends) - caps.dead_ends, 0)
    if entry.related:
        lines.append("related: " + ", ".join(f"{r.id} ({r.type.value})" for r in entry.related[:6]))
    if hidden:
        lines.append(f"({hidden} more workarounds/dead ends: get_entry(id, detail=true))")
    return "\n".join(lines)


def entry_json(entry: Entry, lang: Lang, caps: Caps) -> dict[str, Any]:
    workarounds = _entry_workarounds(entry, lang)
    dead_ends = _entry_dead_ends(entry, lang)
    doc: dict[str, Any] = {
        "id": entry.id,
        "signature": flat(pick(entry.signature, entry.signature_zh, lang), caps.signature),
        "domain": entry.domain,
        "category": entry.category,
        "error_code": entry.error_code,
        "verification": entry.verification.value,
        "generic": entry.generic,
        "withdrawn": entry.withdrawn.isoformat() if entry.withdrawn else None,
        "fix_rate": None if entry.fix_rate is None else entry.fix_rate.value,
    }
    if caps.versions > 0:
        doc["versions"] = [f"{v.requirement} ({v.status.value})" for v in entry.versions]
    if caps.root_cause > 0:
        doc["root_cause"] = flat(pick(entry.root_cause, entry.root_cause_zh, lang), caps.root_cause)
    doc["workarounds"] = _items_json(workarounds[: caps.workarounds], caps, dead=False)
    doc["dead_ends"] = _items_json(dead_ends[: caps.dead_ends], caps, dead=True)
    doc["related"] = [r.id for r in entry.related]
    doc["not_shown"] = {
        "workarounds": max(len(workarounds) - caps.workarounds, 0),
        "dead_ends": max(len(dead_ends) - caps.dead_ends, 0),
    }
    return doc


def entry_view(entry: Entry, lang: Lang = "en", *, fmt: Format = "text", max_chars: int = MAX_CHARS) -> str:
    """A compact entry: the cause, the best workarounds with their how, the dead ends."""
    if fmt == "json":
        doc, _ = _fit(lambda caps: entry_json(entry, lang, caps), max_chars, LEVELS)
        return _dumps(doc)
    text, _ = _fit(lambda caps: entry_text(entry, lang, caps), max_chars, LEVELS)
    return clip(text, max_chars)


def bounded_document(text: str, max_chars: int = DETAIL_MAX_CHARS) -> str:
    """A full document (an entry's Markdown) within ``max_chars``, saying when it was cut."""
    if len(text) <= max_chars:
        return text
    note = f"\n\n[… cut at {max_chars} characters of {len(text)}; the resource has it all …]"
    return text[: max_chars - len(note)] + note


def bounded_entry_dict(doc: dict[str, Any], max_chars: int = DETAIL_MAX_CHARS) -> str:
    """A full entry as compact JSON; when too large, its bulkiest lists go first (and are named)."""
    doc = dict(doc)
    omitted: list[str] = []
    for key in ("examples", "sources", "patterns", "dead_ends", "workarounds"):
        if len(_dumps(doc)) <= max_chars:
            break
        if doc.get(key):
            doc[key] = []
            omitted.append(key)
    if omitted:
        doc["omitted"] = omitted
    return _dumps(doc)


# -- search results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchResult:
    entry: Entry
    score: float
    matched_by: str  # id / pattern / lexical / words


_WORD = re.compile(r"[a-z0-9]{2,}")


def keyword_results(
    query: str, entries: Iterable[Entry], lexical: Mapping[str, float], floor: float = 0.2
) -> list[SearchResult]:
    """Entries ranked for a few words: the share of the words in the id, code and signature
    (most), in the cause and examples (less), plus the lexical index's similarity."""
    words = set(_WORD.findall(query.lower()))
    out: list[SearchResult] = []
    for entry in entries:
        sim = lexical.get(entry.id, 0.0)
        if words:
            head = " ".join([entry.id, entry.error_code or "", entry.signature, entry.category]).lower()
            body = " ".join([entry.root_cause, *(e.text for e in entry.examples)]).lower()
            in_head = sum(w in head for w in words) / len(words)
            in_body = sum(w in body for w in words) / len(words)
            score = 0.55 * in_head + 0.25 * in_body + 0.2 * sim
        else:
            score = sim
        if score >= floor:
            out.append(SearchResult(entry, score, "words"))
    return sorted(out, key=lambda r: (-r.score, r.entry.id))


def search_view(
    query: str, results: Sequence[SearchResult], *, fmt: Format = "text", max_chars: int = MAX_CHARS
) -> str:
    rows = [(r.entry.id, round(r.score, 3), r.matched_by, r.entry.signature) for r in results]
    for sig_cap in (200, 120, 60, 0):
        if fmt == "json":
            out = _dumps(
                {
                    "query": flat(query, 200),
                    "results": [
                        {"id": i, "score": s, "matched_by": m, "signature": flat(sig, sig_cap)} for i, s, m, sig in rows
                    ],
                }
            )
        else:
            if not rows:
                return f"rootcause: no entry matches {flat(query, 200)!r}. Try other words, or diagnose(text)."
            lines = [f"rootcause: {len(rows)} entr{'y' if len(rows) == 1 else 'ies'} for {flat(query, 200)!r}:"]
            lines += [f"- {i} ({m} {s:.2f}): {flat(sig, sig_cap)}".rstrip(": ") for i, s, m, sig in rows]
            lines.append("next: get_entry(id)")
            out = "\n".join(lines)
        if len(out) <= max_chars:
            return out
    return clip(out, max_chars)


def entries_index(entries: Iterable[Entry]) -> str:
    """One line per entry: id and signature (the rootcause://entries resource)."""
    return "\n".join(f"{e.id}\t{flat(e.signature, 160)}" for e in sorted(entries, key=lambda e: e.id)) + "\n"
