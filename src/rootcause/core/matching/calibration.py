"""Calibrating the lexical stage's threshold on the canon itself.

Leave-one-out: each real example is held out, the lexical index is built from every
other document, and the held-out text is searched. A hit is correct when the best entry
is the example's own. Unrelated texts (other languages' and systems' errors) must stay
below the threshold, for every entry the diagnosis could claim for them (``claimable``: the claim rule
of `diagnosis.lexical_claimable`; a similar text that the rule refuses is never claimed).
The chosen threshold is the lowest similarity at which precision on
the held-out examples reaches the target and no unrelated text passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rootcause.core.matching.lexical import LexicalIndex
from rootcause.core.model import Entry


@dataclass(frozen=True)
class Trial:
    entry_id: str
    best_id: str | None
    similarity: float

    @property
    def correct(self) -> bool:
        return self.best_id == self.entry_id


@dataclass(frozen=True)
class Calibration:
    trials: list[Trial]
    negatives: list[float]
    threshold: float
    precision: float
    recall: float


def _docs(entries: list[Entry]) -> list[tuple[str, str, int]]:
    docs: list[tuple[str, str, int]] = []
    for entry in entries:
        docs.append((entry.id, entry.signature, -1))
        docs += [(entry.id, ex.text, n) for n, ex in enumerate(entry.examples)]
    return docs


def leave_one_out(entries: list[Entry]) -> list[Trial]:
    """Hold each example out (and any identical copy of it) and search for it."""
    specific = [e for e in entries if not e.generic]
    docs = _docs(specific)
    index = LexicalIndex.build([(eid, text) for eid, text, _ in docs])
    by_text: dict[str, set[int]] = {}
    for i, (_, text, _) in enumerate(docs):
        by_text.setdefault(text, set()).add(i)
    trials: list[Trial] = []
    for entry_id, text, n in docs:
        if n < 0:
            continue
        found = index.search(text, limit=1, exclude=frozenset(by_text[text]))
        best, sim = found[0] if found else (None, 0.0)
        trials.append(Trial(entry_id, best, sim))
    return trials


def _precision_recall(trials: list[Trial], threshold: float) -> tuple[float, float]:
    passed = [t for t in trials if t.similarity >= threshold]
    precision = sum(t.correct for t in passed) / len(passed) if passed else 1.0
    recall = sum(t.correct for t in passed) / len(trials) if trials else 0.0
    return precision, recall


def calibrate(
    entries: list[Entry],
    unrelated: list[str],
    *,
    target_precision: float = 0.9,
    margin: float = 0.05,
    claimable: Callable[[str, str], bool] | None = None,
) -> Calibration:
    """``claimable(text, entry_id)``: whether the diagnosis could claim that entry for the text at all; an
    unrelated text then counts at its best similarity among the entries it could be claimed for."""
    trials = leave_one_out(entries)
    full = LexicalIndex.build([(eid, text) for eid, text, _ in _docs([e for e in entries if not e.generic])])
    negatives = [
        max((s for eid, s in full.search(text, limit=5) if claimable is None or claimable(text, eid)), default=0.0)
        for text in unrelated
    ]
    floor = max(negatives, default=0.0) + margin
    candidates = sorted({round(t.similarity, 3) for t in trials} | {0.5})
    chosen = 1.0
    for threshold in candidates:
        precision, _ = _precision_recall(trials, threshold)
        if threshold >= floor and precision >= target_precision:
            chosen = threshold
            break
    precision, recall = _precision_recall(trials, chosen)
    return Calibration(trials, negatives, chosen, precision, recall)
