"""The web service: ``create_app(settings)`` builds it, uvicorn runs it.

Pages (server-rendered, no JavaScript needed), the JSON API under /api/v1, files for
machines (llms.txt, sitemap.xml, robots.txt) and internal pages under /-/, a prefix
that no entry id can take.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.types import ASGIApp

from rootcause import __version__
from rootcause.adapters.web import api, errors, fleet, pages
from rootcause.adapters.web.security import SecurityHeaders, TargetCap, inline_hashes
from rootcause.adapters.web.settings import Settings
from rootcause.adapters.web.state import ServiceState, get_state
from rootcause.core.model import SCHEMA_VERSION

log = logging.getLogger("rootcause.web")
SWAGGER_CDN = "https://cdn.jsdelivr.net"


def _docs_route(app: FastAPI) -> None:
    """Swagger UI, whose script and styles come from a CDN: its own policy, which trusts that
    CDN and the hash of its one inline script (nothing else inline)."""

    @app.get("/api/v1/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        page = get_swagger_ui_html(openapi_url="/api/v1/openapi.json", title="rootcause API")
        html = bytes(page.body).decode()
        scripts = " ".join(sorted(inline_hashes([html])["script"]))
        page.headers["content-security-policy"] = (
            f"default-src 'none'; script-src {SWAGGER_CDN} {scripts}; style-src {SWAGGER_CDN}; "
            "img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        return page


def _internal_routes(app: FastAPI) -> None:
    @app.get("/-/health", include_in_schema=False)
    def health(request: Request) -> JSONResponse:
        state = get_state(request)
        state.store.ping()  # a StoreError becomes a 503 in the one error shape
        return JSONResponse({"status": "ok", "store": state.store.kind, "entries": len(state.entries)})

    @app.get("/-/version", include_in_schema=False)
    def version(request: Request) -> dict[str, Any]:
        state = get_state(request)
        return {
            "version": __version__,
            "schema_version": SCHEMA_VERSION,
            "canon_fingerprint": state.fingerprint,
            "entries": len(state.entries),
            "store": state.store.kind,
        }

    @app.get("/search-index.json", include_in_schema=False)
    def search_index(request: Request) -> JSONResponse:
        from rootcause.adapters.site_export import search_index_data

        return JSONResponse(search_index_data(get_state(request).entry_list))


class _Service(FastAPI):
    """FastAPI with the security headers outside everything, so even the answer of Starlette's
    outermost error handler (a 500) carries them; then the cap on a URL's length."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(TargetCap(super().build_middleware_stack()))


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service for these settings (from the environment when none are given)."""
    settings = settings or Settings.from_env()
    state = ServiceState.load(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        state.store.close()

    app = _Service(
        title="rootcause",
        version=__version__,
        summary="Known errors of the ML infrastructure stack: diagnose logs, search, report outcomes.",
        openapi_url="/api/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.rootcause = state
    errors.install(app)
    app.include_router(api.router)
    app.include_router(fleet.router)
    _internal_routes(app)
    _docs_route(app)
    app.include_router(pages.router)
    try:
        from rootcause.adapters.mcp_server import mount_mcp  # type: ignore[attr-defined]
    except ImportError:
        pass
    else:
        mount_mcp(app)
    log.info("rootcause %s: %d entries, store %s", __version__, len(state.entries), state.store.describe())
    return app


def create_app_from_env() -> FastAPI:
    """The uvicorn factory (``--factory``): settings from ROOTCAUSE_* variables."""
    return create_app(Settings.from_env())
