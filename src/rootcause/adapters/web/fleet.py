"""Fleet results on the service: ``/-/unknown`` (mined templates) and rolling hit counts per entry
(``/api/v1/entries/{id}/hits``, ``/api/v1/fleet/unknown``), from what ``rootcause fleet ingest`` stored."""

from __future__ import annotations

from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse

from rootcause.adapters.web.api import ERROR_SCHEMA
from rootcause.adapters.web.state import ServiceState, get_state

router = APIRouter()
State = Annotated[ServiceState, Depends(get_state)]


def fleet_store(state: ServiceState) -> Any:
    from rootcause.adapters.fleet.store import FleetStore

    return FleetStore(state.store)


@router.get("/api/v1/entries/{domain}/{slug}/hits", tags=["entries"], responses={404: ERROR_SCHEMA})
def entry_hits(domain: str, slug: str, state: State) -> dict[str, Any]:
    """Fleet hits of an entry in the last 24 hours, 7 days and 30 days."""
    entry = state.entry(f"{domain}/{slug}")
    return {"id": entry.id, "hits": state.hits(entry.id)}


@router.get("/api/v1/fleet/unknown", tags=["fleet"])
def unknown_api(state: State, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """Unknown errors of fleet runs as templates, most frequent first."""
    return {"templates": fleet_store(state).templates(limit)}


@router.get("/-/unknown", response_class=HTMLResponse, include_in_schema=False)
def unknown_page(state: State) -> HTMLResponse:
    items = fleet_store(state).templates(200)
    rows = "".join(
        f"<tr><td>{t['id']}</td><td>{t['count']}</td><td>{len(t['jobs'])}</td><td>{len(t['nodes'])}</td>"
        f"<td><code>{escape(t['template'])}</code>"
        + "".join(f"<div class='ex'>{escape(e[:300])}</div>" for e in t["examples"][:2])
        + "</td></tr>"
        for t in items
    )
    body = (
        "<table><thead><tr><th>template</th><th>lines</th><th>jobs</th><th>nodes</th><th>text</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if items
        else "<p>No fleet results yet: run <code>rootcause fleet scan</code>, then "
        "<code>rootcause fleet ingest</code>.</p>"
    )
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Unknown errors · rootcause</title>"
        "<style>body{font:14px system-ui,sans-serif;margin:2rem auto;max-width:70rem}td,th{padding:.3rem;"
        "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}.ex{color:#555;font-size:12px}</style>"
        f"</head><body><h1>Unknown errors from fleet runs</h1>{body}</body></html>"
    )
    return HTMLResponse(page)
