"""The fleet's finding table: one row per finding (a known entry in one rank log) or per unknown
error-looking line, and one row per job for the triage verdict.

Columns are plain values (strings, integers, JSON text) so that every engine (pandas, Arrow, Spark,
Ray, Dask) carries them unchanged; the adapter gives them their Parquet types.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rootcause.core.diagnosis import Diagnosis
from rootcause.core.fleet.layout import LogPlace
from rootcause.core.triage.model import TriageReport

FINDINGS_SCHEMA_VERSION = 1
MAX_TEXT = 2000
MAX_UNKNOWN_PER_LOG = 50

# name -> kind: str, int, float, json (a JSON text), time (epoch milliseconds, UTC)
FINDING_COLUMNS: dict[str, str] = {
    "kind": "str",  # "known" (an entry matched) or "unknown" (an error-looking line nothing explains)
    "job": "str",
    "rank": "int",
    "host": "str",
    "path": "str",
    "entry_id": "str",
    "line": "int",
    "text": "str",
    "count": "int",
    "role": "str",
    "matched_by": "str",
    "score": "float",
    "params": "json",
    "versions": "json",
    "seen_at": "time",
}

JOB_COLUMNS: dict[str, str] = {
    "job": "str",
    "ranks": "int",
    "conclusion": "str",
    "confidence": "str",
    "guilty_ranks": "json",
    "guilty_hosts": "json",
    "summary": "str",
    "bytes_read": "int",
    "truncated": "int",
    "seen_at": "time",
}

Row = dict[str, Any]
# framing says where or that something failed, not what: never an unknown error of its own. Traceback
# scaffolding and the source lines it quotes (code, carets), and torchrun's failure summary (its
# "<script> FAILED" header, rules, and the "time/host/rank/exitcode/error_file/traceback :" fields).
_PREFIX = r"^(?:\[[^\]]{1,40}\]:?\s*)*\s*"
FRAMING = re.compile(
    _PREFIX + r"(?:Traceback \(most recent call last\):|File \".*\", line \d+|raise \w|frame #\d+:|[\^~]+\s*$"
    r"|(?:return|assert|await|yield|if|elif|with|for|while|del|except)\b.*[:)\]]$"
    r"|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*[-+*/]?=\s*[\w.]+\(.*\)$"
    r"|[a-z_][\w]*(?:\.[A-Za-z_]\w*)+\(.*\)$"
    r"|\S+ FAILED\s*$|[=\-]{8,}\s*$|Failures:\s*$|<NO_OTHER_FAILURES>|Root Cause \(first observed failure\):"
    r"|(?:time|host|rank|exitcode|error_file|traceback)\s*:\s)"
)
TRACEBACK_FRAME = FRAMING  # the former name


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def finding_rows(
    d: Diagnosis,
    place: LogPlace,
    path: str,
    seen_at: int,
    unknown: list[tuple[int, str]] = (),  # type: ignore[assignment]
) -> list[Row]:
    """The rows of one rank log: its findings, then the error-looking lines that no entry explains."""
    rows: list[Row] = []
    base = {"job": place.job, "host": place.host, "path": path, "seen_at": seen_at}
    explained: set[int] = set()
    for f in d.findings:
        first = f.lines[0] if f.lines else None
        explained.update(ref.line for ref in f.lines)
        rank = place.rank
        if rank is None and f.ranks:
            rank = f.ranks[0]
        rows.append(
            {
                **base,
                "kind": "known",
                "rank": rank,
                "entry_id": f.id,
                "line": first.line if first else 0,
                "text": (first.text if first else "")[:MAX_TEXT],
                "count": f.count,
                "role": f.role,
                "matched_by": f.matched_by,
                "score": f.score,
                "params": _json(f.param_values),
                "versions": _json({"status": f.versions.status.value, "env": d.environment}),
            }
        )
    for line_no, text in list(unknown)[:MAX_UNKNOWN_PER_LOG]:
        if line_no in explained or FRAMING.match(text):
            continue
        rows.append(
            {
                **base,
                "kind": "unknown",
                "rank": place.rank,
                "entry_id": None,
                "line": line_no,
                "text": text[:MAX_TEXT],
                "count": 1,
                "role": None,
                "matched_by": None,
                "score": None,
                "params": "{}",
                "versions": _json({"status": "unknown", "env": d.environment}),
            }
        )
    return rows


def job_row(job: str, report: TriageReport, ranks: int, bytes_read: int, truncated: bool, seen_at: int) -> Row:
    c = report.conclusion
    return {
        "job": job,
        "ranks": ranks,
        "conclusion": c.kind,
        "confidence": c.confidence,
        "guilty_ranks": _json(c.guilty_ranks),
        "guilty_hosts": _json(c.guilty_hosts),
        "summary": c.summary,
        "bytes_read": bytes_read,
        "truncated": int(truncated or report.truncated),
        "seen_at": seen_at,
    }
