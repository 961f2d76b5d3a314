"""``rootcause.fleet``: scan a cluster's rank logs on an existing engine (see docs/fleet.md).

A short name for :mod:`rootcause.adapters.fleet`, where the engines live.
"""

from rootcause.adapters.fleet import ENGINES, FleetOptions, FleetRun, scan_fleet

__all__ = ["ENGINES", "FleetOptions", "FleetRun", "scan_fleet"]
