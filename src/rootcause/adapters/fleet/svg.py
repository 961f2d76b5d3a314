"""Plots as inline SVG (no script, no CDN), shrunk to their box by the page's CSS (viewBox) so they fit a phone:
horizontal bars with their values and links, and a per-day stacked column chart with axes and a legend."""

from __future__ import annotations

from html import escape

BAR_H = 20
LABEL_W = 300
PLOT_W = 380
KNOWN, UNKNOWN = "#3b6fd4", "#9aa3b5"


def _svg(title: str, width: int, height: int, body: list[str]) -> str:
    return (
        f"<svg role='img' aria-label='{escape(title)}' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' class='chart' xmlns='http://www.w3.org/2000/svg' font-size='12'>"
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def bar_chart(items: list[tuple[str, int]], title: str, hrefs: dict[str, str] | None = None) -> str:
    """One bar per item, its value at its end; a label with an href is a link."""
    if not items:
        return "<p class='meta'>nothing to plot</p>"
    top = max(v for _, v in items) or 1
    body: list[str] = []
    for n, (label, value) in enumerate(items):
        y = n * BAR_H + 4
        width = max(1, round(PLOT_W * value / top))
        short = label if len(label) <= 44 else label[:43] + "…"
        text = f"<text x='{LABEL_W - 6}' y='{y + 14}' text-anchor='end' fill='currentColor'>{escape(short)}</text>"
        href = (hrefs or {}).get(label)
        body.append(f"<a href='{escape(href)}'>{text}</a>" if href else text)
        body.append(f"<rect x='{LABEL_W}' y='{y + 3}' width='{width}' height='{BAR_H - 6}' fill='{KNOWN}'/>")
        body.append(f"<text x='{LABEL_W + width + 4}' y='{y + 14}' fill='currentColor'>{value}</text>")
    return _svg(title, LABEL_W + PLOT_W + 50, BAR_H * len(items) + 8, body)


def _ticks(top: int) -> list[int]:
    if top <= 4:
        return list(range(top + 1))
    step = max(1, round(top / 4))
    return [*range(0, top, step), top] if top % step else list(range(0, top + 1, step))


def day_chart(per_day: dict[str, dict[str, int]], max_labels: int = 6) -> str:
    """Known (blue) and unknown (grey) lines per day, stacked; a y axis with ticks, at most ``max_labels``
    evenly spaced dates on the x axis (never overlapping), and a legend."""
    if not per_day:
        return "<p class='meta'>nothing to plot</p>"
    days = sorted(per_day)[-60:]
    top = max(sum(per_day[d].values()) for d in days) or 1
    left, plot_h, top_pad = 44, 160, 28
    col = max(8, min(40, 640 // len(days)))
    width = max(360, left + col * len(days) + 20)
    base = top_pad + plot_h
    body = [
        f"<rect x='{left}' y='6' width='12' height='12' fill='{KNOWN}'/>",
        f"<text x='{left + 16}' y='16' fill='currentColor'>known errors</text>",
        f"<rect x='{left + 120}' y='6' width='12' height='12' fill='{UNKNOWN}'/>",
        f"<text x='{left + 136}' y='16' fill='currentColor'>unknown lines</text>",
        f"<line x1='{left}' y1='{top_pad}' x2='{left}' y2='{base}' stroke='currentColor'/>",
        f"<line x1='{left}' y1='{base}' x2='{width - 10}' y2='{base}' stroke='currentColor'/>",
    ]
    for tick in _ticks(top):
        y = base - round(plot_h * tick / top)
        body.append(f"<line x1='{left - 4}' y1='{y}' x2='{left}' y2='{y}' stroke='currentColor'/>")
        body.append(f"<text x='{left - 6}' y='{y + 4}' text-anchor='end' fill='currentColor'>{tick}</text>")
    for n, day in enumerate(days):
        known = per_day[day].get("known", 0)
        unknown = per_day[day].get("unknown", 0)
        x = left + 2 + n * col
        hk, hu = round(plot_h * known / top), round(plot_h * unknown / top)
        body.append(
            f"<rect x='{x}' y='{base - hk}' width='{col - 2}' height='{hk}' fill='{KNOWN}'>"
            f"<title>{escape(day)}: {known} known</title></rect>"
        )
        body.append(
            f"<rect x='{x}' y='{base - hk - hu}' width='{col - 2}' height='{hu}' fill='{UNKNOWN}'>"
            f"<title>{escape(day)}: {unknown} unknown</title></rect>"
        )
    shown = sorted({round(i * (len(days) - 1) / max(1, max_labels - 1)) for i in range(max_labels)})
    for n in shown:
        mid = left + 2 + n * col + (col - 2) / 2
        body.append(f"<line x1='{mid}' y1='{base}' x2='{mid}' y2='{base + 4}' stroke='currentColor'/>")
        body.append(
            f"<text x='{mid}' y='{base + 16}' text-anchor='middle' fill='currentColor'>{escape(days[n][5:])}</text>"
        )
    body.append(f"<text x='{left}' y='{base + 32}' fill='currentColor'>{escape(days[0][:4])} · lines per day</text>")
    return _svg("known errors and unknown lines per day", width, base + 40, body)
