"""Outcome reports into numbers (rootcause.core.stats): pure, no server, no database."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from rootcause.core.model import Basis, DeadEnd, Entry, Pattern, Rate, Verification, Workaround
from rootcause.core.render import render_html, render_markdown
from rootcause.core.stats import (
    PRIOR_FLOOR,
    Report,
    Tally,
    beta_cdf,
    beta_quantile,
    posterior,
    recompute,
    recompute_all,
    tally,
)

DAY = dt.date(2026, 1, 10)


def make_entry(verification: Verification = Verification.COMMUNITY, **extra: object) -> Entry:
    return Entry(
        id="pytorch/example-error",
        modified=dt.date(2026, 1, 1),
        signature="RuntimeError: example",
        patterns=[Pattern(regex="example")],
        domain="pytorch",
        category="runtime_error",
        verification=verification,
        first_seen=dt.date(2025, 6, 1),
        fix_rate=Rate(value=0.7),
        root_cause="an example",
        workarounds=[
            Workaround(action="first", how="do 1", success_rate=Rate(value=0.8)),
            Workaround(action="second", how="do 2", success_rate=Rate(value=0.5)),
        ],
        dead_ends=[DeadEnd(action="useless", why_fails="it does not", fail_rate=Rate(value=0.9))],
        **extra,  # type: ignore[arg-type]
    )


def reports(kind: str, index: int, results: str, reporters: int = 2, when: dt.date = DAY) -> list[Report]:
    names = {"w": "worked", "p": "partial", "f": "failed"}
    return [
        Report(kind, index, names[c], when, reporter=f"r{i % reporters}")  # type: ignore[arg-type]
        for i, c in enumerate(results)
    ]


@pytest.mark.parametrize("x", [0.0, 0.05, 0.3, 0.5, 0.77, 0.99, 1.0])
def test_beta_cdf_matches_closed_forms(x: float) -> None:
    assert beta_cdf(x, 1, 1) == pytest.approx(x, abs=1e-12)
    assert beta_cdf(x, 2, 2) == pytest.approx(3 * x**2 - 2 * x**3, abs=1e-12)
    assert beta_cdf(x, 3, 1) == pytest.approx(x**3, abs=1e-12)
    assert beta_cdf(x, 0.5, 0.5) == pytest.approx(2 / math.pi * math.asin(math.sqrt(x)), abs=1e-9)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 5), (0.4, 0.6), (30.5, 4.5), (120, 80)])
def test_beta_quantile_inverts_the_cdf(a: float, b: float) -> None:
    for q in (0.05, 0.5, 0.95):
        assert beta_cdf(beta_quantile(q, a, b), a, b) == pytest.approx(q, abs=1e-9)


def test_posterior_prior_is_worth_one_report() -> None:
    assert posterior(0.8, 0, 0).mean == pytest.approx(0.8)
    assert posterior(0.8, 1, 1).mean == pytest.approx(1.8 / 2)
    assert posterior(0.8, 0, 1).mean == pytest.approx(0.8 / 2)
    assert posterior(0.8, 0.5, 1).mean == pytest.approx(1.3 / 2)  # a partial is half a success
    assert posterior(None, 3, 4).mean == pytest.approx(3.5 / 5)  # no estimate: Beta(0.5, 0.5)
    assert posterior(1.0, 0, 0).mean == pytest.approx(1 - PRIOR_FLOOR)  # kept proper
    with pytest.raises(ValueError):
        posterior(0.5, 3, 2)


def test_confidence_is_one_minus_the_90_percent_interval_width() -> None:
    p = posterior(0.7, 14, 20)
    low, high = p.interval()
    assert low < p.mean < high
    assert p.confidence == pytest.approx(1 - (high - low))
    widths = [posterior(0.7, n * 0.7, n).confidence for n in (1, 5, 20, 100, 1000)]
    assert widths == sorted(widths) and widths[-1] > 0.9


def test_no_reports_changes_nothing() -> None:
    entry = make_entry()
    result = recompute(entry, Tally())
    assert result.entry is entry and result.reports == 0 and result.notes == []


def test_recompute_measures_what_was_reported() -> None:
    entry = make_entry()
    t = tally(reports("workaround", 0, "wwwpf") + reports("dead_end", 0, "ffw", when=dt.date(2026, 2, 1)))
    r = recompute(entry, t)
    e = r.entry
    w0, w1 = e.workarounds
    assert w0.success_rate == Rate(value=round((0.8 + 3.5) / 6, 3), basis=Basis.MEASURED, reports=5)
    assert w1.success_rate == Rate(value=0.5)  # nobody reported on it: still the estimate
    assert e.dead_ends[0].fail_rate == Rate(value=round((0.9 + 2) / 4, 3), basis=Basis.MEASURED, reports=3)
    assert e.fix_rate == Rate(value=round((0.7 + 3.5) / 6, 3), basis=Basis.MEASURED, reports=5)
    assert e.confidence is not None and e.confidence.basis is Basis.MEASURED
    assert e.evidence.count == 8 and e.evidence.basis is Basis.MEASURED
    assert e.first_seen == dt.date(2025, 6, 1)  # the canon's is earlier
    assert e.last_seen == dt.date(2026, 2, 1)
    assert r.as_dict()["fix_rate_posterior"]["reports"] == 5
    assert entry.workarounds[0].success_rate.basis is Basis.ESTIMATE  # the input is untouched


def test_reports_on_unknown_positions_are_ignored_for_rates() -> None:
    entry = make_entry()
    r = recompute(entry, tally(reports("workaround", 7, "ww")))
    assert r.entry.fix_rate == entry.fix_rate and r.entry.evidence.count == 2


@pytest.mark.parametrize(
    ("results", "reporters", "canon", "expected"),
    [
        ("wwwww", 2, Verification.AI_GENERATED, Verification.VERIFIED),
        ("wwww", 2, Verification.AI_GENERATED, Verification.COMMUNITY),  # 4 < 5 on one workaround
        ("wwwww", 1, Verification.AI_GENERATED, Verification.AI_GENERATED),  # one reporter only
        ("wwfff", 2, Verification.AI_GENERATED, Verification.COMMUNITY),  # success below 0.6
        ("ww", 2, Verification.AI_GENERATED, Verification.AI_GENERATED),  # too few reports
        ("wwwww", 2, Verification.REPRODUCED, Verification.VERIFIED),
        ("fffff", 3, Verification.VERIFIED, Verification.VERIFIED),  # never lowered
    ],
)
def test_verification_rises_only_with_evidence(
    results: str, reporters: int, canon: Verification, expected: Verification
) -> None:
    r = recompute(make_entry(canon), tally(reports("workaround", 0, results, reporters)))
    assert r.entry.verification is expected
    assert r.canon_verification is canon


def test_contradictions_are_flagged_not_applied_silently() -> None:
    r = recompute(make_entry(Verification.VERIFIED), tally(reports("workaround", 0, "ffffff", 3)))
    assert r.entry.verification is Verification.VERIFIED
    assert any("workaround 1 success rate" in n for n in r.notes)
    assert any("kept, not lowered" in n for n in r.notes)


def test_measured_numbers_render_with_what_backs_them() -> None:
    r = recompute(make_entry(), tally(reports("workaround", 0, "wwwwp")))
    html = render_html(r.entry, "en")
    assert 'data-basis="measured"' in html and 'data-basis="estimate"' in html
    assert "measured, 5 reports" in html
    assert "实测值, 5 份报告" in render_html(r.entry, "zh")
    assert "(measured, 5 reports)" in render_markdown(r.entry, "en")


def test_recompute_all_only_touches_reported_entries() -> None:
    a = make_entry()
    b = make_entry().model_copy(update={"id": "pytorch/other-error"})
    t = tally(reports("workaround", 1, "w"))
    out = recompute_all([a, b], {a.id: t})
    assert out[0].workarounds[1].success_rate.basis is Basis.MEASURED and out[1] is b
