"""What a fleet run shows: top errors, jobs, recurring nodes, hits per day and rolling hit counts.

Pure functions over the rows of the finding table (``rows.FINDING_COLUMNS``) and of the job table.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from rootcause.core.fleet.rows import Row

DAY_MS = 86_400_000
WINDOWS: dict[str, int] = {"24h": DAY_MS, "7d": 7 * DAY_MS, "30d": 30 * DAY_MS}
TOP = 20


def day_of(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).date().isoformat()


def rolling_counts(times_ms: Iterable[int], now_ms: int) -> dict[str, int]:
    """Hits in the last 24 hours, 7 days and 30 days before ``now_ms``."""
    counts = dict.fromkeys(WINDOWS, 0)
    for t in times_ms:
        age = now_ms - t
        for name, span in WINDOWS.items():
            if 0 <= age < span:
                counts[name] += 1
    return counts


def summarise(rows: Iterable[Row], jobs: Iterable[Row], meta: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The report's data (the JSON twin of the HTML report)."""
    entry_hits: Counter[str] = Counter()
    entry_jobs: dict[str, set[str]] = defaultdict(set)
    entry_hosts: dict[str, set[str]] = defaultdict(set)
    entry_times: dict[str, list[int]] = defaultdict(list)
    job_entries: dict[str, Counter[str]] = defaultdict(Counter)
    job_unknown: Counter[str] = Counter()
    host_jobs: dict[str, set[str]] = defaultdict(set)
    host_entries: dict[str, Counter[str]] = defaultdict(Counter)
    host_days: dict[str, set[str]] = defaultdict(set)
    per_day: dict[str, Counter[str]] = defaultdict(Counter)
    known = unknown = 0
    for r in rows:
        day = day_of(r["seen_at"])
        if r["kind"] == "unknown":
            unknown += 1
            job_unknown[r["job"]] += 1
            per_day[day]["unknown"] += 1
            continue
        known += 1
        eid = r["entry_id"]
        entry_hits[eid] += 1
        entry_jobs[eid].add(r["job"])
        entry_times[eid].append(r["seen_at"])
        job_entries[r["job"]][eid] += 1
        per_day[day]["known"] += 1
        if r.get("host"):
            entry_hosts[eid].add(r["host"])
            host_jobs[r["host"]].add(r["job"])
            host_entries[r["host"]][eid] += 1
            host_days[r["host"]].add(day)
    job_rows = {j["job"]: j for j in jobs}
    top_errors = [
        {
            "entry_id": eid,
            "hits": n,
            "jobs": len(entry_jobs[eid]),
            "hosts": len(entry_hosts[eid]),
            "rolling": rolling_counts(entry_times[eid], now_ms),
        }
        for eid, n in entry_hits.most_common(TOP)
    ]
    job_list = []
    for job in sorted(set(job_entries) | set(job_rows) | set(job_unknown)):
        verdict = job_rows.get(job, {})
        job_list.append(
            {
                "job": job,
                "entries": dict(job_entries[job].most_common()) if job in job_entries else {},
                "unknown_lines": job_unknown[job],
                "conclusion": verdict.get("conclusion"),
                "confidence": verdict.get("confidence"),
                "guilty_ranks": json.loads(verdict.get("guilty_ranks") or "[]"),
                "guilty_hosts": json.loads(verdict.get("guilty_hosts") or "[]"),
                "summary": verdict.get("summary"),
            }
        )
    job_list.sort(key=lambda j: (-sum(j["entries"].values()), j["job"]))
    nodes: list[dict[str, Any]] = [
        {
            "host": host,
            "jobs": len(host_jobs[host]),
            "days": len(host_days[host]),
            "hits": sum(host_entries[host].values()),
            "entries": dict(host_entries[host].most_common(5)),
        }
        for host in host_jobs
    ]
    nodes.sort(key=lambda n: (-n["jobs"], -n["hits"], n["host"]))
    conclusions = Counter(j.get("conclusion") for j in job_rows.values())
    return {
        "schema_version": 1,
        "generated_at": dt.datetime.fromtimestamp(now_ms / 1000, tz=dt.UTC).isoformat(),
        "run": meta,
        "totals": {
            "known_findings": known,
            "unknown_lines": unknown,
            "entries": len(entry_hits),
            "jobs_with_findings": len(job_entries),
            "hosts_with_findings": len(host_jobs),
        },
        "top_errors": top_errors,
        "jobs": job_list,
        "recurring_nodes": [n for n in nodes if n["jobs"] >= 2][:TOP],
        "nodes": nodes[: TOP * 5],
        "conclusions": {str(k): v for k, v in conclusions.most_common()},
        "per_day": {d: dict(c) for d, c in sorted(per_day.items())},
    }
