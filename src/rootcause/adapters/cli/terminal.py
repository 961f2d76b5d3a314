"""Printing rich renderables for people: the terminal's width, and no trailing blanks (rich pads table
cells to their width, which would leave spaces at the end of lines that people copy)."""

from __future__ import annotations

import re
import sys

from rich.console import Console, RenderableType

_TRAILING = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def print_rich(renderable: RenderableType) -> None:
    console = Console()
    with console.capture() as captured:
        console.print(renderable)
    sys.stdout.write(_TRAILING.sub(r"\1", captured.get()))
