"""The matcher as a batch job on an existing engine: local, Dask, Spark or Ray.

    from rootcause.fleet import FleetOptions, scan_fleet
    summary = scan_fleet(["/logs/2026-12-03/**/*.log"], FleetOptions(engine="dask"), "findings.parquet")

The engines are optional extras (``rootcause[dask]``, ``[spark]``, ``[ray]``); each is imported only
when it is asked for.
"""

from rootcause.adapters.fleet.run import ENGINES, FleetOptions, FleetRun, scan_fleet

__all__ = ["ENGINES", "FleetOptions", "FleetRun", "scan_fleet"]
