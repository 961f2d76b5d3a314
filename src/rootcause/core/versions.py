"""Versions: the user's environment, and whether it falls in an entry's affected range.

Ranges are PEP 508 requirements evaluated with PEP 440 ordering (``packaging``).
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel

from rootcause.core.assembled import assembled
from rootcause.core.model import Entry
from rootcause.errors import UsageError

if TYPE_CHECKING:
    from packaging.requirements import Requirement

Environment = dict[str, str]


def canonicalize_name(name: str) -> str:
    """A package name in PEP 503's normal form: packaging's own, imported when first needed (packaging.utils imports
    its wheel tags, and with them subprocess and logging: a tenth of a cold diagnosis' imports)."""
    from packaging.utils import canonicalize_name as canonical

    return canonical(name)


class Verdict(StrEnum):
    AFFECTED = "affected"
    NOT_AFFECTED = "not_affected"
    FIXED = "fixed"
    UNKNOWN = "unknown"


class VersionVerdict(BaseModel):
    status: Verdict
    reasons: list[str] = []


ENV_PART_MAX = 200  # characters of one name==version pair; an error repeats at most 60 of them


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "…")


def parse_env_spec(spec: str) -> Environment:
    """``torch==2.1.0,nccl==2.18`` → {"torch": "2.1.0", "nccl": "2.18"}."""
    env: Environment = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, version = part.partition("==")
        if not sep or not name.strip() or not version.strip() or len(part) > ENV_PART_MAX:
            raise UsageError(f"--env: expected name==version (at most {ENV_PART_MAX} characters), got {_shown(part)}")
        try:
            Version(version.strip())
        except InvalidVersion:
            raise UsageError(f"--env: {_shown(version.strip())} is not a PEP 440 version") from None
        env[canonicalize_name(name.strip())] = version.strip()
    return env


_NAME = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"  # a distribution's name as pip prints it

# Versions stated in logs: collect_env, pip freeze, NCCL banners, transformers-cli env, and the installed torch and
# Python that xFormers' (and fmha's) load failure names: "PyTorch {built} with CUDA {cuda} (you have
# {torch.__version__})", "Python  {built} (you have {platform.python_version()})".
_YOU_HAVE = r" +\S+(?: with CUDA \S+)? \(you have (?P<v>\d+\.\d+(?:\.\d+)?)[\w.+]*\)"
_ENV_LINE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("torch", re.compile(r"\bPyTorch version:\s*(?P<v>\d+\.\d+(?:\.\d+)?)")),
    ("torch", re.compile(r"\btorch(?:==|\s+version[:=]?\s*|\s+)(?P<v>\d+\.\d+\.\d+)(?:\+\w+)?\b")),
    ("torch", re.compile(r"\btorch\.__version__\W+(?P<v>\d+\.\d+\.\d+)")),
    ("nccl", re.compile(r"\bNCCL version (?P<v>\d+\.\d+\.\d+)")),
    ("cuda", re.compile(r"\bCUDA used to build PyTorch:\s*(?P<v>\d+\.\d+)")),
    ("cuda", re.compile(r"\bCUDA Version:\s*(?P<v>\d+\.\d+)")),
    ("transformers", re.compile(r"`?transformers`? version:\s*(?P<v>\d+\.\d+\.\d+)")),
    ("numpy", re.compile(r"\bnumpy(?:==|\s+version:?\s*)(?P<v>\d+\.\d+\.\d+)")),
    ("torch", re.compile(r"^\s*PyTorch" + _YOU_HAVE)),
    ("python", re.compile(r"^\s*Python" + _YOU_HAVE)),
]
_FREEZE_RE = re.compile(rf"^(?P<name>{_NAME})==(?P<v>\d+(?:\.\d+)+)\s*$")

# pip's own lines (pip/_internal/operations/prepare.py: "Requirement %s: %s (%s)" with "already satisfied", the
# requirement, "in" its folder, and the installed version; commands/install.py: "Successfully installed %s", each item
# name-version)
_PIP_SATISFIED_RE = re.compile(rf"^Requirement already satisfied: (?P<name>{_NAME})")
_PIP_NAME_RE = re.compile(_NAME)
_PIP_VERSION_RE = re.compile(r"\d[\w.+!]*")  # one class after a digit: no backtracking on a hostile item
_PIP_INSTALLED_PREFIX = "Successfully installed "
_PIP_INSTALLED_ITEMS = 400  # a resolver's whole environment fits; a hostile line costs no more

# What the noise skipper looks for to send a line here (a loose superset of the above).
ENV_HINT_REGEX = (
    r"PyTorch version|torch==|torch version|NCCL version \d|CUDA used to build|"
    r"CUDA Version:|transformers.{0,2} version|numpy==|^[A-Za-z0-9][A-Za-z0-9_.\-]*==\d|"
    r"Requirement already satisfied: |Successfully installed |\(you have \d"
)


# a literal that each of the patterns above needs (most lines hold none: eight searches saved)
_ENV_LITERALS = (
    "==",
    "torch",
    "PyTorch",
    "NCCL version",
    "CUDA",
    "transformers",
    "numpy",
    "Requirement already satisfied",
    _PIP_INSTALLED_PREFIX,
    "(you have ",
)


def _pip_versions(line: str) -> Environment:
    """The installed versions one of pip's own lines states."""
    found: Environment = {}
    satisfied = _PIP_SATISFIED_RE.match(line)
    if satisfied:
        opening = line.rfind(" (")  # the installed version, in parentheses at the line's end
        version = line[opening + 2 : -1] if opening > satisfied.end() and line.endswith(")") else ""
        if _PIP_VERSION_RE.fullmatch(version) and " in " in line[satisfied.end() : opening]:
            found[canonicalize_name(satisfied["name"])] = version
    elif line.startswith(_PIP_INSTALLED_PREFIX):
        for item in line[len(_PIP_INSTALLED_PREFIX) :].split(maxsplit=_PIP_INSTALLED_ITEMS)[:_PIP_INSTALLED_ITEMS]:
            name, _, version = item.rpartition("-")
            if _PIP_NAME_RE.fullmatch(name) and _PIP_VERSION_RE.fullmatch(version):
                found[canonicalize_name(name)] = version
    return found


def versions_in_line(line: str) -> Environment:
    found: Environment = {}
    if not any(literal in line for literal in _ENV_LITERALS):
        return found
    stripped = line.strip()
    m = _FREEZE_RE.match(stripped)
    if m:
        found[canonicalize_name(m["name"])] = m["v"]
    found.update(_pip_versions(stripped))
    for name, rx in _ENV_LINE_PATTERNS:
        m2 = rx.search(line)
        if m2 and name not in found:
            found[name] = m2["v"]
    return found


@functools.lru_cache(maxsize=4096)
def requirement_of(text: str) -> tuple[str, Requirement]:
    """A parsed requirement and its canonical name (parsed once per process: every diagnosis asks)."""
    from packaging.requirements import Requirement  # here: a diagnosis with no versions never parses one

    req = Requirement(text)
    return canonicalize_name(req.name), req


def verdict(entry: Entry, env: Environment) -> VersionVerdict:
    """Is this environment in the entry's affected versions?"""
    reasons: list[str] = []
    statuses: list[Verdict] = []
    for vr in entry.versions:
        if not env:
            break
        name, req = requirement_of(vr.requirement)
        if name not in env:
            continue
        try:
            have = Version(env[name])
        except InvalidVersion:
            continue
        inside = req.specifier.contains(have, prereleases=True)
        # the requirement is the range that prints the message; `status` says what came after it (docs/schema.md)
        if vr.fixed and have >= Version(vr.fixed):
            statuses.append(Verdict.FIXED)
            reasons.append(f"{name} {have} is at or past the fix in {vr.fixed}")
        elif vr.removed and have >= Version(vr.removed):
            statuses.append(Verdict.NOT_AFFECTED)
            reasons.append(f"{name} {have} is at or past {vr.removed}, where this was removed")
        elif inside:
            statuses.append(Verdict.AFFECTED)
            reasons.append(f"{name} {have} is in the affected range {vr.requirement}")
        else:
            statuses.append(Verdict.NOT_AFFECTED)
            reasons.append(f"{name} {have} is outside {vr.requirement}")
    if not statuses:
        return assembled(VersionVerdict, status=Verdict.UNKNOWN, reasons=["no version of an affected package is known"])
    for status in (Verdict.AFFECTED, Verdict.FIXED, Verdict.NOT_AFFECTED):
        if status in statuses:
            return assembled(VersionVerdict, status=status, reasons=reasons)
    return assembled(VersionVerdict, status=Verdict.UNKNOWN, reasons=reasons)
