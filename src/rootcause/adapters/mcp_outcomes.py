"""Outcome reports from the MCP server's report_outcome tool: which item of an entry, and where
the report goes (a service named in the environment, or the web service in-process).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from rootcause import __version__
from rootcause.adapters.mcp_canon import ERROR_MAX, as_tool_errors, echo
from rootcause.core import agent_view as view
from rootcause.core.model import Entry
from rootcause.errors import RootcauseError

if TYPE_CHECKING:
    from rootcause.adapters.web.state import ServiceState

SERVICE_URL_ENV = "ROOTCAUSE_SERVICE_URL"
TOKEN_ENV = "ROOTCAUSE_TOKEN"
HTTP_TIMEOUT_S = 20.0
NOT_CONFIGURED = (
    "report_outcome needs a rootcause service with a write token, and none is configured: set "
    f"{SERVICE_URL_ENV} (the service's base URL, e.g. https://rootcause.example.org) and {TOKEN_ENV} "
    "(a token from `rootcause token create NAME` on that service) in the MCP server's environment, e.g. "
    f"`claude mcp add rootcause -e {SERVICE_URL_ENV}=https://… -e {TOKEN_ENV}=rc_… -- rootcause mcp`. "
    "Nothing was recorded."
)


# -- outcome reports -----------------------------------------------------------------------------
@dataclass(frozen=True)
class OutcomeReport:
    entry_id: str
    kind: Literal["workaround", "dead_end"]
    index: int
    action: str
    result: Literal["worked", "partial", "failed"]
    versions: dict[str, str] = field(default_factory=dict)
    note: str | None = None

    def body(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "index": self.index,
            "result": self.result,
            "versions": self.versions,
            "note": self.note,
        }


Reporter = Callable[[OutcomeReport, "Context | None"], dict[str, Any]]


def _error_message(raw: bytes) -> str:
    try:
        error = json.loads(raw)["error"]
        message = str(error.get("message") or error.get("code"))
        details = error.get("details")
        if isinstance(details, list):
            message += ": " + "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in details[:3])
        return view.flat(message, 500)
    except (ValueError, KeyError, TypeError, AttributeError):
        return view.flat(raw.decode("utf-8", "replace"), 300) or "no details"


def post_outcome(url: str, token: str, report: OutcomeReport) -> dict[str, Any]:
    """POST the report to a service's outcome API; its refusals become tool errors."""
    endpoint = f"{url.rstrip('/')}/api/v1/entries/{report.entry_id}/outcomes"
    request = urllib.request.Request(
        endpoint,
        data=json.dumps(report.body()).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"rootcause-mcp/{__version__}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
            result: dict[str, Any] = json.loads(response.read())
            return result
    except urllib.error.HTTPError as exc:
        reason = _error_message(exc.read())
        message = f"the service at {url} refused the report (HTTP {exc.code}): {reason}"
        raise ToolError(view.flat(message, ERROR_MAX)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        cause: object = getattr(exc, "reason", exc)
        raise ToolError(f"cannot reach the rootcause service at {url}: {cause}. Nothing was recorded.") from None


def env_reporter(report: OutcomeReport, ctx: Context | None = None) -> dict[str, Any]:
    """Report to the service named by ROOTCAUSE_SERVICE_URL with ROOTCAUSE_TOKEN."""
    url = os.environ.get(SERVICE_URL_ENV, "").strip()
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not url or not token:
        raise ToolError(NOT_CONFIGURED)
    if not url.startswith(("http://", "https://")):
        raise ToolError(f"{SERVICE_URL_ENV} must be an http(s) URL, got {echo(url)}. Nothing was recorded.")
    return post_outcome(url, token, report)


def in_process_reporter(state: ServiceState) -> Reporter:
    """On the web service: the caller's bearer token (the MCP connection's Authorization header),
    through the outcome API's own handler: the same token, index and rate-limit checks."""

    def report(outcome: OutcomeReport, ctx: Context | None) -> dict[str, Any]:
        headers = ctx.headers if ctx is not None else None
        scheme, _, token = (headers or {}).get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            if os.environ.get(SERVICE_URL_ENV) and os.environ.get(TOKEN_ENV):
                return env_reporter(outcome, ctx)  # this service forwards to another one
            raise ToolError(
                "report_outcome on this HTTP endpoint needs your write token: connect with the header "
                "'Authorization: Bearer <token>' (a maintainer creates one with `rootcause token create NAME`). "
                "Nothing was recorded."
            )
        from fastapi.exceptions import RequestValidationError
        from fastapi.security import HTTPAuthorizationCredentials
        from pydantic import ValidationError

        from rootcause.adapters.web.api import OutcomeIn, report_with_credentials

        domain, _, slug = outcome.entry_id.partition("/")
        request = ctx.request_context.request if ctx is not None else None
        try:
            response = report_with_credentials(
                domain,
                slug,
                OutcomeIn.model_validate(outcome.body()),
                request,  # type: ignore[arg-type]
                state,
                HTTPAuthorizationCredentials(scheme="Bearer", credentials=token.strip()),
            )
        except RootcauseError as exc:
            raise ToolError(view.flat(f"the service refused the report: {exc}", ERROR_MAX)) from None
        except (RequestValidationError, ValidationError) as exc:
            errors = exc.errors()
            msg = "; ".join(str(e.get("msg", e)) for e in errors[:3])
            raise ToolError(view.flat(f"the service refused the report: {msg}", ERROR_MAX)) from None
        result: dict[str, Any] = json.loads(bytes(response.body))
        return result

    return report


def resolve_item(entry: Entry, kind: str, ref: int | str) -> tuple[int, str]:
    items = (
        [(w.action, w.how) for w in entry.workarounds]
        if kind == "workaround"
        else [(d.action, d.why_fails) for d in entry.dead_ends]
    )
    label = "workarounds" if kind == "workaround" else "dead ends"
    if not items:
        raise ToolError(f"{entry.id} has no {label}")
    text = str(ref).strip()
    if text.lstrip("[").rstrip("]").isdigit():
        n = int(text.lstrip("[").rstrip("]"))
        if n < len(items):
            return n, items[n][0]
    else:
        wanted = " ".join(text.lower().split())
        for n, (action, _) in enumerate(items):
            if " ".join(action.lower().split()) == wanted:
                return n, action
        starts = [n for n, (action, _) in enumerate(items) if action.lower().startswith(wanted) and wanted]
        if len(starts) == 1:
            return starts[0], items[starts[0]][0]
    choices = "; ".join(f"[{n}] {view.flat(action, 60)}" for n, (action, _) in enumerate(items))
    raise ToolError(
        f"{entry.id} has no {kind.replace('_', ' ')} {echo(ref)}: give an index from 0 to {len(items) - 1} ({choices})"
    )


def parse_versions(env: dict[str, str] | str | None) -> dict[str, str]:
    from rootcause.core.versions import parse_env_spec

    if env is None:
        return {}
    if isinstance(env, str):
        with as_tool_errors():
            return parse_env_spec(env)
    return {str(k).strip(): str(v).strip() for k, v in env.items()}
