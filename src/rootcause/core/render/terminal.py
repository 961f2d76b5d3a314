"""Building blocks for terminal text: wrapped to the console's width, never cropped, with hanging indents.

A marker ("1.", "✓", "$") sits in a narrow column of its own and the text wraps in the column
beside it, so that every wrapped line starts under the first word, not under the marker.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


def hanging(rows: list[tuple[Text | str, RenderableType]], indent: int = 0) -> RenderableType:
    """Rows of (marker, body): each body wraps under itself; markers share one right-aligned column."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    for marker, body in rows:
        grid.add_row(marker, body)
    return Padding(grid, (0, 0, 0, indent)) if indent else grid


def code(text: str, style: str = "yellow") -> Text:
    """A command or snippet: its own line breaks kept, long lines folded (never cut)."""
    return Text(text, style=style, overflow="fold")


def heading(text: str, style: str = "bold underline") -> Text:
    return Text(text, style=style)


def block(renderable: RenderableType, indent: int = 2) -> RenderableType:
    return Padding(renderable, (0, 0, 0, indent))
