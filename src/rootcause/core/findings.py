"""The types a diagnosis is made of, and its inputs: shared by the diagnosis engine and the triage, one floor
below both (the triage links its conclusion to findings and reads the same inputs; the diagnosis embeds a
triage report), so neither imports the other's engine to name them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from rootcause.core.model import Verification
from rootcause.core.versions import VersionVerdict


class LineRef(BaseModel):
    source: str
    line: int
    text: str
    rank: int | None = None


class WorkaroundView(BaseModel):
    action: str
    how: str
    success_rate: float
    basis: str
    condition: str | None = None
    support: str = "unknown"  # seen (the log shows the condition) / unknown / excluded (the environment fails it)
    support_note: str | None = None


class DeadEndView(BaseModel):
    action: str
    why_fails: str
    fail_rate: float
    basis: str


class Finding(BaseModel):
    id: str
    signature: str
    score: float = Field(ge=0, le=1)
    confidence: str  # high / medium / low
    matched_by: str  # pattern / lexical
    generic: bool
    role: str
    count: int
    ranks: list[int]
    sources: list[str]
    lines: list[LineRef]
    params: dict[str, str]
    param_values: dict[str, list[str]]
    versions: VersionVerdict
    root_cause: str
    workarounds: list[WorkaroundView]
    more_workarounds: int = 0  # further workarounds of the entry not listed here (rootcause show ID)
    dead_ends: list[DeadEndView]
    verification: str = Verification.COMMUNITY.value  # ai_generated: shown as unverified, AI-generated
    consequence: bool = False  # seen only through lines the failure causes later (the failure's own line is absent)


class Candidate(BaseModel):
    id: str
    signature: str
    score: float
    line: LineRef | None = None


class InputSummary(BaseModel):
    name: str
    lines: int
    bytes: int
    rank: int | None = None


@dataclass
class SourceInput:
    """One input: a name (file path or "<stdin>"), its rank if known, and its bytes."""

    name: str
    chunks: Iterable[bytes]
    rank: int | None = None
