"""Lint RC509-RC511: a generation's bounds are those of the message atlas, for every package the atlas covers.

Pure: the adapter loads the atlas (adapters/atlas/bounds.py) and passes the releases read and each template key's
intervals in. How a specifier is compared with the atlas's releases is in core/atlas/bounds.py and docs/lint.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from rootcause.core.atlas.bounds import AtlasBounds, disagreement, hull, key_package
from rootcause.core.model import UNCHECKED

if TYPE_CHECKING:
    from rootcause.core.model import Entry

Finding = tuple[str, str, str]  # (path, code, message)

# docs/lint.md's section on these checks (`rootcause lint-codes --markdown` writes it)
DOC = """## RC509-RC511: bounds read from the message atlas

`rootcause lint` loads the message atlas (docs/atlas.md; `--atlas PATH`, else `ROOTCAUSE_ATLAS`, else the shipped
one; `--no-atlas` skips these checks) and checks every generation of a package that the atlas reads.

- A generation names the atlas templates that print its wording in `atlas:` (keys `torch:1a2b3c4d5e6f`: the package
  and a digest of the template's kind, exception class and pattern, which survive a rebuild). `rootcause atlas link`
  writes them; `rootcause atlas link --write-bounds` also writes the atlas's bounds where RC509 finds them wrong or
  they say `unchecked`, with a `bounds_source` naming the template's line.
- **How bounds are compared (RC509).** The atlas reads one release per minor version (its latest patch; NCCL: the
  last tag of each minor), so a generation's `versions` are compared on those releases only: the specifier must
  contain every release read from the first that prints the wording (any of its templates) to the last, and none
  of the others. So the comparison is by minor version: `torch>=2.2` and `torch>=2.2.1` both agree with a wording
  first read in 2.2.2 (2.1.2 lacks it); an exact NCCL tag (`nccl>=2.10.3`) agrees when it lies between two tags
  read. When the newest release read still prints the wording, the upper bound must be open. A wording in the
  oldest release read may be older: its lower bound is not checked. A release in a gap between the wording's
  intervals is checked neither way: the specifier may leave it out (`!=4.40.*`) or keep it. The finding names the
  generation, what the specifier gets wrong, the atlas's interval and the bound by minor release.
- **`unchecked` (RC510, a warning)** remains only where the atlas cannot bound the wording, and says why in
  `atlas_unlinked`: `rootcause atlas link` writes "no atlas template matches the wording (...)" for an unchecked
  generation it cannot link (and tries again on the next run); a maintainer writes the reason where the atlas's
  releases would mislead (a Python copy of a native message, a string built from a variable, a platform-only file),
  and link leaves those alone. Packages the atlas does not read are not checked.
- **RC511**: a key that the atlas does not hold (stale after the extractor changed, or mistyped), or of another
  package than the generation's. Run `rootcause atlas link` again.
"""


def check_atlas_bounds(entry: Entry, path: str, atlas: AtlasBounds) -> list[Finding]:
    out: list[Finding] = []
    for n, generation in enumerate(entry.generations):
        package = generation.package
        where = f"generations.{n} ({generation.versions})"
        if not atlas.covers(package):
            continue
        missing = [key for key in generation.atlas if key not in atlas.intervals]
        foreign = [key for key in generation.atlas if key_package(key) != canonicalize_name(package)]
        for key in missing:
            out.append((path, "RC511", f"{where}: atlas template {key} is not in the atlas (run rootcause atlas link)"))
        for key in foreign:
            out.append((path, "RC511", f"{where}: atlas template {key} is not one of {package}'s"))
        keys = [key for key in generation.atlas if key not in missing and key not in foreign]
        if not keys:
            if generation.bounds_source == UNCHECKED and not generation.atlas and not generation.atlas_unlinked:
                releases = atlas.read(package)
                span = f"{releases[0][0]}..{releases[-1][0]}" if releases else "no release"
                out.append(
                    (
                        path,
                        "RC510",
                        f"{where}: bounds unchecked, but the atlas reads {package} ({span}): "
                        "run rootcause atlas link (it names the template, or says that none matches)",
                    )
                )
            continue
        found = hull(atlas, package, keys)
        if found is None:
            continue
        requirement = Requirement(generation.versions)
        why = disagreement(str(requirement.specifier), found)
        if why is not None:
            out.append(
                (
                    path,
                    "RC509",
                    f"{where} {why}: the atlas reads the wording in {found.describe()}; "
                    f"by minor release: {found.suggested(requirement.name)}",
                )
            )
    return out
