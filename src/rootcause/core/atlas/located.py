"""A located line: the located tier's answer (core/atlas/locate.py), as the diagnosis JSON holds it.

Its own module, so that a diagnosis imports the model alone: the index (and the atlas's own model) is
imported only when a line needs locating.
"""

from __future__ import annotations

from pydantic import BaseModel


class Located(BaseModel):
    """A line of the input that a released line of the stack prints: a known message with no reviewed entry."""

    package: str
    module: str
    module_line: int = 0  # the line in `module` at the release `source_url` names (0: unknown, native strings)
    function: str
    kind: str  # raise | warning | log | native
    exception: str
    first: str  # the first release with this wording (first of its first interval)
    last: str  # the last release with it (last of its last interval)
    source_url: str
    source: str  # the input's name
    line: int  # the line in that input
    text: str  # the input's line
    message: str  # the template as written in the library's source
    params: dict[str, str] = {}
    installed: str | None = None  # the package's version that `installed_has_it` was judged for
    installed_has_it: bool | None = None  # that version is within the template's releases (None: not known)
    family: str | None = None  # version-skew | abi | native-crash | configuration
    checks: list[str] = []  # the family's first checks
    checks_zh: list[str] = []
    also: int = 0  # further templates that match the line as well (other modules, other packages)
    count: int = 1  # distinct lines of the input this template printed (the item shows the first)
