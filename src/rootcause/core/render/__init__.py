"""Renderers: pure functions of an entry. The CLI and the web site share them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rootcause.core.model import Entry
from rootcause.core.render.html import render_html
from rootcause.core.render.json_view import entry_to_dict, render_json
from rootcause.core.render.labels import Lang
from rootcause.core.render.markdown import render_markdown
from rootcause.core.reproducers import ReproducerView

Format = Literal["md", "json", "html", "text"]

__all__ = ["Format", "Lang", "entry_to_dict", "render_document", "render_html", "render_json", "render_markdown"]


def render_document(
    entry: Entry, fmt: Format, lang: Lang = "en", reproducers: Sequence[ReproducerView] = ()
) -> str:
    """Render one entry to a string document (text is the CLI's rich view, not here)."""
    if fmt == "md":
        return render_markdown(entry, lang, reproducers) + "\n"
    if fmt == "json":
        return render_json(entry, reproducers) + "\n"
    if fmt == "html":
        return render_html(entry, lang, reproducers=reproducers)
    raise ValueError(f"no document renderer for {fmt!r}")
