"""From what each release holds to templates with first/last release intervals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rootcause.core.atlas.extract import Extracted
from rootcause.core.atlas.model import ReleaseInterval, Template

Key = tuple[str, str, str]  # (kind, exception, pattern): the identity of a template across releases


def key_of(found: Extracted) -> Key:
    return (str(found.kind), found.exception, found.pattern)


def compress(releases: Sequence[str], present: set[str]) -> tuple[ReleaseInterval, ...]:
    """The runs of consecutive `releases` (already in release order) that are in `present`."""
    runs: list[ReleaseInterval] = []
    start: str | None = None
    previous = ""
    for release in releases:
        if release in present:
            start = release if start is None else start
            previous = release
        elif start is not None:
            runs.append(ReleaseInterval(first=start, last=previous))
            start = None
    if start is not None:
        runs.append(ReleaseInterval(first=start, last=previous))
    return tuple(runs)


def merge_releases(
    package: str,
    releases: Sequence[str],
    found_by_release: Mapping[str, Sequence[Extracted]],
    source_url: Callable[[str, Extracted], str] = lambda release, found: "",
) -> list[Template]:
    """One Template per distinct key, its module/function/line from the newest release that holds it.

    `releases` is oldest first; `source_url(release, found)` gives the line's address at that release.
    """
    holders: dict[Key, set[str]] = {}
    newest: dict[Key, tuple[str, Extracted]] = {}
    for release in releases:
        for found in found_by_release.get(release, ()):
            key = key_of(found)
            holders.setdefault(key, set()).add(release)
            newest[key] = (release, found)
    templates: list[Template] = []
    for key, (release, found) in newest.items():
        templates.append(
            Template(
                package=package,
                module=found.module,
                function=found.function,
                line=found.line,
                exception=found.exception,
                kind=found.kind,
                message=found.message,
                pattern=found.pattern,
                literal=found.literal,
                releases=compress(releases, holders[key]),
                source_url=source_url(release, found),
            )
        )
    return templates
