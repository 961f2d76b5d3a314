"""The fleet report: the JSON twin, and one self-contained HTML page on the site's template, with inline
SVG plots (axes, a legend) and every entry id linked to its page on the site."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from rootcause.adapters.fleet.svg import bar_chart, day_chart
from rootcause.core.render.html import entry_href, environment


def render_html(summary: dict[str, Any], site: str = "") -> str:
    """``site``: where the site is (``https://rootcause.example.org/``); links are relative to the
    report's folder without it (a report saved at the root of ``rootcause build-site``'s output)."""
    root = site.rstrip("/") + "/" if site else ""

    def href(entry_id: str) -> str:
        return entry_href(entry_id, root)

    top = summary["top_errors"]
    jobs = [
        j | {"entries": sorted(j["entries"].items())}
        for j in summary["jobs"]
        if j["entries"] or j["unknown_lines"] or j["conclusion"] not in (None, "undecided")
    ][:200]
    nodes = [n | {"entries": sorted(n["entries"].items())} for n in summary["recurring_nodes"]]
    charts = {
        "top": bar_chart(
            [(t["entry_id"], t["hits"]) for t in top],
            "hits per entry",
            {t["entry_id"]: href(t["entry_id"]) for t in top},
        ),
        "days": day_chart(summary["per_day"]),
        "nodes": bar_chart(
            [(n["host"], n["jobs"]) for n in summary["recurring_nodes"]], "jobs with a finding per node"
        ),
        "conclusions": bar_chart(list(summary["conclusions"].items()), "jobs per conclusion"),
    }
    run = {"logs": "?", "jobs": "?", "engine": "?"} | summary.get("run", {})
    ctx = {
        "lang": "en",
        "lang_attr": "en",
        "root": root,
        "run": run,
        "generated_at": summary["generated_at"],
        "totals": summary["totals"],
        "top": [t | {"href": href(t["entry_id"])} for t in top],
        "nodes": nodes,
        "jobs": jobs,
        "charts": {k: Markup(v) for k, v in charts.items()},  # built from escaped parts in svg.py
        "href": href,
    }
    return environment().get_template("fleet_report.html").render(ctx)
