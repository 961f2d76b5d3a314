"""Where a Python library's own message was raised: the frames of the traceback a line ends.

Some messages are printed by a library of Python itself for any program: pickle's ``invalid load key, '<'`` and
``Ran out of input``, ``Can't pickle local object ...``. An entry explains them for one caller (``torch.load``, a
DataLoader starting its workers), and a pattern's ``raised_in`` names that caller's modules. When the paste shows
the traceback the line ends, and none of its frames is in those modules, the message came from another program
(an app's ``pickle.loads`` of a cache value, ``torch.save`` of a lambda), and the entry's diagnosis would send its
user the wrong way: the pattern does not claim the line (docs/ranking.md, "Where a Python library's message was
raised"). A line with no frames above it, a bare line or a log's, is claimed as before.

Only small inputs (pastes) are checked, after their scan, with all their lines at hand; the work per hit is bounded
(``MAX_TRACEBACK_LINES`` lines read upwards, for at most ``MAX_CHECKED_HITS`` hits per input).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rootcause.core.matching.scan_result import MAX_LINE
from rootcause.core.normalize import strip_framing

MAX_TRACEBACK_LINES = 400  # lines read upwards from a hit for the frames of its traceback (bounds the work)
MAX_CHECKED_HITS = 200  # hits of `raised_in` patterns checked per input; later ones are kept as matched
# a Python traceback's frame line (its source line follows, indented deeper); scan_wrap reads the same lines
FRAME_LINE = re.compile(r'^(?P<indent>\s*)File "(?P<path>[^"\n]*)", line \d+')
_CARETS = re.compile(r"\s*[\^~]+\s*$")  # Python 3.11+'s markers under a frame's source line


def traceback_frames(lines: Sequence[str], n: int) -> list[str]:
    """The file paths (forward slashes) of the frames of the traceback that line ``n`` (1-based) ends, innermost
    first: the run of frame lines, their source lines (indented) and caret lines directly above line ``n``. Empty
    when the line above is none of these: the paste shows no traceback for this line."""
    paths: list[str] = []
    i = n - 2
    stop = max(-1, i - MAX_TRACEBACK_LINES)
    while i > stop:
        text = strip_framing(lines[i][:MAX_LINE]).text
        frame = FRAME_LINE.match(text)
        if frame is not None:
            paths.append(frame.group("path").replace("\\", "/"))
        elif not (_CARETS.match(text) or (text[:1] in (" ", "\t") and text.strip())):
            break  # `Traceback (most recent call last):`, a message, a blank: the traceback's frames end here
        i -= 1
    return paths


def raised_elsewhere(lines: Sequence[str], n: int, modules: Sequence[str]) -> bool:
    """Whether line ``n`` ends a traceback shown in the paste none of whose frames is in ``modules``."""
    paths = traceback_frames(lines, n)
    return bool(paths) and not any(module in path for path in paths for module in modules)
