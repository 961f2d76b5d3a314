"""Fleet results on the service: ``/-/unknown`` (mined templates) and rolling hit counts per entry
(``/api/v1/entries/{id}/hits``, ``/api/v1/fleet/unknown``), from what ``rootcause fleet ingest`` stored."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse

from rootcause.adapters.web.api import ERROR_SCHEMA
from rootcause.adapters.web.state import ServiceState, state_of

router = APIRouter()
State = Annotated[ServiceState, Depends(state_of)]


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
    from rootcause.core.render.pages import render_unknown

    return HTMLResponse(render_unknown(fleet_store(state).templates(200), root="../"))
