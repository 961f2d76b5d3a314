"""Is a version-skew claim on `cannot import name 'X' from 'pkg'` (or `module 'pkg' has no attribute 'X'`) founded?
The names index says.

The family entry that answers `cannot import name` (docs/ranking.md) says the installed release of the package is
older or newer than the code expects. That is wrong, and costs its reader a day of upgrading and downgrading, when
the name is misspelt (``from peft import Loraconfig``) or belongs to another package (``from trl import
TrainingArguments``). The names index (docs/atlas.md, "The names index") holds the public names of the releases it
read of each package, so two facts can be checked without guessing:

- no release read defines the name, and one defines a name that differs from it only in case or inner underscores:
  a misspelling (leading underscores alone are a name made public or private by some release: version skew);
- no release read defines the name, and the newest release read of another package of the index defines it: the
  import names the wrong package.

Either withdraws the claim, and the diagnosis says the fact instead. A name that no release read defines and
nothing else explains keeps the claim: the releases read are a sample (a name removed before the oldest one read is
still version skew). Pure: the index is given, never read here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeAlias, TypeVar

from rootcause.core.atlas.names import NamesIndex, PackageNames
from rootcause.core.matching.scan_result import Hit
from rootcause.core.model import Entry

NamesSource: TypeAlias = NamesIndex | Callable[[], NamesIndex | None] | None

_MAX_SHOWN = 3


class ClaimGroup(Protocol):
    entry: Entry
    hits: list[tuple[str, Hit]]


Group = TypeVar("Group", bound=ClaimGroup)


def _fold(name: str) -> str:
    return name.replace("_", "").lower()


def _defines(names: PackageNames, name: str) -> bool:
    if name in names.names.get("symbol", {}):
        return True
    return any(m == name or m.endswith("." + name) for m in names.names.get("module", {}))


def unfounded_import(package: str, name: str, index: NamesIndex) -> str | None:
    """Why a version-skew reading of `cannot import name '<name>' from '<package>'` is unfounded, or None when the
    index cannot tell (the package is not in it, a release read defines the name, or nothing else explains it)."""
    top = package.split(".")[0]
    names = index.get(top) or index.get(top.replace("_", "-"))  # the index is keyed by distribution name
    if names is None or not names.releases or _defines(names, name):
        return None
    held = f"the names index holds no '{name}' in {top} (releases {names.releases[0]} to {names.releases[-1]} read)"
    folded, public = _fold(name), name.lstrip("_")
    # a variant that differs only in leading underscores is a private name made public, or the reverse, in some
    # release: version skew, not a misspelling (vllm's `_set_default_torch_dtype`, later `set_default_torch_dtype`)
    variants = sorted(n for n in names.names.get("symbol", {}) if _fold(n) == folded and n.lstrip("_") != public)
    if variants:
        shown = ", ".join(f"'{v}'" for v in variants[:_MAX_SHOWN])
        return f"{held}, only {shown}: check the spelling of the import"
    elsewhere = sorted(
        f"{other} {pkg.latest}"
        for other, pkg in index.items()
        if pkg is not names and pkg.releases and (pkg.span("symbol", name) or ("", ""))[1] == pkg.latest
    )
    if elsewhere:
        shown = ", ".join(elsewhere[:_MAX_SHOWN])
        return f"{held}, but {shown} defines it: check which package it is imported from"
    return None


def _import_params(group: ClaimGroup) -> list[tuple[str, str]]:
    return [
        (hit.params["package"], hit.params["name"])
        for _, hit in group.hits
        if "package" in hit.params
        and "name" in hit.params
        and ("cannot import name" in hit.clean or "has no attribute" in hit.clean)
    ]


def drop_unfounded_imports(groups: Sequence[Group], source: NamesSource) -> tuple[list[Group], list[str]]:
    """The groups without the family claims of `cannot import name` or `has no attribute` that the names index shows
    unfounded (every name the group met is), and what the index showed for each. The index is loaded only when a
    group needs it."""
    candidates = [g for g in groups if g.entry.family and _import_params(g)]
    if source is None or not candidates:
        return list(groups), []
    index: Mapping[str, PackageNames] | None = source() if callable(source) else source
    if not index:
        return list(groups), []
    dropped: set[int] = set()
    facts: list[str] = []
    for group in candidates:
        reasons = [unfounded_import(package, name, index) for package, name in dict.fromkeys(_import_params(group))]
        if all(reasons):
            dropped.add(id(group))
            facts.extend(r for r in reasons if r)
    return [g for g in groups if id(g) not in dropped], facts
