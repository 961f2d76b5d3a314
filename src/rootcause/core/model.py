"""The entry model: one known error, as stored in one canon file.

Field order here is the key order of canon files (``rootcause fmt``) and of the
JSON Schema. Fields are never removed; meanings only broaden (OSV's habit).
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from packaging.version import InvalidVersion, Version
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

if TYPE_CHECKING:
    from packaging.requirements import Requirement

SCHEMA_VERSION = 1

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_]*(?:-[a-z0-9_]+)*/[a-z0-9]+(?:-[a-z0-9]+)*$")
# Domains, categories and subcategories name folders (build-site) and fill 64-character columns.
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_]*(?:-[a-z0-9_]+)*$")
SLUG_MAX = 64
ID_MAX = 200  # the store's id columns
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$")


class Role(StrEnum):
    """Where an error sits in a failure chain; the ranking puts causes first."""

    CAUSE = "cause"  # an error with its own root cause
    SYMPTOM = "symptom"  # what other ranks or layers print because something else failed
    WRAPPER = "wrapper"  # a report that wraps another error (torchrun's ChildFailedError)
    NOTICE = "notice"  # a warning printed while the job goes on: the answer only when nothing else failed


class Verification(StrEnum):
    """The evidence ladder, weakest first."""

    AI_GENERATED = "ai_generated"
    COMMUNITY = "community"
    REPRODUCED = "reproduced"
    VERIFIED = "verified"

    @property
    def rank(self) -> int:
        return list(Verification).index(self)


class Basis(StrEnum):
    ESTIMATE = "estimate"
    MEASURED = "measured"


class RelationType(StrEnum):
    SAME_AS = "same-as"
    CONFUSED_WITH = "confused-with"
    LEADS_TO = "leads-to"
    CAUSED_BY = "caused-by"


class VersionStatus(StrEnum):
    ACTIVE = "active"
    FIXED = "fixed"
    DEPRECATED = "deprecated"
    REMOVED = "removed"


class SourceKind(StrEnum):
    SOURCE = "source"  # a format string in a library's source tree
    OUTPUT = "output"  # output we produced by running the real library
    THREAD = "thread"  # a public issue, forum or Q&A thread
    DOCS = "docs"  # official documentation
    SEED = "seed"  # the documents this project grew from
    IMPORT = "import"  # a record converted from another knowledge base


def _check_url(value: str) -> str:
    if not URL_RE.match(value):
        raise ValueError(f"not a valid http(s) URL: {value!r}")
    return value


Url = Annotated[str, AfterValidator(_check_url)]
Resolvable = Literal[True, False, "partial"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False, defer_build=True)


class Rate(_Strict):
    """A probability in [0, 1] and what backs it."""

    value: float = Field(ge=0.0, le=1.0)
    basis: Basis = Basis.ESTIMATE
    reports: int = Field(default=0, ge=0, description="outcome reports behind a measured value")

    @model_validator(mode="after")
    def _measured_needs_reports(self) -> Rate:
        if self.basis is Basis.MEASURED and self.reports == 0:
            raise ValueError("a measured rate needs reports > 0")
        return self


class Evidence(_Strict):
    count: int = Field(ge=0)
    basis: Basis = Basis.ESTIMATE


class Pattern(_Strict):
    """An RE2 pattern. Named groups become extracted parameters."""

    regex: str = Field(min_length=1)
    window: int = Field(default=1, ge=1, le=50, description="lines searched together (multi-line patterns)")
    note: str | None = None
    consequence: bool = Field(
        default=False,
        description="the line is what the entry's failure causes later (a missing operator after an extension "
        "failed to load), not the failure itself: a finding from such lines only is shown as a consequence",
    )
    raised_in: list[Annotated[str, StringConstraints(min_length=3, max_length=100, pattern=r"^[^\\\n]+$")]] = Field(
        default_factory=list,
        max_length=12,
        description="for a message that a Python library prints for any program (pickle's, the OS's): module paths "
        "(`/torch/serialization.py`, `/multiprocessing/`, forward slashes) one of which a traceback shown above the "
        "line must pass through for the pattern to claim it; a line with no traceback frames above it is claimed "
        "as before (docs/ranking.md)",
    )

    @field_validator("regex")
    @classmethod
    def _linear_time(cls, value: str) -> str:
        from rootcause.core.matching.patterns import compile_re2
        from rootcause.errors import PatternError

        try:
            compile_re2(value)
        except PatternError as exc:
            raise ValueError(str(exc)) from None
        return value


class Source(_Strict):
    kind: SourceKind
    ref: str = Field(min_length=1, description="URL, or repo@tag:path:line")
    note: str | None = None


class Example(_Strict):
    text: str = Field(min_length=1)
    source: Source


UNCHECKED = "unchecked"
BoundsSource = Source | Literal["unchecked"]


def _requirement(value: str) -> Requirement:
    # imported here: packaging.requirements (with its markers and tags) is a fifth of a cold diagnosis' imports, and
    # an entry read back from the index cache is never validated again
    from packaging.requirements import Requirement

    return Requirement(value)


def _check_requirement(value: str) -> str:
    from packaging.requirements import InvalidRequirement

    try:
        _requirement(value)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise ValueError(f"not a PEP 508 requirement: {value!r} ({reason})") from None
    return value


def has_bounds(requirement: str) -> bool:
    """True when a requirement names versions (torch>=1.10), not just a package (torch)."""
    return bool(str(_requirement(requirement).specifier))


class VersionRange(_Strict):
    requirement: str = Field(description="a PEP 508 requirement such as torch>=1.10")
    status: VersionStatus = VersionStatus.ACTIVE
    introduced: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    fixed: str | None = Field(default=None, description="release in which a fix landed")
    notes: str | None = None
    bounds_source: BoundsSource | None = Field(
        default=None,
        description="where the bounds were read (a release tag or commit), or 'unchecked' when they could not be",
    )

    @field_validator("requirement")
    @classmethod
    def _parse_requirement(cls, value: str) -> str:
        return _check_requirement(value)

    @field_validator("introduced", "deprecated", "removed", "fixed")
    @classmethod
    def _parse_version(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Version(value)
            except InvalidVersion:
                raise ValueError(f"not a PEP 440 version: {value!r}") from None
        return value

    @property
    def package(self) -> str:
        return _requirement(self.requirement).name.lower()


class Generation(_Strict):
    """One wording of the message, and the releases that print it (a message's history)."""

    wording: str = Field(min_length=1, description="the format string or message as the library's source has it")
    versions: str = Field(description="a PEP 508 requirement: the releases that print this wording")
    bounds_source: BoundsSource = Field(
        description="where the wording and its bounds were read (repo@tag:path, commit), or 'unchecked'"
    )
    atlas: list[str] = Field(
        default_factory=list,
        description="the message atlas's templates of this wording (`torch:1a2b3c4d5e6f`, written by "
        "`rootcause atlas link`); lint checks `versions` against their releases (docs/atlas.md)",
    )
    atlas_unlinked: str | None = Field(
        default=None,
        description="why the wording names no atlas template although the atlas reads its package: written by "
        "`rootcause atlas link` when no template matches (it starts 'no atlas template'), or by a maintainer "
        "when the atlas's releases would mislead (a string that moved into CUDA-only code); link keeps the latter",
    )
    examples: list[int] = Field(min_length=1, description="indices of the entry's examples of this wording")
    note: str | None = None

    @field_validator("versions")
    @classmethod
    def _parse_versions(cls, value: str) -> str:
        return _check_requirement(value)

    @property
    def package(self) -> str:
        return _requirement(self.versions).name.lower()


class Workaround(_Strict):
    action: str = Field(min_length=1)
    action_zh: str | None = None
    how: str = Field(min_length=1, description="a concrete command or code")
    success_rate: Rate
    condition: str | None = None
    condition_zh: str | None = None
    evidence: str | None = Field(
        default=None,
        description="RE2 pattern: when it matches a line of the finding, the log shows this workaround's condition",
    )
    requires: str | None = Field(
        default=None, description="PEP 508 requirement the environment must meet for this workaround (torch>=2.1)"
    )
    sources: list[str] = Field(default_factory=list)

    @field_validator("evidence")
    @classmethod
    def _evidence_linear_time(cls, value: str | None) -> str | None:
        return None if value is None else Pattern._linear_time(value)

    @field_validator("requires")
    @classmethod
    def _requires_pep508(cls, value: str | None) -> str | None:
        return None if value is None else _check_requirement(value)


class DeadEnd(_Strict):
    action: str = Field(min_length=1)
    why_fails: str = Field(min_length=1)
    why_fails_zh: str | None = None
    fail_rate: Rate
    condition: str | None = None
    sources: list[str] = Field(default_factory=list)


class Related(_Strict):
    id: str
    type: RelationType
    note: str | None = None


class ReproducerRef(_Strict):
    """A reproducer folder, relative to the ``reproducers`` folder beside the canon (docs/reproducers.md)."""

    folder: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_-]*){1,2}$")


class Entry(_Strict):
    schema_version: int = SCHEMA_VERSION
    id: str
    modified: dt.date
    withdrawn: dt.date | None = None
    signature: str = Field(min_length=1)
    signature_zh: str | None = None
    patterns: list[Pattern] = Field(min_length=1)
    domain: str
    category: str
    subcategory: str | None = None
    error_code: str | None = None
    generic: bool = Field(default=False, description="a generic entry; never outranks a specific one")
    family: bool = Field(
        default=False,
        description="explains a whole family (any ML package's missing name, any CUDA error code) and names the member"
        " through its captures; implies generic; ranks below every other generic entry",
    )
    catch_all: bool = Field(
        default=False,
        description="matches any error of its kind (a bare Python exception); ranks below every other match",
    )
    role: Role = Role.CAUSE
    verification: Verification = Verification.AI_GENERATED
    resolvable: Resolvable = "partial"
    first_seen: dt.date | None = None
    last_seen: dt.date | None = None
    fix_rate: Rate | None = None
    confidence: Rate | None = None
    evidence: Evidence = Evidence(count=0)
    versions: list[VersionRange] = Field(default_factory=list)
    generations: list[Generation] = Field(
        default_factory=list, description="every wording of the message that users still meet, oldest first"
    )
    hardware: list[str] = Field(default_factory=list)
    os_specific: dict[str, str] = Field(default_factory=dict)
    root_cause: str = Field(min_length=1)
    root_cause_zh: str | None = None
    root_cause_type: str = "generic"
    official_docs: list[Url] = Field(default_factory=list)
    workarounds: list[Workaround] = Field(default_factory=list)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    related: list[Related] = Field(default_factory=list)
    examples: list[Example] = Field(default_factory=list)
    reproducers: list[ReproducerRef] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="open object for one-off data (OSV database_specific)"
    )

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str) -> str:
        if not ID_RE.match(value) or len(value) > ID_MAX or len(value.split("/", 1)[0]) > SLUG_MAX:
            shown = value if len(value) <= 80 else value[:80] + "…"
            raise ValueError(
                f"{shown!r} is not an id of the form domain/slug (lowercase, digits, dashes; "
                f"at most {ID_MAX} characters, the domain at most {SLUG_MAX})"
            )
        return value

    @field_validator("domain", "category", "subcategory")
    @classmethod
    def _check_slug(cls, value: str | None) -> str | None:
        if value is not None and (not SLUG_RE.match(value) or len(value) > SLUG_MAX):
            shown = value if len(value) <= 80 else value[:80] + "…"
            raise ValueError(f"{shown!r} is not a slug (lowercase letters, digits, _ and -; at most {SLUG_MAX})")
        return value

    @model_validator(mode="after")
    def _catch_all_is_generic(self) -> Entry:
        if self.catch_all and not self.generic:
            raise ValueError("a catch_all entry must also be generic")
        if self.family and not self.generic:
            raise ValueError("a family entry must also be generic")
        if self.family and self.catch_all:
            raise ValueError("an entry is a family or a catch-all, not both")
        return self

    @model_validator(mode="after")
    def _generation_examples_exist(self) -> Entry:
        for n, gen in enumerate(self.generations):
            for i in gen.examples:
                if not 0 <= i < len(self.examples):
                    raise ValueError(f"generations.{n}.examples names example {i}, which does not exist")
        return self

    @field_validator("schema_version")
    @classmethod
    def _check_schema_version(cls, value: int) -> int:
        if value > SCHEMA_VERSION:
            raise ValueError(f"schema_version {value} is newer than this rootcause ({SCHEMA_VERSION})")
        return value

    @model_validator(mode="after")
    def _domain_matches_id(self) -> Entry:
        if self.id.split("/", 1)[0] != self.domain:
            raise ValueError(f"domain {self.domain!r} does not match the id {self.id!r}")
        return self

    @property
    def slug(self) -> str:
        return self.id.split("/", 1)[1]

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn is not None

    def key_fields(self) -> list[str]:
        return list(type(self).model_fields)
