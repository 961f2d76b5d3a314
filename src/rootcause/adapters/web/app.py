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
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rootcause import __version__
from rootcause.adapters.web import api, errors, fleet, pages
from rootcause.adapters.web.settings import Settings
from rootcause.adapters.web.state import ServiceState, get_state
from rootcause.core.model import SCHEMA_VERSION

log = logging.getLogger("rootcause.web")


class _SecurityHeaders:
    """nosniff and a referrer policy on every response (pure ASGI, no body copies)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"same-origin"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


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


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service for these settings (from the environment when none are given)."""
    settings = settings or Settings.from_env()
    state = ServiceState.load(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        state.store.close()

    app = FastAPI(
        title="rootcause",
        version=__version__,
        summary="Known errors of the ML infrastructure stack: diagnose logs, search, report outcomes.",
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/v1/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.rootcause = state
    errors.install(app)
    app.include_router(api.router)
    app.include_router(fleet.router)
    _internal_routes(app)
    app.include_router(pages.router)
    app.add_middleware(_SecurityHeaders)
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
