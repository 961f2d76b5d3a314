"""The MCP server for coding agents: the canon's tools and resources over the official SDK.

``rootcause mcp`` serves it over stdio (:func:`run_stdio`); the web service mounts the same
tools over streamable HTTP at ``/mcp`` (:func:`mount_mcp`). Answers are compact and
size-bounded (:mod:`rootcause.core.agent_view`); a malformed call gets an MCP error
(a tool result with ``isError``, or a JSON-RPC error for resources), never a crash.

Its parts are siblings: ``mcp_canon`` (the canon as each host holds it, tool-error helpers)
and ``mcp_outcomes`` (outcome reports and where they go); their public names are re-exported here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import INVALID_PARAMS, ToolAnnotations
from pydantic import Field

from rootcause import __version__
from rootcause.adapters.mcp_canon import (
    ECHO_MAX,
    ERROR_MAX,
    Canon,
    LocalCanon,
    ServiceCanon,
    as_tool_errors,
    echo,
)
from rootcause.adapters.mcp_outcomes import (
    HTTP_TIMEOUT_S,
    NOT_CONFIGURED,
    SERVICE_URL_ENV,
    TOKEN_ENV,
    OutcomeReport,
    Reporter,
    env_reporter,
    in_process_reporter,
    parse_versions,
    post_outcome,
    resolve_item,
)
from rootcause.core import agent_view as view
from rootcause.core.model import Entry

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.types import Receive, Scope, Send

    from rootcause.adapters.web.state import ServiceState

__all__ = [
    "ECHO_MAX",
    "ERROR_MAX",
    "HTTP_TIMEOUT_S",
    "MCP_PATH",
    "NOT_CONFIGURED",
    "SERVICE_URL_ENV",
    "TOKEN_ENV",
    "Canon",
    "LocalCanon",
    "OutcomeReport",
    "Reporter",
    "ServiceCanon",
    "build_server",
    "echo",
    "env_reporter",
    "mount_mcp",
    "post_outcome",
    "run_stdio",
]

MCP_PATH = "/mcp"
MAX_QUERY = 2_000
NOTE_MAX = 2_000
INSTRUCTIONS = (
    "rootcause knows the errors of the ML infrastructure stack (PyTorch, CUDA, NCCL, DeepSpeed, Hugging Face). "
    "When a command prints an error or a traceback, call diagnose with the output: it names the known error, "
    "its cause, the workarounds ranked by how often they worked (with the exact how) and the dead ends to skip, "
    "or says plainly that nothing known matched. After trying a workaround, call report_outcome."
)

# What each tool says of itself in tools/list: a model reads it on every turn, so it is exact and short.
DIAGNOSE_DESCRIPTION = (
    "Diagnose an error message, traceback or log against rootcause's known errors of the ML stack (PyTorch, "
    "CUDA, NCCL, DeepSpeed, Hugging Face, packaging). Returns the findings best first (at most 3; the rest by "
    "id), each with its id, confidence, the matched line, the extracted parameters (rank, sizes, device...), "
    "the versions verdict, the root cause, the top workarounds with their exact `how` and their [index] for "
    "report_outcome, and the dead ends to avoid. Says plainly when no known error matched. "
    "At most 4,000 characters unless detail=true."
)
GET_ENTRY_DESCRIPTION = (
    "One known error by its id: signature, root cause, the best workarounds (each with its [index] and exact "
    "`how`), the dead ends, the affected versions. Compact by default (at most 4,000 characters); "
    "detail=true gives the full entry."
)
SEARCH_DESCRIPTION = (
    "Look the known-error canon up by words, error code, id or pasted message; returns ids and signatures, "
    "best first. Use diagnose for a whole log, get_entry for one entry."
)
MISSING_OUTCOME_FIELDS = "give index (the [index] shown, or the action's text) and result (worked|partial|failed)"
REPORT_OUTCOME_DESCRIPTION = (
    "Report whether a workaround (or a dead end) of an entry worked, so that the ranking learns from real "
    "outcomes. Needs a rootcause service and a write token: over stdio ROOTCAUSE_SERVICE_URL and "
    "ROOTCAUSE_TOKEN, over HTTP the connection's 'Authorization: Bearer' header. Without them it fails and "
    "says how to configure them."
)

Fmt = Literal["text", "json"]
LangArg = Annotated[Literal["en", "zh"], Field(description="Language of the entry's text: en or zh.")]
FormatArg = Annotated[Fmt, Field(description="text (compact, the default) or json (compact JSON).")]
EntryId = Annotated[str, Field(description="An entry id, domain/slug, e.g. pytorch/nccl-timeout-allreduce.")]


# -- the server ----------------------------------------------------------------------------------
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def build_server(canon: Canon, reporter: Reporter = env_reporter) -> MCPServer:
    """The MCP server: four tools and the entries as resources."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    server: MCPServer = MCPServer(
        "rootcause",
        title="rootcause: known errors of the ML infrastructure stack",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    # The SDK's constructor calls logging.basicConfig(); the host (uvicorn, the CLI) owns logging.
    root.setLevel(level)
    root.handlers[:] = handlers
    _add_tools(server, canon, reporter)
    _add_resources(server, canon)
    return server


def _add_tools(server: MCPServer, canon: Canon, reporter: Reporter) -> None:
    @server.tool(description=DIAGNOSE_DESCRIPTION, annotations=READ_ONLY, structured_output=False)
    def diagnose(
        text: Annotated[
            str,
            Field(
                description="The error output: a message, a traceback or a whole log (over 1 MiB keeps head and tail)."
            ),
        ],
        env: Annotated[
            str | None,
            Field(description="Versions for the affected-versions verdict, e.g. 'torch==2.1.0,nccl==2.18'."),
        ] = None,
        detail: Annotated[bool, Field(description="Up to 10 findings with every workaround; a larger answer.")] = False,
        format: FormatArg = "text",
    ) -> str:
        if not text.strip():
            raise ToolError("text is empty: pass the error message, the traceback or the log output to diagnose")
        from rootcause.adapters.atlas.held import atlas_loader
        from rootcause.adapters.atlas.names_held import names_loader
        from rootcause.core.diagnosis import diagnose_text

        cut = view.truncate_input(text)
        with as_tool_errors():
            environment = parse_versions(env)
            with canon.index() as index:
                d = diagnose_text(cut.text, index, environment, atlas=atlas_loader(), names=names_loader())
            notes = [cut.note] if cut.note else []
            return view.diagnosis_view(d, canon.entries(), fmt=format, detail=detail, notes=notes)

    @server.tool(description=GET_ENTRY_DESCRIPTION, annotations=READ_ONLY, structured_output=False)
    def get_entry(
        id: EntryId,
        lang: LangArg = "en",
        detail: Annotated[
            bool, Field(description="The full entry (Markdown, or every field in JSON) instead of the compact view.")
        ] = False,
        format: FormatArg = "text",
    ) -> str:
        with as_tool_errors():
            entry = canon.entry(id)
            if not detail:
                return view.entry_view(entry, lang, fmt=format)
            from rootcause.core.render import entry_to_dict, render_markdown

            if format == "json":
                return view.bounded_entry_dict(entry_to_dict(entry))
            return view.bounded_document(render_markdown(entry, lang))

    @server.tool(description=SEARCH_DESCRIPTION, annotations=READ_ONLY, structured_output=False)
    def search(
        query: Annotated[str, Field(description="Words, an error code, an entry id or a pasted message.")],
        domain: Annotated[
            str | None, Field(description="Only entries of this domain, e.g. pytorch, cuda, nccl, huggingface.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=20, description="How many entries at most.")] = 5,
        format: FormatArg = "text",
    ) -> str:
        with as_tool_errors():
            results = _search(canon, query, domain, limit)
            return view.search_view(query, results, fmt=format)

    @server.tool(
        description=REPORT_OUTCOME_DESCRIPTION,
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
        ),
        structured_output=False,
    )
    def report_outcome(
        id: EntryId,
        ctx: Context,
        index: Annotated[
            int | str | None,
            Field(description="The [index] that diagnose/get_entry showed (or the action's text)."),
        ] = None,
        result: Annotated[Literal["worked", "partial", "failed"] | None, Field(description="How it went.")] = None,
        env: Annotated[
            dict[str, str] | str | None,
            Field(description='The versions it was tried on: {"torch": "2.3.1"} or "torch==2.3.1,nccl==2.20.5".'),
        ] = None,
        note: Annotated[str | None, Field(max_length=NOTE_MAX, description="One or two sentences, optional.")] = None,
        kind: Annotated[
            Literal["workaround", "dead_end"], Field(description="dead_end when reporting one of the dead ends.")
        ] = "workaround",
        workaround: Annotated[int | str | None, Field(description="Former name of index (still accepted).")] = None,
        outcome: Annotated[
            Literal["worked", "partial", "failed"] | None, Field(description="Former name of result (still accepted).")
        ] = None,
    ) -> str:
        with as_tool_errors():
            item = index if index is not None else workaround
            how_it_went = result or outcome
            if item is None or how_it_went is None:
                raise ToolError(MISSING_OUTCOME_FIELDS)
            entry = canon.entry(id)
            position, action = resolve_item(entry, kind, item)
            report = OutcomeReport(
                entry.id, kind, position, action, how_it_went, parse_versions(env), (note or "").strip() or None
            )
            stored = reporter(report, ctx)
        return (
            f"recorded: {how_it_went} for {entry.id} {kind.replace('_', ' ')} [{position}] "
            f"{view.flat(action, 120)!r} (report {stored.get('id', '?')}). Thank you."
        )


def _search(canon: Canon, query: str, domain: str | None, limit: int) -> list[view.SearchResult]:
    from rootcause.core.diagnosis import diagnose_text

    q = query.strip()[:MAX_QUERY]
    if not q:
        raise ToolError("query is empty: give words, an error code, an entry id or a pasted message")
    entries = canon.entries()
    domains = sorted({e.domain for e in entries.values()})
    if domain is not None and domain.strip() not in domains:
        raise ToolError(f"unknown domain {echo(domain)}; the domains are: {', '.join(domains)}")
    results: list[view.SearchResult] = []
    seen: set[str] = set()

    def add(entry_id: str, score: float, how: str) -> None:
        entry = entries.get(entry_id)
        if entry is not None and entry_id not in seen and (domain is None or entry.domain == domain.strip()):
            seen.add(entry_id)
            results.append(view.SearchResult(entry, score, how))

    add(q, 1.0, "id")
    with canon.index() as index:
        for f in diagnose_text(q, index).findings:
            add(f.id, f.score, f.matched_by)
        lexical = dict(index.lexical.search(q, limit=50))
    for hit in view.keyword_results(q, entries.values(), lexical):
        add(hit.entry.id, hit.score, hit.matched_by)
    return results[:limit]


def _entry_resource(canon: Canon, domain: str, slug: str) -> Entry:
    try:
        return canon.entry(f"{domain}/{slug}")
    except ToolError as exc:
        raise ResourceNotFoundError(str(exc)) from None


def _add_resources(server: MCPServer, canon: Canon) -> None:
    from mcp.shared.exceptions import MCPError

    @server.resource("rootcause://entries", name="entries", mime_type="text/plain")
    def entry_list() -> str:
        """Every entry of the canon, one per line: id, a tab, its signature."""
        return view.entries_index(canon.entries().values())

    @server.resource("rootcause://entries/{domain}/{slug}{?lang}", name="entry", mime_type="text/markdown")
    def entry_markdown(domain: str, slug: str, lang: str = "en") -> str:
        """One entry as Markdown (?lang=zh for Chinese)."""
        from rootcause.core.render import render_markdown

        if lang not in ("en", "zh"):
            raise MCPError(code=INVALID_PARAMS, message=f"lang must be 'en' or 'zh', got {lang!r}")
        return render_markdown(_entry_resource(canon, domain, slug), lang) + "\n"  # type: ignore[arg-type]

    @server.resource("rootcause://entries/{domain}/{slug}/json", name="entry-json", mime_type="application/json")
    def entry_json(domain: str, slug: str) -> str:
        """One entry as JSON (the index.json of the web site)."""
        from rootcause.core.render import render_json

        return render_json(_entry_resource(canon, domain, slug))


# -- hosts ---------------------------------------------------------------------------------------
def run_stdio(canon: tuple[str, ...] = ()) -> None:
    """Serve over stdin/stdout until the client closes them; the canon loads while the client connects."""
    local = LocalCanon(canon)
    threading.Thread(target=local.warm, name="rootcause-canon", daemon=True).start()
    build_server(local).run("stdio")


class _HttpEndpoint:
    """The ASGI app at /mcp: the SDK's streamable HTTP session manager, started by the app's lifespan.

    A session manager runs once; each lifespan (each server start, each test client) gets a new one.
    Stateless JSON mode: any worker process answers any request, no session affinity needed.
    """

    def __init__(self, server: MCPServer, max_body_bytes: int | None = None) -> None:
        self.server = server
        self.max_body_bytes = max_body_bytes
        self.manager: Any = None

    @asynccontextmanager
    async def lifespan(self, _app: object) -> AsyncIterator[None]:
        from mcp.server.transport_security import TransportSecuritySettings

        # The service has no host allow-list anywhere else; reads are public and writes need a token.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        options: dict[str, Any] = {"stateless_http": True, "json_response": True, "transport_security": security}
        if self.max_body_bytes:
            options["max_request_body_size"] = self.max_body_bytes  # the service's own upload limit
        self.server.streamable_http_app(**options)
        manager = self.server.session_manager
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.manager is None:
            from starlette.responses import JSONResponse

            body = {"error": {"status": 503, "code": "mcp_not_started", "message": "the MCP endpoint is not running"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


def mount_mcp(app: FastAPI, path: str = MCP_PATH) -> None:
    """Serve the MCP tools on the web service over streamable HTTP at ``path``."""
    from fastapi import APIRouter

    state: ServiceState = app.state.rootcause
    server = build_server(ServiceCanon(state), in_process_reporter(state))
    endpoint = _HttpEndpoint(server, state.settings.max_upload_bytes)
    router = APIRouter(lifespan=endpoint.lifespan)
    router.add_route(path, endpoint, include_in_schema=False)  # type: ignore[arg-type]  # an ASGI app, not a handler
    app.include_router(router)  # FastAPI merges the router's lifespan into the app's
