"""rootcause: a known-error knowledge base and diagnosis engine for the ML infrastructure stack.

The Python API::

    import rootcause
    diagnosis = rootcause.diagnose("RuntimeError: ... NCCL communicator was aborted ...")
    for finding in diagnosis.findings:
        print(finding.id, finding.score)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    api = _api or _load_api()
    return api.diagnose(text, paths=paths, env=env, canon=canon, atlas=atlas, use_atlas=use_atlas)


_api: Any = None  # rootcause.adapters.api, imported on the first call (`import rootcause` stays light)


def _load_api() -> Any:
    global _api
    from rootcause.adapters import api

    _api = api
    return api


__all__ = ["__version__", "diagnose"]
