"""The matcher as a batch job on an existing engine: local, Dask, Spark or Ray.

    from rootcause.fleet import FleetOptions, scan_fleet
    summary = scan_fleet(["/logs/2026-12-03/**/*.log"], FleetOptions(engine="dask"), "findings.parquet")

The engines are optional extras (``rootcause[dask]``, ``[spark]``, ``[ray]``); each is imported only
when it is asked for. The scan itself needs the ``[fleet]`` extra (pyarrow), so it too is imported only
when asked for: the service imports ``rootcause.adapters.fleet.store`` (SQL only) on a plain install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rootcause.adapters.fleet.run import ENGINES, FleetOptions, FleetRun, scan_fleet

__all__ = ["ENGINES", "FleetOptions", "FleetRun", "scan_fleet"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from rootcause.adapters.fleet import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
