"""Lint checks between linked entries: advice that contradicts a same-as entry, and the ranking's exemption
for AI-generated entries (a grounded entry linked to one always ranks first)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rootcause.core.model import Entry, RelationType, Verification

if TYPE_CHECKING:
    from rootcause.core.diagnosis import Finding

_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def _advice_keys(action: str, *more: str) -> set[str]:
    """What a piece of advice turns on: the variables it names, and its action as written."""
    keys = {" ".join(action.lower().split())}
    for text in (action, *more):
        keys |= set(_VARIABLE.findall(text))
    return keys


def _same_as(entries: dict[str, tuple[Entry, str]], entry_id: str) -> set[str]:
    linked = {r.id for r in entries[entry_id][0].related if r.type is RelationType.SAME_AS}
    for other, _ in entries.values():
        if any(r.id == entry_id and r.type is RelationType.SAME_AS for r in other.related):
            linked.add(other.id)
    return (linked - {entry_id}) & set(entries)


def check_linked_advice(entries: dict[str, tuple[Entry, str]]) -> list[tuple[str, str, str]]:
    """An entry must not recommend what an entry marked same-as (the same failure) calls a dead end (RC402).

    Entries that are only confused-with or leads-to are distinct failures, whose advice may rightly differ
    (CUDA_LAUNCH_BLOCKING locates a failing cuBLAS call but does nothing for an allocation failure). An
    AI-generated entry may hold such a workaround against a grounded entry (RC403, a warning): the ranking
    puts the grounded entry first and marks the AI-generated one as unverified, so the reader meets the dead
    end's reason before the advice. Gives (path, code, message) triples.
    """
    out: list[tuple[str, str, str]] = []
    for a_id, (a, path) in sorted(entries.items()):
        work = [_advice_keys(w.action, w.how) for w in a.workarounds]
        for b_id in sorted(_same_as(entries, a_id)):
            b = entries[b_id][0]
            exempt = a.verification is Verification.AI_GENERATED and b.verification is not Verification.AI_GENERATED
            for m, d in enumerate(b.dead_ends):
                dead = _advice_keys(d.action)
                for n, keys in enumerate(work):
                    if clash := keys & dead:
                        message = f"workarounds.{n} ({', '.join(sorted(clash))}) is dead_ends.{m} of {b_id}"
                        out.append((path, "RC403" if exempt else "RC402", message))
    return out


def grounded_link_first(entry: Entry, first: Entry, findings: list[Finding]) -> bool:
    """An AI-generated entry's example, matched first by a grounded entry linked to it, the entry itself after."""
    linked = any(r.id == first.id for r in entry.related) or any(r.id == entry.id for r in first.related)
    return (
        entry.verification is Verification.AI_GENERATED
        and first.verification is not Verification.AI_GENERATED
        and linked
        and entry.id in {f.id for f in findings}
    )
