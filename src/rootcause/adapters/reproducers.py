"""Find, read and run reproducers (docs/reproducers.md). The judging lives in core.reproducers.

Each run happens in its own temporary folder (a copy of the reproducer's folder), in its own
process group, under the spec's timeout, with the running interpreter's ``python`` first on
PATH. Runs go in parallel, up to the number of cores.

The parts are siblings, re-exported here: ``reproducer_files`` (finding and reading),
``reproducer_machine`` (what the machine has), ``reproducer_exec`` (running) and
``reproducer_records`` (records and outcome reports).
"""

from __future__ import annotations

from rootcause.adapters.reproducer_exec import (
    BASE_ENV,
    MAX_OUTPUT,
    SUPPORT_DIR,
    ReproducerResult,
    Run,
    command_line,
    execute,
    plan,
    run_all,
)
from rootcause.adapters.reproducer_files import (
    folder_path,
    load_reproducer,
    reproducer_views,
    reproducers_of,
    reproducers_root,
)
from rootcause.adapters.reproducer_machine import gpu_name, installed, machine, missing_environment, versions_of
from rootcause.adapters.reproducer_records import (
    REPRODUCER_REPORTER,
    outcome_of,
    record_outcomes,
    reproducer_runs,
    write_record,
)

__all__ = [
    "BASE_ENV",
    "MAX_OUTPUT",
    "REPRODUCER_REPORTER",
    "SUPPORT_DIR",
    "ReproducerResult",
    "Run",
    "command_line",
    "execute",
    "folder_path",
    "gpu_name",
    "installed",
    "load_reproducer",
    "machine",
    "missing_environment",
    "outcome_of",
    "plan",
    "record_outcomes",
    "reproducer_runs",
    "reproducer_views",
    "reproducers_of",
    "reproducers_root",
    "run_all",
    "versions_of",
    "write_record",
]
