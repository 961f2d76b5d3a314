"""Advice freshness (RC602, RC603): does what a workaround or dead end names still exist? Pure.

The adapter hands over the names index (adapters/atlas/names_build.py): per package, the releases read
and, for each module, public name, keyword, env var and console script, the releases that define it.
An item that some release defined and the package's latest read release lacks is gone (RC602); an
item that the oldest releases read lack is new (RC603). Either is fine when the advice says for which
releases it holds: the workaround's `requires`, the entry's `versions`, or a `<pkg><spec>` in its
`condition` that leaves those releases out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from rootcause.core.advice_names import NamedItem, named_items
from rootcause.core.atlas.names import NamesIndex, PackageNames
from rootcause.core.model import Entry

Finding = tuple[str, str, str]  # path, code, message
Specs = list[tuple[str, SpecifierSet]]
_CAMEL = re.compile(r"^[A-Z][a-z0-9]+[A-Z]\w*$")  # AutoModel, GradScaler: a class name, not an alias like F


@dataclass(frozen=True)
class Presence:
    """Where one named item is defined in one package: the indices of the releases read that have it."""

    package: str
    releases: Sequence[str]
    present: frozenset[int]

    @property
    def gone(self) -> bool:
        return bool(self.present) and len(self.releases) - 1 not in self.present

    @property
    def new(self) -> bool:
        return bool(self.present) and 0 not in self.present and not self.gone

    @property
    def last(self) -> str:
        return self.releases[max(self.present)]

    @property
    def first(self) -> str:
        return self.releases[min(self.present)]

    @property
    def latest(self) -> str:
        return self.releases[-1]

    def after(self, index: int) -> str:
        return self.releases[index + 1]


class Freshness:
    """Lookups over a names index: which releases of which packages define an item."""

    def __init__(self, index: NamesIndex) -> None:
        self.index = index

    @cached_property
    def roots(self) -> dict[str, list[str]]:
        """Import root (`torch`, `pytorch_lightning`) -> the packages whose modules start with it."""
        out: dict[str, list[str]] = {}
        for package, names in self.index.items():
            for root in {m.split(".")[0] for m in names.names.get("module", {})}:
                out.setdefault(root, []).append(package)
        return out

    @staticmethod
    def _at(names: PackageNames, kind: str, name: str) -> set[int]:
        return {i for a, b in names.names.get(kind, {}).get(name, []) for i in range(a, b + 1)}

    def _chain_at(self, names: PackageNames, parts: list[str], from_module: bool) -> set[int]:
        """Releases where `a.b.c` is a module prefix followed by public names (or, for a class, all names)."""
        symbols = [self._at(names, "symbol", p) for p in parts]
        if not from_module:
            return set.intersection(*symbols) if symbols else set()
        found: set[int] = set()
        for k in range(1, len(parts) + 1):
            here = self._at(names, "module", ".".join(parts[:k]))
            for rest in symbols[k:]:
                here &= rest
            found |= here
        return found

    def presences(self, item: NamedItem) -> list[Presence]:
        out: list[Presence] = []
        for package, names in self.index.items():
            present = self._present(item, names, package)
            if present:
                out.append(Presence(package, names.releases, frozenset(present)))
        return out

    def _present(self, item: NamedItem, names: PackageNames, package: str) -> set[int]:
        if item.kind in ("env", "script"):
            return self._at(names, item.kind, item.name)
        call = item.call if item.kind == "kwarg" else item.name
        parts = (call or "").split(".")
        if parts[0] in self.roots:
            if package not in self.roots[parts[0]]:
                return set()
            where = self._chain_at(names, parts, from_module=True)
        elif _CAMEL.match(parts[0]):
            where = self._chain_at(names, parts, from_module=False)
        else:
            return set()
        if item.kind == "kwarg":  # a parameter, a **kwargs key, or a dataclass field (a public name of the class)
            return where & (self._at(names, "kwarg", item.name) | self._at(names, "symbol", item.name))
        return where


def _excluded(specs: Iterable[tuple[str, SpecifierSet]], package: str, version: str) -> bool:
    """Whether a stated bound on `package` leaves `version` out."""
    try:
        v = Version(version)
    except InvalidVersion:
        return False
    name = canonicalize_name(package)
    return any(canonicalize_name(p) == name and not spec.contains(v, prereleases=True) for p, spec in specs)


_CONDITION_SPEC = re.compile(r"(?P<name>[A-Za-z][\w.-]*)\s*(?P<spec>(?:[<>=!~]=?\s*\d+(?:\.(?:\d+|\*))*\s*,?\s*)+)")


def _bounds(requirements: Iterable[str | None], conditions: Iterable[str | None]) -> Specs:
    out: Specs = []
    for text in requirements:
        try:
            if text:
                req = Requirement(text)
                out.append((req.name, req.specifier))
        except InvalidRequirement:
            continue
    for text in conditions:
        for m in _CONDITION_SPEC.finditer(text or ""):
            try:
                out.append((m["name"], SpecifierSet(m["spec"].strip().rstrip(","))))
            except InvalidSpecifier:
                continue
    return out


def _label(item: NamedItem) -> str:
    what = {"env": "an environment variable", "api": "an API", "kwarg": "a keyword argument", "script": "a command"}
    if item.kind == "kwarg":
        return f"{item.name}= (a keyword argument of {item.call})"
    return f"{item.name} ({what[item.kind]})"


def _next_minor(older: str, newer: str) -> bool:
    """Whether `newer` is the minor release right after `older` (so the release read between them is exact)."""
    a, b = Version(older).release, Version(newer).release
    return len(a) >= 2 and len(b) >= 2 and a[0] == b[0] and b[1] == a[1] + 1


def _upper_bound(last: str, absent: str) -> str:
    """`<2.0` when a new major release dropped it, else `<` the first release read without it."""
    a, b = Version(last), Version(absent)
    return f"{b.major}.0" if b.major > a.major else absent


def _separates(specs: Specs, package: str, older: str, newer: str) -> bool:
    """Whether the advice's own text states this very boundary (`huggingface_hub < 0.34: huggingface-cli login`):
    one stated bound holds one release and not the other (a text that states both sides, `>= 0.34` for one command
    and `< 0.34` for the other, states it too)."""
    try:
        a, b = Version(older), Version(newer)
    except InvalidVersion:
        return False
    name = canonicalize_name(package)
    return any(
        canonicalize_name(p) == name and spec.contains(a, prereleases=True) != spec.contains(b, prereleases=True)
        for p, spec in specs
    )


def _judge(field: str, item: NamedItem, found: list[Presence], specs: Specs, said: Specs) -> list[tuple[str, str]]:
    if not found or any(not p.gone and not p.new for p in found):
        return []  # unknown to the index, or in every release read of some package
    if all(p.gone for p in found):
        if any(_excluded([*specs, *said], p.package, p.latest) for p in found):
            return []  # bounded, or its own text pins older releases (`pip install "transformers<5"`)
        p = max(found, key=lambda p: Version(p.last))
        absent = p.after(max(p.present))
        return [(
            "RC602",
            f"{field} names {_label(item)}, which {p.package} {p.latest} no longer has (last in {p.last}, absent "
            f"from {absent}): bound the advice (requires: {p.package}<{_upper_bound(p.last, absent)}) "
            "or name what replaced it",
        )]  # fmt: skip
    # new: only where the release read before it is the minor right before (every minor read, as torch's are)
    alive = [p for p in found if not p.gone and _next_minor(p.releases[min(p.present) - 1], p.first)]
    before = {p.package: p.releases[min(p.present) - 1] for p in alive}
    if not alive or any(_excluded(specs, p.package, before[p.package]) for p in alive):
        return []
    if any(_separates(said, p.package, before[p.package], p.first) for p in alive):
        return []
    p = min(alive, key=lambda p: Version(p.first))
    since = ".".join(p.first.split(".")[:2])
    return [(
        "RC603",
        f"{field} names {_label(item)}, which {p.package} has only from {since} ({p.first} has it, "
        f"{p.releases[min(p.present) - 1]} does not): say so (requires: {p.package}>={since})",
    )]  # fmt: skip


def _env_presences(found: list[Presence], named: AbstractSet[str]) -> list[Presence]:
    """An env var: gone only when no package's latest release has it; new only in a package the entry's bounds
    name (a literal that vLLM copies from NCCL's docs does not date NCCL's variable)."""
    if any(not p.gone and not p.new for p in found):
        return found  # some package has read it all along (CUDA_HOME: torch's cpp_extension)
    if any(not p.gone for p in found):
        return [p for p in found if canonicalize_name(p.package) in named and not p.gone]
    return found


def check_freshness(
    entries: Iterable[tuple[Entry, str]], index: NamesIndex, undated_env: frozenset[str] = frozenset()
) -> list[Finding]:
    """RC602/RC603 for every workaround and dead end of every entry. ``undated_env``: environment variables that the
    env var lists mark `dated: false`, read by a runtime outside the packages the index reads (HSA_OVERRIDE_GFX_VERSION,
    read by ROCm's thunk): a package that merely mentions one does not date it."""
    if not index:
        return []
    fresh = Freshness(index)
    out: list[Finding] = []
    for entry, path in entries:
        entry_reqs = [v.requirement for v in entry.versions]
        advice = [
            (f"workarounds.{n}", f"{w.action}\n{w.how}", [*entry_reqs, w.requires], [w.condition])
            for n, w in enumerate(entry.workarounds)
        ] + [(f"dead_ends.{n}", d.action, entry_reqs, [d.condition]) for n, d in enumerate(entry.dead_ends)]
        for field, text, reqs, conditions in advice:
            specs = _bounds(reqs, conditions)
            named = {canonicalize_name(p) for p, _ in specs}
            for item in named_items(text):
                if item.kind == "env" and item.name in undated_env:
                    continue
                found = fresh.presences(item)
                if item.kind == "env":
                    found = _env_presences(found, named)
                said = _bounds([], [text])
                out += [(path, code, message) for code, message in _judge(field, item, found, specs, said)]
    return out
