"""The types a diagnosis is made of, and its inputs: shared by the diagnosis engine and the triage, one floor
below both (the triage links its conclusion to findings and reads the same inputs; the diagnosis embeds a
triage report), so neither imports the other's engine to name them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from rootcause.core.model import Verification
from rootcause.core.versions import VersionVerdict

M = TypeVar("M", bound=BaseModel)
_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {}


def assembled(cls: type[M], *, set_fields: Iterable[str] | None = None, **values: Any) -> M:
    """A model of the diagnosis built from every one of its fields, each already of the field's type, without
    validating them: what validation would build from the same values (the engine builds them from validated
    entries and its own counts), and how a held diagnosis builds its findings: validating each was a tenth of a
    call, its validators' memory cold after other work (tests/test_api_held_work.py holds the two equal).
    ``set_fields``: the fields a caller set, where it passes others at their defaults (``model_fields_set``; all of
    them when not given), since validation would leave the others unset."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(cls.model_fields)
    if values.keys() != set(names):
        missing, unknown = sorted(set(names) - values.keys()), sorted(values.keys() - set(names))
        raise TypeError(f"{cls.__name__}: every field and no other is needed (missing {missing}, unknown {unknown})")
    model = cls.__new__(cls)
    # in the fields' order, as validation stores them: the JSON's keys follow it
    object.__setattr__(model, "__dict__", {name: values[name] for name in names})
    object.__setattr__(model, "__pydantic_fields_set__", set(values if set_fields is None else set_fields))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


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
