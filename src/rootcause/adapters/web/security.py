"""Security headers on every answer, set in one place (pure ASGI, no body copies).

The pages carry no inline code a policy would have to trust wholesale: their few inline
``<style>`` and ``<script>`` blocks are fixed text in the templates, so the
Content-Security-Policy lists each by its SHA-256 and allows nothing else inline.
Cache-Control follows the kind of answer: pages and machine files may be cached a while,
answers that depend on the moment are revalidated, and what a caller sent (diagnoses,
reports) is never stored.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_INLINE = re.compile(r"<(style|script)>(.*?)</\1>", re.DOTALL)

PAGE_CACHE = "public, max-age=300"
REVALIDATE = "no-cache"
NEVER_STORE = "no-store"


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline_hashes(html_sources: Iterable[str]) -> dict[str, set[str]]:
    """The hash of each fixed inline block ({"style": {...}, "script": {...}}); a block that
    holds a template expression is not fixed, so it is not trusted (the server does not
    render one: the offline search script is only in the static export)."""
    out: dict[str, set[str]] = {"style": set(), "script": set()}
    for source in html_sources:
        for kind, body in _INLINE.findall(source):
            if "{{" not in body and "{%" not in body:
                out[kind].add(csp_hash(body))
    return out


@cache
def page_policy() -> str:
    templates = resources.files("rootcause.core.render").joinpath("templates")
    sources = [f.read_text(encoding="utf-8") for f in templates.iterdir() if f.name.endswith(".html")]
    hashes = inline_hashes(sources)
    scripts = " ".join(sorted(hashes["script"]))
    styles = " ".join(sorted(hashes["style"]))
    return (
        "default-src 'none'; "
        f"script-src 'self' {scripts}; "
        f"style-src 'self' {styles}; "
        "img-src 'self' data:; font-src 'self'; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )


def cache_control(method: str, path: str, status: int) -> str:
    if status >= 400 or method not in ("GET", "HEAD"):
        return NEVER_STORE  # a diagnosis, a report, an error: the caller's own answer
    if path.startswith("/-/"):
        return REVALIDATE  # health and version describe this moment
    if path.startswith("/api/v1/"):
        if path.endswith("/outcomes"):
            return NEVER_STORE  # reports name their reporters
        return REVALIDATE  # measured rates change with every report
    return PAGE_CACHE


def relative_location(location: bytes) -> bytes:
    """A redirect as a path. The service only ever redirects within itself, and an absolute URL
    there is built from the request's ``Host`` (as Starlette's trailing-slash redirect builds it):
    it would send the client, and every cache on the way, wherever a forged ``Host`` says."""
    for scheme in (b"http://", b"https://"):
        if location[: len(scheme)].lower() == scheme:
            location = b"/" + location[len(scheme) :].partition(b"/")[2]
    if location.startswith(b"/"):  # '//evil.example/' would be another host: one slash only
        location = b"/" + location.lstrip(b"/\\")
    return location


class SecurityHeaders:
    """nosniff, no framing, a referrer policy, the CSP and Cache-Control on every response, and
    redirects as paths (never to the host a request's ``Host`` header names).

    It wraps the whole app, Starlette's ServerErrorMiddleware included, so a 500 carries them too.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.policy = page_policy().encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, relative_location(v)) if k.lower() == b"location" else (k, v)
                    for k, v in message.get("headers", [])
                ]
                present = {k.lower() for k, _ in headers}
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                    (b"content-security-policy", self.policy),
                    (b"cache-control", cache_control(method, path, message["status"]).encode()),
                ]
                headers += [(k, v) for k, v in extra if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


MAX_TARGET = 16 << 10  # a URL (path and query) past this is refused, as h11 refuses a longer head


class TargetCap:
    """A 400 for a URL over MAX_TARGET bytes. h11 refuses a request head over 16 KiB only while it
    is still incomplete; a longer head that arrives in one piece would reach the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) if scope["type"] == "http" else 0
        if target > MAX_TARGET:
            message = f"the URL is longer than {MAX_TARGET} bytes; send long texts with POST /api/v1/diagnose"
            body = json.dumps({"error": {"status": 400, "code": "bad_request", "message": message, "details": None}})
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body.encode()})
            return
        await self.app(scope, receive, send)
