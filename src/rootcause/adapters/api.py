"""What `rootcause.diagnose` runs, imported once: the held index, the atlas loader and the engine."""

from __future__ import annotations

from rootcause.adapters.atlas.held import atlas_loader
from rootcause.adapters.atlas.names_held import names_loader
from rootcause.adapters.inputs import expand_paths, open_sources
from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import Diagnosis, SourceInput, diagnose_sources
from rootcause.core.matching.scan import iter_text_chunks


def diagnose(
    text: str | None,
    *,
    paths: list[str] | None,
    env: dict[str, str] | None,
    canon: list[str] | None,
    atlas: str | None,
    use_atlas: bool,
) -> Diagnosis:
    """`rootcause.diagnose` (its documentation is there)."""
    index = load_index(canon or [])
    sources: list[SourceInput] = []
    if text is not None:
        sources.append(SourceInput("<text>", iter_text_chunks(text)))
    if paths:
        sources.extend(open_sources([(str(p), p) for p in expand_paths(paths)]))
    return diagnose_sources(
        sources, index, env, atlas=atlas_loader(atlas, enabled=use_atlas), names=names_loader(enabled=use_atlas)
    )
