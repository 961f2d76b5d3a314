"""Answers sized for a model's context: compact, size-bounded views of a diagnosis,
of an entry and of search results, for coding agents (the MCP server).

An agent pays for every token, so each answer has a hard character budget. A view is
first built with generous per-field caps; when it does not fit, the caps tighten level
by level (shorter lines, fewer workarounds, no explanations) until it does. Nothing is
cut silently: every shortened answer says so and how to get the rest.

Workarounds and dead ends carry their index in the entry, the number that
``report_outcome`` takes.

The diagnosis view lives here; its parts are siblings, re-exported from here:
``agent_clip`` (budgets, clipping), ``agent_caps`` (per-field caps, workaround and dead-end
lists), ``agent_entry`` (an entry) and ``agent_search`` (search results).

Pure: data in, strings out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rootcause.core.agent_caps import (
    DETAIL_CAPS,
    LEVELS,
    Caps,
    Item,
    entry_dead_ends,
    entry_workarounds,
    fit,
    items_json,
    items_text,
    same_text,
)
from rootcause.core.agent_clip import (
    DETAIL_MAX_CHARS,
    DETAIL_MAX_FINDINGS,
    ELLIPSIS,
    MAX_CHARS,
    MAX_DEAD_ENDS,
    MAX_FINDINGS,
    MAX_MORE_IDS,
    MAX_TEXT_BYTES,
    MAX_WORKAROUNDS,
    Format,
    TruncatedInput,
    clip,
    dumps,
    flat,
    truncate_input,
)
from rootcause.core.agent_entry import bounded_document, bounded_entry_dict, entry_json, entry_text, entry_view
from rootcause.core.agent_search import SearchResult, entries_index, keyword_results, search_view
from rootcause.core.atlas.located import Located
from rootcause.core.diagnosis import Diagnosis, Finding
from rootcause.core.model import Entry
from rootcause.core.render.located import located_where

__all__ = [
    "DETAIL_CAPS",
    "DETAIL_MAX_CHARS",
    "DETAIL_MAX_FINDINGS",
    "ELLIPSIS",
    "HINT_TEXT",
    "LEVELS",
    "MAX_CHARS",
    "MAX_DEAD_ENDS",
    "MAX_FINDINGS",
    "MAX_LOCATED_SHOWN",
    "MAX_MORE_IDS",
    "MAX_TEXT_BYTES",
    "MAX_WORKAROUNDS",
    "Caps",
    "Format",
    "Item",
    "SearchResult",
    "TruncatedInput",
    "bounded_document",
    "bounded_entry_dict",
    "clip",
    "diagnosis_view",
    "entries_index",
    "entry_json",
    "entry_text",
    "entry_view",
    "finding_json",
    "finding_text",
    "flat",
    "keyword_results",
    "search_view",
    "truncate_input",
]

HINT_TEXT = (
    "next: get_entry(id) for the whole entry; after trying a workaround, "
    "report_outcome(id, index=<index>, result=worked|partial|failed)"
)


def _workarounds(f: Finding, entry: Entry | None) -> list[Item]:
    if entry is None:
        return [
            Item(None, w.action, w.how, w.success_rate, w.basis, w.condition, same_text(w.how, w.action))
            for w in f.workarounds
        ]
    return entry_workarounds(entry, "en")


def _dead_ends(f: Finding, entry: Entry | None) -> list[Item]:
    if entry is None:
        return [Item(None, d.action, d.why_fails, d.fail_rate, d.basis) for d in f.dead_ends]
    return entry_dead_ends(entry, "en")


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
    if not f.lines or not same_text(f.lines[0].text, f.signature):
        lines.append(f"signature: {flat(f.signature, caps.signature)}")
    if f.lines:
        first = f.lines[0]
        lines.append(f"line {first.line}: {flat(first.text, caps.line)}")
    if f.params:
        lines.append("params: " + ", ".join(f"{k}={v}" for k, v in _params(f.params, caps).items()))
    lines.append(f"versions: {_versions(f, caps)}")
    if caps.root_cause > 0:
        lines.append(f"cause: {flat(f.root_cause, caps.root_cause)}")
    lines += items_text(
        "workarounds ([index] success rate):", _workarounds(f, entry)[: caps.workarounds], caps, dead=False
    )
    lines += items_text("dead ends (do not try):", _dead_ends(f, entry)[: caps.dead_ends], caps, dead=True)
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
    row["workarounds"] = items_json(_workarounds(f, entry)[: caps.workarounds], caps, dead=False)
    row["dead_ends"] = items_json(_dead_ends(f, entry)[: caps.dead_ends], caps, dead=True)
    return row


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
    if not d.findings or not d.matched:  # not matched with findings: only a wrapper or notice, beside an unknown error
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
        block, level = fit(lambda caps, n=n, f=f: finding_text(n, f, entries.get(f.id), caps), share, levels)
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
        remaining = budget - len(dumps(doc)) - 120
        tight = False
        for n, f in enumerate(shown):
            share = max(remaining // (len(shown) - n), 0)
            row, level = fit(lambda caps, f=f: finding_json(f, entries.get(f.id), caps), share, levels)
            tight = tight or level > 0
            doc["findings"].append(row)
            remaining -= len(dumps(row)) + 1
        if tight:
            doc["notes"].append("shortened to fit; get_entry(id, detail=true) has everything")
        text = dumps(doc)
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
        return dumps(doc)  # small by construction: three candidates and a few located lines at most
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
