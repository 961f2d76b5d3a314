"""The canon's version bounds, read from the atlas: template keys, and how a stated bound is compared.

A canon generation names its atlas templates by a **key** that survives a rebuild: the package, then the first
12 hex digits of the sha256 of the template's identity across releases (kind, exception class, RE2 pattern;
core/atlas/intervals.py). Row ids change on every build; the identity changes only when the library rewords the
message (a new template) or the extractor changes how it writes patterns (then `rootcause atlas link` writes the
keys again, and lint RC511 names every stale one).

**How bounds are compared.** The atlas reads one release per minor version (its latest patch; NCCL: the last tag
of each minor), so it knows nothing of the patches between. A generation's `versions` specifier agrees with the
atlas when, over the releases the atlas read of that package, it contains exactly those from the first release
that prints the wording to the last one (the hull of the templates' intervals; a gap in between is not checked).
So `torch>=2.2` and `torch>=2.2.1` both agree with a wording first read in 2.2.2 when 2.1.2 lacks it, and an NCCL
bound read at an exact tag (`nccl>=2.10.3`) agrees when it sits between two tags the atlas read. When the newest
release read still prints the wording, the upper bound must be open (`<2.16` for an unreleased 2.16 is a guess).
A wording first read in the oldest release read may be older still: the lower bound is then not checked.
The bound that the atlas suggests is by minor version: `>=` the minor of the first release, `<` the minor of the
next release read after the last; where the minor does not tell two releases read apart (xformers 0.0.13 and 0.0.16
are both `0.0`), by as many more parts as it takes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

KEY_DIGITS = 12
AUTO_UNLINKED = "no atlas template"  # how `rootcause atlas link`'s own `atlas_unlinked` reasons begin


def template_key(package: str, kind: str, exception: str, pattern: str) -> str:
    """`torch:1a2b3c4d5e6f`: the package and a digest of the template's identity across releases."""
    digest = hashlib.sha256("\0".join((kind, exception, pattern)).encode()).hexdigest()[:KEY_DIGITS]
    return f"{canonicalize_name(package)}:{digest}"


def key_package(key: str) -> str:
    return key.rsplit(":", 1)[0]


def release_version(release: str) -> Version | None:
    """A release as the atlas names it, as a version: `2.3.1`, NCCL's tag `v2.18.6-1` as 2.18.6."""
    text = release.removeprefix("v")
    if "-" in text:
        text = text.split("-", 1)[0]
    try:
        return Version(Version(text).public)
    except InvalidVersion:
        return None


def bound_above(version: Version, beyond: Version | None) -> str:
    """`version` by its minor (`2.2` for 2.2.2), or by as many more parts as it takes to lie above `beyond`, the
    release on the other side of the bound: xformers 0.0.13 after 0.0.12 is `0.0.13`, since `0.0` is below both."""
    for size in range(2, len(version.release) + 1):
        text = ".".join(str(n) for n in (*version.release, 0)[:size])
        if beyond is None or Version(text) > beyond:
            return text
    return str(Version(version.public))


@dataclass(frozen=True)
class AtlasBounds:
    """What lint needs from the atlas: the releases read of each package (oldest first), and the intervals of the
    template keys that the canon names."""

    releases: Mapping[str, Sequence[str]]  # canonical package name -> releases read, oldest first
    intervals: Mapping[str, tuple[tuple[str, str], ...]]  # key -> (first, last) runs

    def covers(self, package: str) -> bool:
        return canonicalize_name(package) in self.releases

    def read(self, package: str) -> list[tuple[str, Version]]:
        """The releases read of a package with their versions, those that parse, oldest first."""
        out = []
        for release in self.releases.get(canonicalize_name(package), ()):
            version = release_version(release)
            if version is not None:
                out.append((release, version))
        return out


@dataclass(frozen=True)
class Hull:
    """The releases read that print a wording (`printing`: indices into the package's releases), from `first` to
    `last`; a release between them that is not one of them lies in a gap between the wording's intervals."""

    package: str
    read: list[tuple[str, Version]]
    printing: frozenset[int]

    @property
    def first(self) -> int:
        return min(self.printing)

    @property
    def last(self) -> int:
        return max(self.printing)

    def prints(self, n: int) -> bool:
        """Whether the n-th release read prints the wording (a release in a gap between intervals does not)."""
        return n in self.printing

    def position(self, release: str) -> int:
        """Where a release lies among those read (-1 when it is not one of them)."""
        return next((n for n, (r, _) in enumerate(self.read) if r == release), -1)

    @property
    def open_upper(self) -> bool:
        return self.last == len(self.read) - 1

    def describe(self) -> str:
        first, last = self.read[self.first][0], self.read[self.last][0]
        tail = " (the newest release read)" if self.open_upper else f", not {self.read[self.last + 1][0]}"
        head = "" if self.first == 0 else f"not {self.read[self.first - 1][0]}, "
        return f"{self.package} {first}..{last}{tail}; {head}{len(self.read)} releases read"

    def suggested(self, name: str = "") -> str:
        """The requirement by minor version: `torch>=2.2,<2.4`, `torch>=2.2`, `torch<2.4` or `torch` (`name`: the
        package as the canon spells it, `huggingface_hub`; default its canonical name)."""
        parts = []
        if self.first > 0:
            parts.append(f">={bound_above(self.read[self.first][1], self.read[self.first - 1][1])}")
        if not self.open_upper:
            parts.append(f"<{bound_above(self.read[self.last + 1][1], self.read[self.last][1])}")
        return (name or self.package) + ",".join(parts)


def hull(bounds: AtlasBounds, package: str, keys: Sequence[str]) -> Hull | None:
    """The releases read of `package` from the first that holds any of `keys` to the last; None when none does."""
    read = bounds.read(package)
    index = {release: n for n, (release, _) in enumerate(read)}
    spans = [
        (index[first], index[last])
        for key in keys
        for first, last in bounds.intervals.get(key, ())
        if first in index and last in index
    ]
    if not spans:
        return None
    return Hull(canonicalize_name(package), read, frozenset(n for a, b in spans for n in range(a, b + 1)))


def disagreement(specifier: str, found: Hull) -> str | None:
    """Why a specifier (`>=2.2,<2.4`) disagrees with the hull over the releases read, or None when it agrees."""
    try:
        spec = SpecifierSet(specifier, prereleases=True)
    except InvalidSpecifier:
        return None  # RC503's business
    wrong_in = [r for n, (r, v) in enumerate(found.read) if not found.first <= n <= found.last and v in spec]
    # a release in a gap between the intervals is checked neither way (a specifier may leave it out, or keep it)
    wrong_out = [r for n, (r, v) in enumerate(found.read) if found.prints(n) and v not in spec]
    reasons = []
    if wrong_out:
        reasons.append(f"excludes {', '.join(wrong_out[:3])}{' ...' if len(wrong_out) > 3 else ''} that print it")
    if wrong_in:
        reasons.append(f"includes {', '.join(wrong_in[:3])}{' ...' if len(wrong_in) > 3 else ''} that do not")
    if found.open_upper and any(s.operator in ("<", "<=", "==", "===", "~=") for s in spec):
        reasons.append("has an upper bound, but the newest release read still prints it")
    return "; ".join(reasons) or None


def corrected(specifier: str, found: Hull, name: str = "") -> str:
    """The requirement with each side of `specifier` that disagrees with the hull replaced by the atlas's bound by
    minor release, and each side that agrees kept as written (`nccl>=2.10.3` stays)."""
    try:
        clauses = list(SpecifierSet(specifier, prereleases=True))
    except InvalidSpecifier:
        return found.suggested(name)
    if any(c.operator not in (">=", ">", "<", "<=") for c in clauses):
        return found.suggested(name)
    inside = [v for n, (_, v) in enumerate(found.read) if found.first <= n <= found.last]
    below = [v for _, v in found.read[: found.first]]
    above = [v for _, v in found.read[found.last + 1 :]]

    def agrees(side: list[Specifier], outside: list) -> bool:
        spec = SpecifierSet(",".join(str(c) for c in side), prereleases=True)
        return all(v in spec for v in inside) and not any(v in spec for v in outside)

    lower = [c for c in clauses if c.operator in (">=", ">")]
    upper = [c for c in clauses if c.operator in ("<", "<=")]
    parts = []
    if agrees(lower, below) and (lower or found.first == 0):
        parts += [str(c) for c in lower]
    elif found.first > 0:
        parts.append(f">={bound_above(found.read[found.first][1], found.read[found.first - 1][1])}")
    if found.open_upper:
        pass  # the newest release read prints it: no upper bound
    elif upper and agrees(upper, above):
        parts += [str(c) for c in upper]
    else:
        parts.append(f"<{bound_above(found.read[found.last + 1][1], found.read[found.last][1])}")
    return (name or found.package) + ",".join(parts)
