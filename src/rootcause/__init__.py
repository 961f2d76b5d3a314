"""rootcause: a known-error knowledge base and diagnosis engine for the ML infrastructure stack.

The Python API::

    import rootcause
    diagnosis = rootcause.diagnose("RuntimeError: ... NCCL communicator was aborted ...")
    for finding in diagnosis.findings:
        print(finding.id, finding.score)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from rootcause.core.diagnosis import Diagnosis


def diagnose(
    text: str | None = None,
    *,
    paths: list[str] | None = None,
    env: dict[str, str] | None = None,
    canon: list[str] | None = None,
    atlas: str | None = None,
    use_atlas: bool = True,
) -> Diagnosis:
    """Diagnose a pasted text, or log files (plain or .gz, one per rank or combined). Lines no entry claims are
    located in the message atlas (``atlas``: a file; default ROOTCAUSE_ATLAS, else the shipped one)."""
    from rootcause.adapters.atlas.held import atlas_loader
    from rootcause.adapters.inputs import expand_paths, open_sources
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import SourceInput, diagnose_sources
    from rootcause.core.matching.scan import iter_text_chunks

    index = load_index(canon or [])
    sources: list[SourceInput] = []
    if text is not None:
        sources.append(SourceInput("<text>", iter_text_chunks(text)))
    if paths:
        sources.extend(open_sources([(str(p), p) for p in expand_paths(paths)]))
    return diagnose_sources(sources, index, env, atlas=atlas_loader(atlas, enabled=use_atlas))


__all__ = ["__version__", "diagnose"]
