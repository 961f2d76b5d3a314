"""One message template read from released artifacts, and the releases that contain it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class TemplateKind(StrEnum):
    RAISE = "raise"  # `raise X(<message>)` in Python source
    WARNING = "warning"  # `warnings.warn(<message>, Category)`
    LOG = "log"  # `logger.error/warning/critical/exception(<message>)`, `logging.<level>(...)`
    NATIVE = "native"  # a string literal of a shared object (.rodata) or a C printf format


class ReleaseInterval(BaseModel):
    """A run of consecutive releases (in the package's own release order) that hold the template."""

    model_config = ConfigDict(frozen=True)

    first: str
    last: str


class Template(BaseModel):
    """One message as a library can print it.

    `pattern` is RE2 over one cleaned line: the literal text escaped, each placeholder a bounded
    named capture (`(?P<p0>.{0,200}?)`-like), so that a paste cut after any fixed part still
    matches its head. `message` is the template as written (`f"... {name} ..."`, `"%s"` ...).
    `line` and `module` are those of the newest release in `releases` (where the builder saw it).
    """

    model_config = ConfigDict(frozen=True)

    package: str  # the distribution name on PyPI (`torch`, `transformers`), or `nccl`
    module: str  # module path (`torch/distributed/distributed_c10d.py`) or library file
    function: str = ""  # enclosing function or class.method, "" at module level or native
    line: int = Field(default=0, ge=0)  # 0 when unknown (native strings)
    exception: str = ""  # exception class (`RuntimeError`), warning category, or log level
    kind: TemplateKind
    message: str  # the template as written in source, for display
    pattern: str  # RE2
    literal: str = ""  # the longest literal run of `message`, for prefilters
    releases: tuple[ReleaseInterval, ...]  # ordered, non-overlapping
    source_url: str = ""  # the line at the tag of `releases[-1].last`, where a public repo exists


class AtlasManifest(BaseModel):
    """What an atlas was built from: every package, its releases read, and each artifact's digest."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = 1
    packages: dict[str, list[str]]  # package -> releases read, oldest first
    digests: dict[str, str] = {}  # "<package>==<release>" -> sha256 of the artifact read
    built_at: str = ""  # ISO 8601
    unread: dict[str, str] = {}  # "<package>==<release>" (or "<package>") -> why it could not be read
