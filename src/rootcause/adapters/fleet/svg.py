"""Plots as inline SVG (no script, no CDN): horizontal bars and a per-day column chart."""

from __future__ import annotations

from html import escape

BAR_H = 18
LABEL_W = 300
PLOT_W = 420


def bar_chart(items: list[tuple[str, int]], title: str) -> str:
    if not items:
        return "<p class='muted'>nothing to plot</p>"
    top = max(v for _, v in items) or 1
    height = BAR_H * len(items) + 24
    out = [
        f"<svg role='img' aria-label='{escape(title)}' width='{LABEL_W + PLOT_W + 60}' height='{height}' "
        f"xmlns='http://www.w3.org/2000/svg' font-size='12'><title>{escape(title)}</title>"
    ]
    for n, (label, value) in enumerate(items):
        y = n * BAR_H + 4
        width = max(1, round(PLOT_W * value / top))
        short = label if len(label) <= 46 else label[:45] + "…"
        out.append(f"<text x='{LABEL_W - 6}' y='{y + 13}' text-anchor='end'>{escape(short)}</text>")
        out.append(f"<rect x='{LABEL_W}' y='{y + 2}' width='{width}' height='{BAR_H - 5}' fill='#3b6fd4'/>")
        out.append(f"<text x='{LABEL_W + width + 4}' y='{y + 13}'>{value}</text>")
    out.append("</svg>")
    return "".join(out)


def day_chart(per_day: dict[str, dict[str, int]]) -> str:
    if not per_day:
        return "<p class='muted'>nothing to plot</p>"
    days = sorted(per_day)[-60:]
    top = max(sum(per_day[d].values()) for d in days) or 1
    col = max(6, min(40, 720 // len(days)))
    h = 160
    out = [
        f"<svg role='img' aria-label='hits per day' width='{col * len(days) + 40}' height='{h + 40}' "
        f"xmlns='http://www.w3.org/2000/svg' font-size='11'><title>hits per day (known blue, unknown grey)</title>"
    ]
    for n, day in enumerate(days):
        known = per_day[day].get("known", 0)
        unknown = per_day[day].get("unknown", 0)
        x = 30 + n * col
        hk = round(h * known / top)
        hu = round(h * unknown / top)
        out.append(
            f"<rect x='{x}' y='{h - hk + 10}' width='{col - 2}' height='{hk}' fill='#3b6fd4'>"
            f"<title>{escape(day)}: {known} known</title></rect>"
        )
        out.append(
            f"<rect x='{x}' y='{h - hk - hu + 10}' width='{col - 2}' height='{hu}' fill='#9aa3b5'>"
            f"<title>{escape(day)}: {unknown} unknown</title></rect>"
        )
    out.append(f"<text x='30' y='{h + 30}'>{escape(days[0])}</text>")
    out.append(f"<text x='{30 + col * len(days)}' y='{h + 30}' text-anchor='end'>{escape(days[-1])}</text></svg>")
    return "".join(out)
