"""Outcome reports turned into numbers. Pure: no I/O, no database.

The method is documented in ``docs/statistics.md``:

- every rate is the mean of a Beta posterior whose prior is the canon's estimate,
  worth one report (``alpha0 = p0``, ``beta0 = 1 - p0``); a partial outcome counts as
  half a success and half a failure;
- confidence is ``1 - width`` of the 90% credible interval of the fix-rate posterior;
- verification rises with evidence past fixed thresholds and is never lowered; where
  the reports contradict the canon the result carries a note saying so.

The result is an updated :class:`Entry` (``model_copy``) that the ordinary renderers
show, so every page and JSON document marks each number as estimated or measured.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rootcause.core.model import Basis, DeadEnd, Entry, Evidence, Rate, Verification, Workaround

Kind = Literal["workaround", "dead_end"]
Result = Literal["worked", "partial", "failed"]
KINDS: tuple[Kind, ...] = ("workaround", "dead_end")
RESULTS: tuple[Result, ...] = ("worked", "partial", "failed")

PRIOR_WEIGHT = 1.0  # the canon's estimate counts as one report
PRIOR_FLOOR = 0.05  # estimates are clamped to [0.05, 0.95] so the prior stays proper
DEFAULT_PRIOR = 0.5  # where the canon has no estimate (Beta(0.5, 0.5), Jeffreys)
CREDIBLE_MASS = 0.90
ROUND = 3

# Verification lifts (docs/statistics.md). Verification never goes down.
COMMUNITY_MIN_REPORTS = 3
COMMUNITY_MIN_REPORTERS = 2
VERIFIED_MIN_REPORTS = 5  # on one workaround
VERIFIED_MIN_SUCCESS = 0.6  # its posterior mean success rate
VERIFIED_MIN_REPORTERS = 2
CONTRADICTION_MIN_REPORTS = 5
CONTRADICTION_GAP = 0.3  # measured vs canon estimate, flagged for review


# -- the Beta distribution ---------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-13:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if a <= 0 or b <= 0:
        raise ValueError("Beta parameters must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = q, by bisection (monotone, always converges)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError("q must be in [0, 1]")
    lo, hi = 0.0, 1.0
    for _ in range(52):
        mid = (lo + hi) / 2.0
        if beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


@dataclass(frozen=True)
class Posterior:
    """Beta(alpha, beta) after ``reports`` reports worth ``successes`` successes."""

    alpha: float
    beta: float
    reports: int
    successes: float
    prior: float

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def interval(self, mass: float = CREDIBLE_MASS) -> tuple[float, float]:
        tail = (1.0 - mass) / 2.0
        return beta_quantile(tail, self.alpha, self.beta), beta_quantile(1.0 - tail, self.alpha, self.beta)

    @property
    def confidence(self) -> float:
        low, high = self.interval()
        return max(0.0, min(1.0, 1.0 - (high - low)))

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {
            "reports": self.reports,
            "successes": self.successes,
            "prior": round(self.prior, ROUND),
            "alpha": round(self.alpha, 4),
            "beta": round(self.beta, 4),
            "mean": round(self.mean, ROUND),
            "interval_90": [round(low, ROUND), round(high, ROUND)],
        }


def posterior(prior: float | None, successes: float, reports: int) -> Posterior:
    """Beta posterior with the canon estimate as a prior worth ``PRIOR_WEIGHT`` reports."""
    if successes < 0 or successes > reports:
        raise ValueError("successes must lie in [0, reports]")
    p0 = DEFAULT_PRIOR if prior is None else min(max(prior, PRIOR_FLOOR), 1.0 - PRIOR_FLOOR)
    alpha = p0 * PRIOR_WEIGHT + successes
    beta = (1.0 - p0) * PRIOR_WEIGHT + (reports - successes)
    return Posterior(alpha, beta, reports, successes, p0)


# -- reports and their tally -------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    worked: int = 0
    partial: int = 0
    failed: int = 0

    @property
    def reports(self) -> int:
        return self.worked + self.partial + self.failed

    @property
    def worked_share(self) -> float:
        """Reports that worked, a partial one counting half."""
        return self.worked + 0.5 * self.partial

    @property
    def failed_share(self) -> float:
        return self.failed + 0.5 * self.partial

    def plus(self, result: Result, n: int = 1) -> Counts:
        values = {"worked": self.worked, "partial": self.partial, "failed": self.failed}
        values[result] += n
        return Counts(**values)


@dataclass(frozen=True)
class Report:
    """One outcome report, as far as the statistics care."""

    kind: Kind
    index: int
    result: Result
    when: dt.date
    reporter: str | None = None


@dataclass
class Tally:
    """Reports of one entry, counted by what was tried and how it went."""

    workarounds: dict[int, Counts] = field(default_factory=dict)
    dead_ends: dict[int, Counts] = field(default_factory=dict)
    first: dt.date | None = None
    last: dt.date | None = None
    reporters: set[str] = field(default_factory=set)

    @property
    def reports(self) -> int:
        return sum(c.reports for c in self.workarounds.values()) + sum(c.reports for c in self.dead_ends.values())

    def add(
        self,
        kind: Kind,
        index: int,
        result: Result,
        *,
        n: int = 1,
        first: dt.date | None = None,
        last: dt.date | None = None,
        reporter: str | None = None,
    ) -> None:
        """Count ``n`` reports (a grouped row of a query, or one report)."""
        bucket = self.workarounds if kind == "workaround" else self.dead_ends
        bucket[index] = bucket.get(index, Counts()).plus(result, n)
        if first is not None and (self.first is None or first < self.first):
            self.first = first
        last = last or first
        if last is not None and (self.last is None or last > self.last):
            self.last = last
        if reporter is not None:
            self.reporters.add(reporter)


def tally(reports: Iterable[Report]) -> Tally:
    out = Tally()
    for r in reports:
        out.add(r.kind, r.index, r.result, first=r.when, reporter=r.reporter)
    return out


# -- recomputation -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Recomputed:
    """The entry as the reports show it, and how each number was reached."""

    entry: Entry
    reports: int
    reporters: int
    fix: Posterior | None
    workarounds: list[Posterior | None]
    dead_ends: list[Posterior | None]
    canon_verification: Verification
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        e = self.entry
        return {
            "id": e.id,
            "reports": self.reports,
            "reporters": self.reporters,
            "fix_rate": None if e.fix_rate is None else e.fix_rate.model_dump(mode="json"),
            "fix_rate_posterior": None if self.fix is None else self.fix.as_dict(),
            "confidence": None if e.confidence is None else e.confidence.model_dump(mode="json"),
            "evidence": e.evidence.model_dump(mode="json"),
            "first_seen": e.first_seen.isoformat() if e.first_seen else None,
            "last_seen": e.last_seen.isoformat() if e.last_seen else None,
            "verification": {
                "canon": self.canon_verification.value,
                "effective": e.verification.value,
            },
            "workarounds": [
                {
                    "index": i,
                    "action": w.action,
                    "success_rate": w.success_rate.model_dump(mode="json"),
                    "posterior": None if p is None else p.as_dict(),
                }
                for i, (w, p) in enumerate(zip(e.workarounds, self.workarounds, strict=True))
            ],
            "dead_ends": [
                {
                    "index": i,
                    "action": d.action,
                    "fail_rate": d.fail_rate.model_dump(mode="json"),
                    "posterior": None if p is None else p.as_dict(),
                }
                for i, (d, p) in enumerate(zip(e.dead_ends, self.dead_ends, strict=True))
            ],
            "notes": list(self.notes),
        }


def _measured(p: Posterior) -> Rate:
    return Rate(value=round(p.mean, ROUND), basis=Basis.MEASURED, reports=p.reports)


def _lift(entry: Entry, t: Tally, workarounds: list[Posterior | None]) -> Verification:
    earned = Verification.AI_GENERATED
    if t.reports >= COMMUNITY_MIN_REPORTS and len(t.reporters) >= COMMUNITY_MIN_REPORTERS:
        earned = Verification.COMMUNITY
    strong = any(
        p is not None and p.reports >= VERIFIED_MIN_REPORTS and p.mean >= VERIFIED_MIN_SUCCESS for p in workarounds
    )
    if strong and len(t.reporters) >= VERIFIED_MIN_REPORTERS:
        earned = Verification.VERIFIED
    return earned if earned.rank > entry.verification.rank else entry.verification


def _contradictions(entry: Entry, workarounds: list[Posterior | None], dead_ends: list[Posterior | None]) -> list[str]:
    notes: list[str] = []
    pairs: list[tuple[str, float, Posterior | None]] = [
        (f"workaround {i + 1} success rate", w.success_rate.value, p)
        for i, (w, p) in enumerate(zip(entry.workarounds, workarounds, strict=True))
    ] + [
        (f"dead end {i + 1} fail rate", d.fail_rate.value, p)
        for i, (d, p) in enumerate(zip(entry.dead_ends, dead_ends, strict=True))
    ]
    for what, canon, p in pairs:
        if p is None or p.reports < CONTRADICTION_MIN_REPORTS:
            continue
        if abs(p.mean - canon) >= CONTRADICTION_GAP:
            notes.append(
                f"review: {what} is {p.mean:.2f} measured from {p.reports} reports, the canon says {canon:.2f}"
            )
    if entry.verification.rank >= Verification.REPRODUCED.rank:
        weak = [p for p in workarounds if p is not None and p.reports >= CONTRADICTION_MIN_REPORTS]
        if weak and all(p.mean < 0.3 for p in weak):
            notes.append(
                f"review: the canon says {entry.verification.value}, but every workaround "
                "with enough reports mostly fails; verification is kept, not lowered"
            )
    return notes


def recompute(entry: Entry, t: Tally) -> Recomputed:
    """The entry with every rate that reports back replaced by its measured value."""
    n = t.reports
    if n == 0:
        return Recomputed(
            entry,
            0,
            0,
            None,
            [None] * len(entry.workarounds),
            [None] * len(entry.dead_ends),
            entry.verification,
            [],
        )
    wa_posts: list[Posterior | None] = []
    workarounds: list[Workaround] = []
    for i, w in enumerate(entry.workarounds):
        c = t.workarounds.get(i)
        p = None if c is None or c.reports == 0 else posterior(w.success_rate.value, c.worked_share, c.reports)
        wa_posts.append(p)
        workarounds.append(w if p is None else w.model_copy(update={"success_rate": _measured(p)}))
    de_posts: list[Posterior | None] = []
    dead_ends: list[DeadEnd] = []
    for i, d in enumerate(entry.dead_ends):
        c = t.dead_ends.get(i)
        p = None if c is None or c.reports == 0 else posterior(d.fail_rate.value, c.failed_share, c.reports)
        de_posts.append(p)
        dead_ends.append(d if p is None else d.model_copy(update={"fail_rate": _measured(p)}))

    pooled = Counts()
    for i, c in t.workarounds.items():
        if 0 <= i < len(entry.workarounds):
            pooled = Counts(pooled.worked + c.worked, pooled.partial + c.partial, pooled.failed + c.failed)
    update: dict[str, Any] = {
        "workarounds": workarounds,
        "dead_ends": dead_ends,
        "evidence": Evidence(count=n, basis=Basis.MEASURED),
        "verification": _lift(entry, t, wa_posts),
    }
    fix: Posterior | None = None
    if pooled.reports:
        prior = entry.fix_rate.value if entry.fix_rate is not None else None
        fix = posterior(prior, pooled.worked_share, pooled.reports)
        update["fix_rate"] = _measured(fix)
        update["confidence"] = Rate(value=round(fix.confidence, 2), basis=Basis.MEASURED, reports=fix.reports)
    if t.first is not None:
        update["first_seen"] = min(d for d in (entry.first_seen, t.first) if d is not None)
    if t.last is not None:
        update["last_seen"] = max(d for d in (entry.last_seen, t.last) if d is not None)
    notes = _contradictions(entry, wa_posts, de_posts)
    return Recomputed(
        entry.model_copy(update=update),
        n,
        len(t.reporters),
        fix,
        wa_posts,
        de_posts,
        entry.verification,
        notes,
    )


def recompute_all(entries: Iterable[Entry], tallies: Mapping[str, Tally]) -> list[Entry]:
    return [recompute(e, tallies[e.id]).entry if e.id in tallies else e for e in entries]
