"""`rootcause atlas link`: write each canon generation's atlas templates, and optionally its bounds, into the YAML.

For each generation of a package the atlas covers, the templates of that package that print its wording
(core/atlas/link.py) become its `atlas:` keys; when none does and its bounds say `unchecked`, `atlas_unlinked`
says so (and which releases were read), and the next run tries again. A generation whose `atlas_unlinked` a
maintainer wrote (any text not starting with `AUTO_UNLINKED`) is left alone: the atlas's releases would mislead
there. With `write_bounds`, a generation whose `versions` disagree with those templates' releases (lint RC509), or
whose bounds say `unchecked`, gets the atlas's bounds by minor release and a `bounds_source` that names the
template's line and the releases read. Files are written in `rootcause fmt`'s canonical form, each only when it
changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from rootcause.adapters.atlas.bounds import load_bounds, load_package_templates
from rootcause.adapters.canon_files import dump_entry, iter_entry_files, load_file, write_atomic
from rootcause.core.atlas.bounds import AUTO_UNLINKED, AtlasBounds, corrected, disagreement, hull
from rootcause.core.atlas.link import link_generation
from rootcause.core.model import UNCHECKED, Entry, Source, SourceKind


@dataclass
class LinkReport:
    generations: int = 0  # of packages the atlas covers
    linked: int = 0
    unlinked: list[str] = field(default_factory=list)  # "id generations.N (versions)"
    kept: list[str] = field(default_factory=list)  # unlinked by a maintainer's reason
    keys_changed: int = 0
    bounds_changed: list[str] = field(default_factory=list)  # "id generations.N: old -> new"
    sources_written: int = 0
    files_written: list[str] = field(default_factory=list)


def _releases_read(bounds: AtlasBounds, package: str) -> str:
    read = bounds.read(package)
    return f"{read[0][0]}..{read[-1][0]}, {len(read)} releases" if read else "no release"


def link_canon(
    roots: Iterable[Path],
    atlas_path: Path,
    *,
    write_bounds: bool = False,
    dry_run: bool = False,
    say: Callable[[str], None] = lambda line: None,
) -> LinkReport:
    bounds = load_bounds(atlas_path)
    files = [(file, entry_id) for root in roots for file, entry_id in iter_entry_files(root)]
    loaded = [(file, load_file(file, expected_id=entry_id)) for file, entry_id in files]
    packages = {g.package for _, e in loaded for g in e.generations if bounds.covers(g.package)}
    templates = load_package_templates(atlas_path, packages)
    report = LinkReport()
    for file, entry in loaded:
        changed = False
        generations = []
        for n, generation in enumerate(entry.generations):
            where = f"{entry.id} generations.{n} ({generation.versions})"
            package_templates = templates.get(canonicalize_name(generation.package))
            if not bounds.covers(generation.package) or package_templates is None:
                generations.append(generation)
                continue
            report.generations += 1
            if generation.atlas_unlinked and not generation.atlas_unlinked.startswith(AUTO_UNLINKED):
                report.kept.append(where)  # a maintainer said why the atlas must not bound it
                say(f"{where}: kept unlinked: {generation.atlas_unlinked}")
                generations.append(generation)
                continue
            links = link_generation(package_templates, generation.wording)
            keys = [link.key for link in links]
            update: dict[str, object] = {}
            if keys != generation.atlas:
                update["atlas"] = keys
                report.keys_changed += 1
            if not links:
                report.unlinked.append(where)
                read = _releases_read(bounds, generation.package)
                lines = len([line for line in generation.wording.splitlines() if line.strip()])
                what = (
                    "the wording" if lines == 1 else f"the wording's {lines} lines (the atlas keeps first lines only)"
                )
                why: str | None = None  # bounds read from a release: nothing to explain
                if generation.bounds_source == UNCHECKED:
                    why = f"{AUTO_UNLINKED} matches {what} ({generation.package} {read} read)"
                    why += _maintainers_addition(generation.atlas_unlinked)
                if why != generation.atlas_unlinked:
                    update["atlas_unlinked"] = why
                say(f"{where}: {why}")
                generations.append(generation.model_copy(update=update) if update else generation)
                changed = changed or bool(update)
                continue
            if generation.atlas_unlinked is not None:
                update["atlas_unlinked"] = None
            report.linked += 1
            found = hull(bounds, generation.package, keys)
            say(f"{where}: {', '.join(keys)} ({found.describe() if found else 'no release read'})")
            if write_bounds and found is not None:
                requirement = Requirement(generation.versions)
                wrong = disagreement(str(requirement.specifier), found)
                if wrong is not None:
                    update["versions"] = corrected(str(requirement.specifier), found, requirement.name)
                    report.bounds_changed.append(f"{where} -> {update['versions']}: {wrong}")
                if wrong is not None or generation.bounds_source == UNCHECKED:
                    newest = max(links, key=lambda link: found.position(link.template.releases[-1][1]))
                    note = f"bounds read from the message atlas (rootcause atlas link): {found.describe()}"
                    earlier = generation.bounds_source
                    if isinstance(earlier, Source):  # keep what was read before, marked as replaced
                        note += f"; replaces {generation.versions} read at {earlier.ref}"
                        note += f" ({earlier.note})" if earlier.note else ""
                    update["bounds_source"] = Source(kind=SourceKind.SOURCE, ref=newest.template.where, note=note)
                    report.sources_written += 1
            generations.append(generation.model_copy(update=update) if update else generation)
            changed = changed or bool(update)
        if changed:
            new = Entry.model_validate({**entry.model_dump(), "generations": [g.model_dump() for g in generations]})
            if not dry_run:
                write_atomic(file, dump_entry(new))
            report.files_written.append(str(file))
    return report


def _maintainers_addition(note: str | None) -> str:
    """What a maintainer appended to link's own reason ("...; the atlas reads macOS wheels"), kept when link
    rewrites the reason with the releases it read now: the generated part ends with ' read)'."""
    if not note or not note.startswith(AUTO_UNLINKED):
        return ""
    end = note.find(" read)")
    return "" if end < 0 else note[end + len(" read)") :]
