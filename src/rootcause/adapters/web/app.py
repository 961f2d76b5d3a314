"""The web service: ``create_app(settings)`` builds it, uvicorn runs it.

Pages (server-rendered, no JavaScript needed), the JSON API under /api/v1, files for
machines (llms.txt, sitemap.xml, robots.txt) and internal pages under /-/, a prefix
that no entry id can take.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp

from rootcause import __version__
from rootcause.adapters.web import api, errors, fleet, pages
from rootcause.adapters.web.security import SecurityHeaders, TargetCap
from rootcause.adapters.web.settings import Settings
from rootcause.adapters.web.state import ServiceState, get_state
from rootcause.core.model import SCHEMA_VERSION
from rootcause.errors import NotFoundError

log = logging.getLogger("rootcause.web")


SWAGGER_ASSETS = {
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "favicon.png": "image/png",
}
# our own start-up script, served as a file: the docs page holds no inline code at all
SWAGGER_INIT = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout"});
});
"""
DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>rootcause API</title><link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script>
</body></html>
"""


def swagger_assets_dir() -> Path | None:
    """Swagger UI's files (a release that reads OpenAPI 3.1) from the fastapi-offline package, whose
    static folder is all we use: no CDN, so the docs work offline."""
    from importlib import resources

    try:
        folder = Path(str(resources.files("fastapi_offline") / "static"))
    except ModuleNotFoundError:
        return None
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def _docs_route(app: FastAPI) -> None:
    """Swagger UI from local files under the site's own policy (nothing from another origin, nothing
    inline); /docs leads there. Without fastapi-offline installed, the page says so and links the
    OpenAPI document."""

    @app.get("/api/v1/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        if swagger_assets_dir() is None:
            from rootcause.core.render.pages import render_error_page

            message = (
                "The interactive API docs need the fastapi-offline package (pip install fastapi-offline). "
                "The OpenAPI document is at /api/v1/openapi.json."
            )
            return HTMLResponse(render_error_page(503, "API docs not installed", message, root="../../"), 503)
        return HTMLResponse(DOCS_PAGE)

    @app.get("/api/v1/docs/init.js", include_in_schema=False)
    def docs_init() -> Response:
        return Response(SWAGGER_INIT, media_type="text/javascript; charset=utf-8")

    @app.get("/api/v1/docs/assets/{name}", include_in_schema=False)
    def docs_asset(name: str) -> Response:
        folder = swagger_assets_dir()
        if folder is None or name not in SWAGGER_ASSETS:
            raise NotFoundError(f"no API docs asset {name!r}")
        return Response((folder / name).read_bytes(), media_type=SWAGGER_ASSETS[name])

    @app.get("/docs", include_in_schema=False)
    @app.get("/docs/", include_in_schema=False)
    def docs_redirect() -> RedirectResponse:
        return RedirectResponse("/api/v1/docs", status_code=308)


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
