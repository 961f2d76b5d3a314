"""The fleet report: the JSON twin, and one self-contained HTML page with inline SVG plots."""

from __future__ import annotations

from html import escape
from typing import Any

from rootcause.adapters.fleet.svg import bar_chart, day_chart


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1d2330}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border-bottom:1px solid #dde;padding:.25rem .6rem;
text-align:left;vertical-align:top}th{background:#f3f4f8}h2{margin-top:2rem}svg{max-width:100%}
.muted{color:#667}"""


def render_html(summary: dict[str, Any]) -> str:
    run, totals = summary.get("run", {}), summary["totals"]
    top = summary["top_errors"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>rootcause fleet report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>Fleet report</h1>",
        f"<p class='muted'>{escape(str(run.get('logs', '?')))} rank logs, {escape(str(run.get('jobs', '?')))} jobs, "
        f"engine {escape(str(run.get('engine', '?')))}, generated {escape(summary['generated_at'])}</p>",
        _table(
            ["known findings", "unknown lines", "entries", "jobs with findings", "hosts with findings"],
            [
                [
                    totals["known_findings"],
                    totals["unknown_lines"],
                    totals["entries"],
                    totals["jobs_with_findings"],
                    totals["hosts_with_findings"],
                ]
            ],
        ),
        "<h2>Top errors</h2>",
        bar_chart([(t["entry_id"], t["hits"]) for t in top], "hits per entry"),
        _table(
            ["entry", "hits", "jobs", "hosts", "24 h", "7 days", "30 days"],
            [
                [
                    t["entry_id"],
                    t["hits"],
                    t["jobs"],
                    t["hosts"],
                    t["rolling"]["24h"],
                    t["rolling"]["7d"],
                    t["rolling"]["30d"],
                ]
                for t in top
            ],
        ),
        "<h2>Hits per day</h2>",
        day_chart(summary["per_day"]),
        "<h2>Recurring nodes</h2>",
        bar_chart([(n["host"], n["jobs"]) for n in summary["recurring_nodes"]], "jobs with a finding per node"),
        _table(
            ["host", "jobs", "days", "hits", "entries"],
            [
                [n["host"], n["jobs"], n["days"], n["hits"], ", ".join(f"{k} ×{v}" for k, v in n["entries"].items())]
                for n in summary["recurring_nodes"]
            ],
        ),
        "<h2>Triage verdicts</h2>",
        bar_chart(list(summary["conclusions"].items()), "jobs per conclusion"),
        "<h2>Jobs</h2>",
        _table(
            ["job", "conclusion", "guilty ranks", "entries", "unknown lines", "summary"],
            [
                [
                    j["job"],
                    j["conclusion"] or "",
                    ", ".join(map(str, j["guilty_ranks"])),
                    ", ".join(f"{k} ×{v}" for k, v in j["entries"].items()),
                    j["unknown_lines"],
                    j["summary"] or "",
                ]
                for j in summary["jobs"]
                if j["entries"] or j["unknown_lines"] or j["conclusion"] not in (None, "undecided")
            ][:200],
        ),
        "</body></html>\n",
    ]
    return "".join(parts)
