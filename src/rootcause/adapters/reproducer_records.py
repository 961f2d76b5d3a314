"""What a reproducer run leaves behind: the record and expected output of a passing reproducer, and
its fixed-variant runs as outcome reports (source: reproducer) in the store."""

from __future__ import annotations

import datetime as dt
import platform
from collections.abc import Sequence
from pathlib import Path

import yaml

from rootcause.adapters.canon_files import LoadedEntry, write_atomic
from rootcause.adapters.reproducer_exec import ReproducerResult, Run
from rootcause.adapters.reproducer_files import folder_path
from rootcause.adapters.reproducer_machine import versions_of
from rootcause.core.reproducers import EXPECTED_FILE, RECORD_FILE, Outcome, Record, RunRecord
from rootcause.core.stats import Tally


def write_record(result: ReproducerResult, loaded: LoadedEntry, where: str, today: dt.date) -> Path:
    """record.yaml and expected.log of a passing reproducer, in its folder."""
    base = folder_path(loaded, result.folder)
    spec = result.runs[0].spec
    record = Record(
        verified=today,
        where=where,
        python=platform.python_version(),
        versions=versions_of(spec),
        runs=[RunRecord(run=r.label, result=r.outcome or Outcome.NOT_REPRODUCED) for r in result.runs],
    )
    data = record.model_dump(mode="json")
    header = "# Written by `rootcause verify --update-records`: the last passing run of this reproducer.\n"
    write_atomic(base / RECORD_FILE, header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    write_atomic(base / EXPECTED_FILE, result.runs[0].output)
    return base / RECORD_FILE


REPRODUCER_REPORTER = "reproducer"


def outcome_of(run: Run) -> str | None:
    """A variant run as an outcome report's result; None for runs that say nothing about the fix."""
    if run.variant is None or run.outcome not in (Outcome.FIXED, Outcome.NOT_FIXED):
        return None
    return "worked" if run.outcome is Outcome.FIXED else "failed"


def record_outcomes(results: Sequence[ReproducerResult], database_url: str | None, where: str) -> int:
    """Store every fixed-variant run as an outcome report with source: reproducer.

    They are counted apart from field reports (docs/statistics.md): rates from people's
    reports never include them, and pages show them as "measured on reproducer, N runs".
    """
    from rootcause.adapters.store import open_store
    from rootcause.adapters.store.base import NewOutcome
    from rootcause.adapters.store.tokens import new_token

    store = open_store(database_url)
    try:
        token = next((tok for tok in store.list_tokens() if tok.name == REPRODUCER_REPORTER), None)
        if token is None:
            token = store.create_token(REPRODUCER_REPORTER, new_token()[1])  # the token itself is never shown
        n = 0
        for result in results:
            for run in result.runs:
                verdict_word = outcome_of(run)
                if verdict_word is None or run.variant is None:
                    continue
                entry = run.entry
                kind = "workaround" if run.variant.workaround is not None else "dead_end"
                index = run.variant.workaround if run.variant.workaround is not None else run.variant.dead_end
                assert index is not None
                items = entry.workarounds if kind == "workaround" else entry.dead_ends
                action = items[index].action if index < len(items) else run.label
                new = NewOutcome(
                    entry_id=entry.id,
                    kind=kind,  # type: ignore[arg-type]
                    index=index,
                    action=action,
                    result=verdict_word,  # type: ignore[arg-type]
                    token_id=token.id,
                    versions=versions_of(run.spec),
                    note=f"rootcause verify: {run.folder} {run.label}, {where}",
                    source="reproducer",
                )
                store.add_outcome(new, rules=[])
                n += 1
        return n
    finally:
        store.close()


def reproducer_runs(entry_id: str, database_url: str | None) -> Tally | None:
    """The reproducer runs stored for an entry, or None when the database cannot be read."""
    from rootcause.adapters.store import open_store
    from rootcause.errors import StoreError

    try:
        store = open_store(database_url)
    except StoreError:
        return None
    try:
        return store.tally(entry_id, source="reproducer")
    finally:
        store.close()
