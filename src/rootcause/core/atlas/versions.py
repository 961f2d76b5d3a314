"""Whether a version is within a template's release intervals (packaging's version order)."""

from __future__ import annotations

from collections.abc import Sequence

from packaging.version import InvalidVersion, Version


def _version(text: str) -> Version | None:
    try:
        return Version(Version(text).public)  # `2.1.0+cu121` is 2.1.0
    except InvalidVersion:
        return None


def has_it(intervals: Sequence[tuple[str, str]], installed: str) -> bool | None:
    """True when `installed` lies within an interval; False when it is outside them all, and in no minor release
    that bounds one (the atlas reads one patch per minor release, so a version of a bounding minor release that
    it did not read is not known: None). None also for a version or bound that does not parse."""
    v = _version(installed)
    if v is None or not intervals:
        return None
    unsure = False
    for first, last in intervals:
        a, b = _version(first), _version(last)
        if a is None or b is None:
            return None
        if a <= v <= b:
            return True
        if v.release[:2] in (a.release[:2], b.release[:2]):
            unsure = True
    return None if unsure else False
