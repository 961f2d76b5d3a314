"""The server-rendered pages. Links are relative, exactly as in the static export."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from rootcause.adapters.web.search import search_entries
from rootcause.adapters.web.settings import human_size
from rootcause.adapters.web.state import ServiceState, state_of
from rootcause.adapters.web.upload import diagnose_request
from rootcause.core.render.diagnosis_html import render_diagnosis_html
from rootcause.core.render.labels import Lang
from rootcause.core.render.pages import (
    SEARCH_PAGE_SIZE,
    render_browse,
    render_home,
    render_llms,
    render_robots,
    render_search,
    render_sitemap,
)
from rootcause.errors import NotFoundError

router = APIRouter(include_in_schema=False)
State = Annotated[ServiceState, Depends(state_of)]
GET = ["GET", "HEAD"]

ENTRY_FILES = {
    "index.html": ("html", "en"),
    "zh.html": ("html", "zh"),
    "index.json": ("json", "en"),
    "index.md": ("md", "en"),
    "zh.md": ("md", "zh"),
}
MEDIA = {
    "html": "text/html; charset=utf-8",
    "json": "application/json",
    "md": "text/markdown; charset=utf-8",
}


def _base(request: Request) -> str:
    return str(request.base_url)


@router.api_route("/", methods=GET, response_class=HTMLResponse)
@router.api_route("/index.html", methods=GET, response_class=HTMLResponse)
def home(state: State) -> HTMLResponse:
    page = render_home(state.entry_list, root="", server=True, max_upload=human_size(state.settings.max_upload_bytes))
    return HTMLResponse(page)


@router.post("/diagnose", response_class=HTMLResponse)
async def diagnose_page(request: Request, state: State) -> HTMLResponse:
    d = await diagnose_request(request, state.thread_index, state.settings.max_upload_bytes)
    return HTMLResponse(render_diagnosis_html(d, root=""))


@router.get("/diagnose")
def diagnose_get() -> RedirectResponse:
    return RedirectResponse("/", status_code=303)


Filter = Annotated[str | None, Query(max_length=100)]
Page = Annotated[int, Query(ge=1, le=1000)]
PageLang = Annotated[Literal["en", "zh"], Query()]


@router.api_route("/search/", methods=GET, response_class=HTMLResponse)
@router.api_route("/search/index.html", methods=GET, response_class=HTMLResponse)
def search_page(
    state: State, q: Annotated[str, Query(max_length=20_000)] = "", page: Page = 1, lang: PageLang = "en"
) -> HTMLResponse:
    size = SEARCH_PAGE_SIZE
    hits, total = search_entries(state, q, size, (page - 1) * size)
    return HTMLResponse(render_search(q, hits, root="../", server=True, total=total, page=page, lang=lang))


def _known(value: str | None, known: object, what: str) -> str | None:
    if value in (None, ""):
        return None
    if value not in known:  # type: ignore[operator]
        raise NotFoundError(f"no {what} {value!r}")
    return value


def _browse(state: ServiceState, root: str, domain: str | None, category: str | None, page: int, lang: str) -> str:
    d, c = _known(domain, state.domains, "domain"), _known(category, state.categories, "category")
    language: Lang = "zh" if lang == "zh" else "en"
    return render_browse(state.entry_list, root=root, domain=d, category=c, page=page, base="index.html", lang=language)


@router.api_route("/errors/", methods=GET, response_class=HTMLResponse)
@router.api_route("/errors/index.html", methods=GET, response_class=HTMLResponse)
def browse_all(
    state: State, domain: Filter = None, category: Filter = None, page: Page = 1, lang: PageLang = "en"
) -> HTMLResponse:
    return HTMLResponse(_browse(state, "../", domain, category, page, lang))


@router.api_route("/errors/{domain}/", methods=GET, response_class=HTMLResponse)
@router.api_route("/errors/{domain}/index.html", methods=GET, response_class=HTMLResponse)
def browse_domain(
    domain: str, state: State, category: Filter = None, page: Page = 1, lang: PageLang = "en"
) -> HTMLResponse:
    return HTMLResponse(_browse(state, "../../", domain, category, page, lang))


@router.api_route("/categories/{category}/", methods=GET, response_class=HTMLResponse)
@router.api_route("/categories/{category}/index.html", methods=GET, response_class=HTMLResponse)
def browse_category(category: str, state: State, page: Page = 1, lang: PageLang = "en") -> HTMLResponse:
    return HTMLResponse(_browse(state, "../../", None, category, page, lang))


@router.api_route("/errors/{domain}/{slug}/", methods=GET)
def entry_page(domain: str, slug: str, state: State) -> Response:
    return entry_file(domain, slug, "index.html", state)


@router.api_route("/errors/{domain}/{slug}/{name}", methods=GET)
def entry_file(domain: str, slug: str, name: str, state: State) -> Response:
    """index.html, zh.html, index.json, index.md and zh.md, with measured rates."""
    if name not in ENTRY_FILES:
        raise NotFoundError(f"an entry has no file {name!r} (one of {', '.join(ENTRY_FILES)})")
    fmt, lang = ENTRY_FILES[name]
    text = state.document(f"{domain}/{slug}", fmt, lang)  # with fleet hit counts in HTML
    return Response(text, media_type=MEDIA[fmt])


@router.api_route("/errors/{domain}/{slug}", methods=GET)
def entry_redirect(domain: str, slug: str, state: State) -> RedirectResponse:
    state.entry(f"{domain}/{slug}")
    return RedirectResponse(f"/errors/{domain}/{slug}/", status_code=308)


@router.api_route("/llms.txt", methods=GET)
def llms(request: Request, state: State) -> PlainTextResponse:
    return PlainTextResponse(render_llms(state.entry_list, base=_base(request), server=True))


@router.api_route("/sitemap.xml", methods=GET)
def sitemap(request: Request, state: State) -> Response:
    return Response(render_sitemap(state.entry_list, _base(request)), media_type="application/xml")


@router.api_route("/favicon.ico", methods=GET)
def favicon() -> Response:
    """No icon: an empty answer, so that browsers do not log a 404 on every page."""
    return Response(status_code=204)


@router.api_route("/robots.txt", methods=GET)
def robots(request: Request) -> PlainTextResponse:
    return PlainTextResponse(render_robots(_base(request)))
