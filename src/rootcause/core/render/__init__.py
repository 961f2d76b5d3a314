"""Renderers: pure functions of an entry. The CLI and the web site share them.

The names below are loaded when first asked for (PEP 562): a diagnosis rendered as text or Markdown imports its
own modules of this package, not the HTML renderer (jinja2) or the reproducers' model.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rootcause.core.model import Entry
    from rootcause.core.render.html import render_html
    from rootcause.core.render.json_view import entry_to_dict, render_json
    from rootcause.core.render.labels import Lang
    from rootcause.core.render.markdown import render_markdown
    from rootcause.core.reproducers import ReproducerView

Format = Literal["md", "json", "html", "text"]

__all__ = ["Format", "Lang", "entry_to_dict", "render_document", "render_html", "render_json", "render_markdown"]

_LAZY = {
    "render_html": "rootcause.core.render.html",
    "entry_to_dict": "rootcause.core.render.json_view",
    "render_json": "rootcause.core.render.json_view",
    "Lang": "rootcause.core.render.labels",
    "render_markdown": "rootcause.core.render.markdown",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def render_document(entry: Entry, fmt: Format, lang: Lang = "en", reproducers: Sequence[ReproducerView] = ()) -> str:
    """Render one entry to a string document (text is the CLI's rich view, not here)."""
    if fmt == "md":
        return __getattr__("render_markdown")(entry, lang, reproducers) + "\n"
    if fmt == "json":
        return __getattr__("render_json")(entry, reproducers) + "\n"
    if fmt == "html":
        return __getattr__("render_html")(entry, lang, reproducers=reproducers)
    raise ValueError(f"no document renderer for {fmt!r}")
