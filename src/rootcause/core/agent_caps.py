"""Per-field caps for agent answers, loosest first, and the rendering of workaround and
dead-end lists under them (see ``agent_view``).

Workarounds and dead ends carry their index in the entry, the number that
``report_outcome`` takes.

Pure: data in, strings out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rootcause.core.agent_clip import MAX_DEAD_ENDS, MAX_WORKAROUNDS, clip, dumps, flat
from rootcause.core.model import Entry
from rootcause.core.render.labels import Lang, pick


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


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def entry_workarounds(entry: Entry, lang: Lang) -> list[Item]:
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
            same_text(w.how, w.action),
        )
        for i, w in ranked
    ]


def entry_dead_ends(entry: Entry, lang: Lang) -> list[Item]:
    ranked = sorted(enumerate(entry.dead_ends), key=lambda idn: -idn[1].fail_rate.value)
    return [
        Item(i, d.action, pick(d.why_fails, d.why_fails_zh, lang), d.fail_rate.value, d.fail_rate.basis.value)
        for i, d in ranked
    ]


def item_how(item: Item, caps: Caps) -> str:
    return clip(item.text.strip(), caps.how) if caps.how > 0 else ""


def indent(text: str, prefix: str) -> str:
    return text.replace("\n", "\n" + prefix)


def pct(rate: float) -> str:
    return f"{round(rate * 100)}%"


# -- one item list, in either format ---------------------------------------------------------------
def items_text(label: str, items: Sequence[Item], caps: Caps, *, dead: bool) -> list[str]:
    if not items:
        return []
    lines = [label]
    for item in items:
        tag = f"[{item.index}] " if item.index is not None else "- "
        if dead:
            why = f": {flat(item.text, caps.why)}" if caps.why > 0 else ""
            lines.append(f"  {tag}{flat(item.action, caps.dead_action)}{why}")
            continue
        lines.append(f"  {tag}{pct(item.rate)} ({item.basis}) {flat(item.action, caps.action)}")
        how = "" if item.repeats else item_how(item, caps)  # text: said once is enough
        if how:
            lines.append("      how: " + indent(how, "           "))
        if item.condition and caps.condition > 0:
            lines.append("      when: " + flat(item.condition, caps.condition))
    return lines


def items_json(items: Sequence[Item], caps: Caps, *, dead: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        row: dict[str, Any] = {"index": item.index}
        if dead:
            row["action"] = flat(item.action, caps.dead_action)
            if caps.why > 0:
                row["why_fails"] = flat(item.text, caps.why)
        else:
            row["action"] = flat(item.action, caps.action)
            how = item_how(item, caps)
            if how:
                row["how"] = how
            row["success_rate"] = item.rate
            row["basis"] = item.basis
            if item.condition and caps.condition > 0:
                row["condition"] = flat(item.condition, caps.condition)
        out.append(row)
    return out


def fit(render: Any, budget: int, levels: Sequence[Caps]) -> tuple[Any, int]:
    """The loosest level whose rendering fits ``budget`` characters, else the tightest one."""
    for n, caps in enumerate(levels):
        out = render(caps)
        size = len(out) if isinstance(out, str) else len(dumps(out))
        if size <= budget:
            return out, n
    return render(levels[-1]), len(levels) - 1
