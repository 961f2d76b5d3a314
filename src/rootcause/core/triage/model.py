"""The triage report: what happened on each rank, in what order, and what it means.

The JSON form of `TriageReport` is stable: fields are added, never removed or renamed.
`schema_version` changes only when a meaning changes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

TRIAGE_SCHEMA_VERSION = 1

ConclusionKind = Literal["straggler", "desync", "crash-first", "killed", "network", "undecided"]
Confidence = Literal["high", "medium", "low"]


class Evidence(BaseModel):
    """One log line that supports a conclusion or an entry of the timeline."""

    id: str
    source: str
    line: int
    text: str
    rank: int | None = None
    kind: str
    time: str | None = None
    finding_ids: list[str] = []


class ErrorInfo(BaseModel):
    """The first error a rank printed, classified.

    category: ``own`` (the rank's own failure), ``timeout`` (it waited for others),
    ``peer`` (a peer went away), ``desync`` (collectives did not match), ``abort``
    (the communicator was torn down after something else failed).
    """

    type: str
    message: str
    category: str
    time: str | None = None
    evidence: str | None = None


class TimeoutInfo(BaseModel):
    """A collective timeout report: ``WorkNCCL(SeqNum=…)`` or Gloo's ``Timed out waiting …``."""

    backend: str
    seq: int | None = None
    op: str | None = None
    numel_in: int | None = None
    numel_out: int | None = None
    timeout_ms: int | None = None
    elapsed_ms: int | None = None
    pg: str | None = None
    time: str | None = None
    evidence: str | None = None


class RankReport(BaseModel):
    """One rank. ``launcher_root_cause``: torchrun's "Root Cause (first observed failure)" names it (the
    earliest exit, which is often a rank that timed out, not the cause). ``warnings``: evidence ids of
    its first NCCL WARN lines."""

    rank: int
    host: str | None = None
    local_rank: int | None = None
    gpu: int | None = None
    bus_id: str | None = None
    pid: int | None = None
    status: str
    has_log: bool = False
    first_error: ErrorInfo | None = None
    timeouts: list[TimeoutInfo] = []
    last_enqueued: int | None = None
    last_started: int | None = None
    last_completed: int | None = None
    exit_code: int | None = None
    signal: str | None = None
    launcher_root_cause: bool = False
    nccl_warnings: int = 0
    warnings: list[str] = []
    sources: list[str] = []


class TimelineEvent(BaseModel):
    """One step of what happened; identical events of many ranks are one entry."""

    time: str | None = None
    kind: str
    summary: str
    ranks: list[int] = []
    count: int = 1
    evidence: str | None = None


class NamedRank(BaseModel):
    """A rank a rule named. ``role``: ``guilty`` (the conclusion's) or ``candidate`` (a suspect of an
    ``undecided`` conclusion, most likely first). ``rule``: an id of docs/triage.md's rule table.
    ``evidence_refs``: the lines that made the rule fire."""

    rank: int
    role: Literal["guilty", "candidate"]
    rule: str
    reason: str
    evidence_refs: list[str] = []


class Conclusion(BaseModel):
    """``guilty_ranks``: who caused it (empty when ``undecided``). ``detected_by``: where it surfaced
    (ranks that printed an error, a timeout or a mismatch), which is not who caused it.
    ``candidates``: the ranks to look at, most likely first (the guilty ranks, or an undecided
    conclusion's suspects). ``named_ranks``: each of them with its rule and evidence."""

    kind: ConclusionKind
    guilty_ranks: list[int] = []
    detected_by: list[int] = []
    candidates: list[int] = []
    named_ranks: list[NamedRank] = []
    guilty_hosts: list[str] = []
    confidence: Confidence = "low"
    summary: str
    collective: str | None = None
    evidence_refs: list[str] = []
    finding_ids: list[str] = []
    suggestions: list[str] = []


class TriageInput(BaseModel):
    name: str
    rank: int | None = None
    lines: int = 0
    bytes: int = 0


class TriageReport(BaseModel):
    schema_version: int = TRIAGE_SCHEMA_VERSION
    conclusion: Conclusion
    world_size: int | None = None
    missing_ranks: list[int] = []
    ranks: dict[int, RankReport] = {}
    timeline: list[TimelineEvent] = []
    evidence: list[Evidence] = []
    inputs: list[TriageInput] = []
    notes: list[str] = []
    truncated: bool = False
