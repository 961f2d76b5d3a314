"""The JSON API, /api/v1/…, described by the OpenAPI document at /api/v1/openapi.json."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from rootcause.adapters.store import NewOutcome, RateRule, TokenRecord
from rootcause.adapters.store.tokens import hash_token
from rootcause.adapters.web.search import search_entries
from rootcause.adapters.web.state import ServiceState, state_of
from rootcause.adapters.web.upload import diagnose_request, limited_body
from rootcause.core.diagnosis import Diagnosis
from rootcause.core.model import Entry
from rootcause.core.render import entry_to_dict
from rootcause.core.stats import recompute_all
from rootcause.errors import AuthError, UsageError

State = Annotated[ServiceState, Depends(state_of)]
bearer = HTTPBearer(auto_error=False, description="a write token from `rootcause token create NAME`")

NOTE_MAX = 2000
OUTCOME_BODY_MAX = 64 << 10
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")
PackageName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
VersionText = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$")]
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: int = Field(description="the HTTP status, again")
    code: str = Field(description="a stable name: not_found, unauthorized, invalid_request, rate_limited, …")
    message: str = Field(description="one line for a person")
    details: Any = Field(default=None, description="for invalid_request: a list of {loc, msg, type}")


class ErrorOut(BaseModel):
    """Every error has this shape."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"example": {"error": {"status": 404, "code": "not_found", "message": "…", "details": None}}},
    )
    error: ErrorDetail


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


ERROR_SCHEMA = _error("an error (every error has this shape)")
COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    422: _error("a parameter or the body fails validation"),
    500: _error("a bug; logged, never shown"),
    503: _error("the database cannot be reached"),
}
router = APIRouter(prefix="/api/v1", responses=COMMON_ERRORS)


class OutcomeIn(BaseModel):
    """One report: what was tried, how it went, on which versions."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["workaround", "dead_end"] = Field(
        default="workaround", description="a workaround, or a dead end, of the entry"
    )
    index: int = Field(ge=0, le=99, description="its position in the entry, from 0")
    result: Literal["worked", "partial", "failed"]
    versions: dict[PackageName, VersionText] = Field(
        default_factory=dict, max_length=32, description='e.g. {"torch": "2.3.1", "nccl": "2.20.5"}'
    )
    note: str | None = Field(default=None, max_length=NOTE_MAX)

    @field_validator("versions")
    @classmethod
    def _canonical_names(cls, value: dict[str, str]) -> dict[str, str]:
        return {canonicalize_name(k): v for k, v in value.items()}

    @field_validator("note")
    @classmethod
    def _clean_note(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = _CONTROL.sub("", unicodedata.normalize("NFC", value)).strip()
        return value or None


class OutcomeOut(BaseModel):
    id: str
    entry_id: str
    kind: str
    index: int
    action: str
    result: str
    versions: dict[str, str]
    note: str | None
    reporter: str
    created_at: str


def _summary(e: Entry) -> dict[str, Any]:
    return {
        "id": e.id,
        "signature": e.signature,
        "signature_zh": e.signature_zh,
        "domain": e.domain,
        "category": e.category,
        "verification": e.verification.value,
        "generic": e.generic,
        "withdrawn": e.is_withdrawn,
        "url": f"/errors/{e.id}/",
    }


@router.post(
    "/diagnose",
    response_model=Diagnosis,
    responses={
        400: _error("nothing to diagnose (a blank text, no file), a malformed body, or an env that does not parse"),
        413: _error("the body is larger than ROOTCAUSE_MAX_UPLOAD_BYTES"),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "the error text or log; streamed, at most ROOTCAUSE_MAX_UPLOAD_BYTES",
            "content": {
                "text/plain": {"schema": {"type": "string", "minLength": 1}},
                "application/json": {
                    "schema": {
                        "type": "object",
                        "required": ["text"],
                        "properties": {
                            "text": {"type": "string"},
                            "env": {"type": "object", "additionalProperties": {"type": "string"}},
                        },
                    }
                },
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "env": {"type": "string", "example": "torch==2.1.0,nccl==2.18"},
                            "text": {"type": "string"},
                            "file": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        },
                    }
                },
            },
        }
    },
)
async def diagnose(
    request: Request,
    state: State,
    env: Annotated[str | None, Query(description="versions, e.g. torch==2.1.0,nccl==2.18")] = None,
) -> Response:
    """Diagnose a message, a traceback or whole logs: the same JSON as `rootcause diagnose -f json`."""
    d = await diagnose_request(request, state.thread_index, state.settings.max_upload_bytes)
    return Response(d.model_dump_json(), media_type="application/json")


@router.get("/search")
def search(
    state: State,
    q: Annotated[str, Query(max_length=20_000, description="words, a code or a pasted message")],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=10_000)] = 0,
) -> dict[str, Any]:
    """Ranked search (English and Chinese): a pasted message finds its entry first, then BM25 over the
    engine's lexical index. ``total`` counts every match; ``offset`` pages through them."""
    hits, total = search_entries(state, q, limit, offset)
    return {
        "query": q,
        "total": total,
        "offset": offset,
        "results": [_summary(h.entry) | {"score": round(h.score, 3), "matched_by": h.matched_by} for h in hits],
    }


@router.get("/entries")
def list_entries(
    state: State,
    domain: str | None = None,
    category: str | None = None,
    include_withdrawn: bool = False,
) -> dict[str, Any]:
    """Every entry (a summary of each), optionally of one domain or category."""
    shown = [
        e
        for e in state.entry_list
        if (domain is None or e.domain == domain)
        and (category is None or e.category == category)
        and (include_withdrawn or not e.is_withdrawn)
    ]
    return {"count": len(shown), "entries": [_summary(e) for e in shown]}


@router.get("/entries/{domain}/{slug}", responses={404: ERROR_SCHEMA})
def get_entry(domain: str, slug: str, state: State) -> dict[str, Any]:
    """One entry as index.json, with every rate that reports back as measured."""
    return entry_to_dict(state.measured(f"{domain}/{slug}").entry)


@router.get("/entries/{domain}/{slug}/stats", responses={404: ERROR_SCHEMA})
def entry_stats(domain: str, slug: str, state: State) -> dict[str, Any]:
    """How the reports change the numbers: counts, posteriors, 90% intervals, notes."""
    return state.measured(f"{domain}/{slug}").as_dict()


@router.get("/entries/{domain}/{slug}/outcomes", responses={404: ERROR_SCHEMA})
def list_outcomes(
    domain: str,
    slug: str,
    state: State,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """The latest outcome reports of an entry."""
    entry = state.entry(f"{domain}/{slug}")
    rows = state.store.recent_outcomes(entry.id, limit)
    return {"entry_id": entry.id, "outcomes": [o.as_dict() for o in rows]}


def writer(state: State, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> TokenRecord:
    """The token's owner; checked from the headers alone, before any body is read."""
    if credentials is None or not credentials.credentials.strip():
        raise AuthError(
            "writing needs a token: send 'Authorization: Bearer <token>' "
            "(a maintainer creates one with 'rootcause token create NAME')"
        )
    record = state.store.find_token(hash_token(credentials.credentials.strip()))
    if record is None:
        raise AuthError("unknown or revoked token")
    return record


def _rules(state: ServiceState, request: Request | None, token: TokenRecord) -> list[RateRule]:
    if state.settings.rate_limit is None:
        return []
    limit, window = state.settings.rate_limit
    address = request.client.host if request is not None and request.client else "unknown"
    return [RateRule(f"token:{token.id}", limit, window), RateRule(f"address:{address}", limit, window)]


def idempotency_key(
    key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="any unique string (a UUID) per report: a retry with the same key and body "
            "returns the stored report instead of counting it twice",
        ),
    ] = None,
) -> str | None:
    if key is None:
        return None
    if not IDEMPOTENCY_KEY.fullmatch(key):
        raise UsageError("Idempotency-Key: 1 to 255 visible ASCII characters")
    return key


def allowed_writer(
    request: Request,
    state: State,
    token: Annotated[TokenRecord, Depends(writer)],
    key: Annotated[str | None, Depends(idempotency_key)],
) -> TokenRecord:
    """A writer whose limits are not spent: a flood is refused before its body costs a parse.
    (The store counts each write again, in the write's own transaction.) A replay of a key this
    token already stored is not a new write: it is answered from the store, limits or not."""
    _check_limits(state, request, token, key)
    return token


def _check_limits(state: ServiceState, request: Request | None, token: TokenRecord, key: str | None) -> None:
    if key is None or not state.store.knows_key(token.id, key):
        state.store.check_limits(_rules(state, request, token))


async def read_report(request: Request) -> OutcomeIn:
    """The body, read only now (after the token and the limits), at most OUTCOME_BODY_MAX bytes."""
    raw = b"".join([chunk async for chunk in limited_body(request, OUTCOME_BODY_MAX)])
    try:
        return OutcomeIn.model_validate_json(raw or b"null")
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False, include_context=False)]
        ) from None


def _request_hash(entry_id: str, report: OutcomeIn) -> str:
    canonical = json.dumps({"entry": entry_id, **report.model_dump()}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


@router.post(
    "/entries/{domain}/{slug}/outcomes",
    status_code=201,
    response_model=OutcomeOut,
    responses={
        201: {"description": "stored (or, with a repeated Idempotency-Key, the report stored before)"},
        400: ERROR_SCHEMA,
        401: ERROR_SCHEMA,
        404: ERROR_SCHEMA,
        413: ERROR_SCHEMA,
        422: ERROR_SCHEMA,
        429: ERROR_SCHEMA,
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": OutcomeIn.model_json_schema()}},
        }
    },
)
async def add_outcome(
    domain: str,
    slug: str,
    request: Request,
    state: State,
    token: Annotated[TokenRecord, Depends(allowed_writer)],
    key: Annotated[str | None, Depends(idempotency_key)],
) -> JSONResponse:
    """Record which workaround (or dead end) was tried and whether it worked. Needs a token.

    The token and the limits are checked before the body is read. Send an `Idempotency-Key`
    to make retries safe: a repeat returns the same report (header `Idempotent-Replayed: true`),
    and the key reused for a different report is refused (422 `idempotency_key_reused`).
    """
    entry = state.entry(f"{domain}/{slug}")
    report = await read_report(request)
    return await anyio.to_thread.run_sync(lambda: store_report(state, request, token, entry, report, key))


def store_report(
    state: ServiceState, request: Request | None, token: TokenRecord, entry: Entry, report: OutcomeIn, key: str | None
) -> JSONResponse:
    """Store a validated report of a checked writer; the answer of the outcome API."""
    items = entry.workarounds if report.kind == "workaround" else entry.dead_ends
    if report.index >= len(items):
        raise RequestValidationError(
            [
                {
                    "loc": ("body", "index"),
                    "msg": f"{entry.id} has {len(items)} {report.kind.replace('_', ' ')}s "
                    f"(index 0 to {len(items) - 1})",
                    "type": "value_error",
                }
            ]
        )
    new = NewOutcome(
        entry_id=entry.id,
        kind=report.kind,
        index=report.index,
        action=items[report.index].action,
        result=report.result,
        token_id=token.id,
        versions=report.versions,
        note=report.note,
        idempotency_key=key,
        request_hash=None if key is None else _request_hash(entry.id, report),
    )
    stored = state.store.add_outcome(new, _rules(state, request, token))
    headers = {"Location": f"/api/v1/entries/{entry.id}/outcomes"}
    if stored.replayed:
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(stored.as_dict(), status_code=201, headers=headers)


def report_with_credentials(
    domain: str,
    slug: str,
    report: OutcomeIn,
    request: Request | None,
    state: ServiceState,
    credentials: HTTPAuthorizationCredentials | None,
    key: str | None = None,
) -> JSONResponse:
    """The outcome API for an in-process caller (the MCP endpoint): the same token, limit,
    index and idempotency checks, in the same order."""
    token = writer(state, credentials)
    _check_limits(state, request, token, key)
    return store_report(state, request, token, state.entry(f"{domain}/{slug}"), report, key)


@router.get("/stats")
def stats(state: State) -> dict[str, Any]:
    """Counts over the canon, with verification as the reports lift it, and report totals."""
    tallies = state.store.tallies()
    entries = recompute_all(state.entry_list, tallies)
    live = [e for e in entries if not e.is_withdrawn]
    return {
        "entries": len(live),
        "withdrawn": len(entries) - len(live),
        "by_domain": dict(sorted(Counter(e.domain for e in live).items())),
        "by_category": dict(sorted(Counter(e.category for e in live).items())),
        "by_verification": dict(sorted(Counter(e.verification.value for e in live).items())),
        "outcomes": sum(t.reports for t in tallies.values()),
        "entries_with_outcomes": sum(1 for t in tallies.values() if t.reports),
        "store": state.store.kind,
    }
