"""Every error the service returns has one shape, written here and nowhere else::

    {"error": {"status": 404, "code": "not_found", "message": "...", "details": null}}

``RootcauseError`` is translated once, by its ``http_status`` and ``code``. Browsers
asking for a page get the same information as an HTML page.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from rootcause.core.render.pages import render_error_page
from rootcause.errors import RootcauseError

log = logging.getLogger("rootcause.web")

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    503: "store_unavailable",
}
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    413: "Too large",
    422: "Invalid request",
    429: "Too many requests",
    500: "Server error",
    503: "Unavailable",
}


def error_body(status: int, code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, "details": details}}


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith(("/api/", "/-/")) or path.endswith((".json", ".md", ".txt", ".xml")):
        return False
    return "text/html" in request.headers.get("accept", "")


def error_response(
    request: Request,
    status: int,
    code: str,
    message: str,
    details: Any = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    if _wants_html(request):
        page = render_error_page(status, TITLES.get(status, "Error"), message)
        return HTMLResponse(page, status_code=status, headers=headers)
    return JSONResponse(error_body(status, code, message, details), status_code=status, headers=headers)


def _validation_details(exc: RequestValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": [str(p) for p in err.get("loc", ())], "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))}
        for err in exc.errors()
    ]


async def _rootcause_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RootcauseError)
    headers: dict[str, str] = {}
    if exc.http_status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="rootcause"'
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    if exc.http_status >= 500:
        log.error("%s: %s", exc.code, exc.message)
    return error_response(request, exc.http_status, exc.code, exc.message, headers=headers or None)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_CODES.get(exc.status_code, "error")
    message = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "error")
    if exc.status_code == 404 and message == "Not Found":
        message = f"nothing at {request.url.path}"
    if exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    return error_response(request, exc.status_code, code, message, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    details = _validation_details(exc)
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(p for p in first["loc"] if p != "body") or "request"
    message = f"{where}: {first['msg']}"
    return error_response(request, 422, "invalid_request", message, details)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(request, 500, "internal_error", "the server failed; the error was logged")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RootcauseError, _rootcause_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)
