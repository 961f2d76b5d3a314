"""Which workarounds to show first, judged by what this log and this environment show.

Each workaround may state an ``evidence`` pattern (RE2, tested against the finding's own lines)
and a ``requires`` requirement (PEP 508, tested against the environment). A workaround whose
evidence the log shows comes first; one whose requirement the environment fails comes last;
within each group the higher success rate first. Nothing is dropped: the views say how many
more there are, so that a renderer can print "+N more".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from packaging.version import InvalidVersion, Version

from rootcause.core.model import Workaround
from rootcause.core.versions import requirement_of

SHOWN_WORKAROUNDS = 3


class Support(StrEnum):
    SEEN = "seen"  # the log shows the workaround's condition
    UNKNOWN = "unknown"  # nothing in the log or the environment decides it
    EXCLUDED = "excluded"  # the environment fails the workaround's requirement


@dataclass(frozen=True)
class Judged:
    workaround: Workaround
    support: Support
    why: str | None


def _meets(requirement: str, env: dict[str, str]) -> tuple[bool | None, str | None]:
    name, req = requirement_of(requirement)  # parsed once per process
    if name not in env:
        return None, None
    try:
        have = Version(env[name])
    except InvalidVersion:
        return None, None
    if req.specifier.contains(have, prereleases=True):
        return True, f"{name} {have} meets {requirement}"
    return False, f"needs {requirement}; this environment has {name} {have}"


@functools.lru_cache(maxsize=4096)
def _evidence(regex: str) -> Any:
    """A workaround's evidence pattern, compiled once per process (it was compiled again for every finding)."""
    from rootcause.core.matching.patterns import compile_re2

    return compile_re2(regex)


def judge(workaround: Workaround, lines: Sequence[str], env: dict[str, str]) -> Judged:
    if workaround.requires:
        ok, why = _meets(workaround.requires, env)
        if ok is False:
            return Judged(workaround, Support.EXCLUDED, why)
    if workaround.evidence:
        rx = _evidence(workaround.evidence)
        for line in lines:
            if rx.search(line):
                return Judged(workaround, Support.SEEN, "the log shows this condition")
    return Judged(workaround, Support.UNKNOWN, None)


_ORDER = {Support.SEEN: 0, Support.UNKNOWN: 1, Support.EXCLUDED: 2}


def rank_workarounds(workarounds: Sequence[Workaround], lines: Sequence[str], env: dict[str, str]) -> list[Judged]:
    """Every workaround, the ones the evidence supports first (stable within a group by success rate)."""
    judged = [judge(w, lines, env) for w in workarounds]
    return sorted(judged, key=lambda j: (_ORDER[j.support], -j.workaround.success_rate.value))
