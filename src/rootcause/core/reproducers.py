"""Reproducers: the programs that prove an entry, and how their runs are judged. Pure.

A reproducer is a folder (``reproducers/<domain>/<slug>/`` beside the canon) with a spec,
``reproducer.yaml``, and the programs it names. The failing run must print output that the
entry's own patterns match *first* through the diagnosis engine; each fixed variant applies
one workaround (and must then exit 0 with no finding for the entry) or tries one dead end (and
must still fail as the entry says). The adapter runs the programs; this module only judges.
A committed ``record.yaml`` beside the spec says where and on which versions it last passed;
``rootcause lint`` reads it to decide whether ``verification: reproduced`` is earned.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry
from rootcause.core.stats import Tally

SPEC_FILE = "reproducer.yaml"
RECORD_FILE = "record.yaml"
EXPECTED_FILE = "expected.log"


class Launcher(StrEnum):
    PYTHON = "python"  # python PROGRAM ARGS
    TORCHRUN = "torchrun"  # torchrun --nproc-per-node N PROGRAM ARGS
    SHELL = "shell"  # bash -c COMMAND (python and pip on PATH are the running interpreter's)


class Device(StrEnum):
    CPU = "cpu"
    GPU = "gpu"


class Outcome(StrEnum):
    """What one run showed."""

    REPRODUCED = "reproduced"  # the failing run was matched first by the entry
    NOT_REPRODUCED = "not-reproduced"  # it was not: the wording changed, or the program no longer fails
    FIXED = "fixed"  # a variant exited 0 with no finding for the entry
    NOT_FIXED = "not-fixed"  # a variant still failed (or still showed the entry)
    ENVIRONMENT_MISSING = "environment-missing"  # a required package or tool is absent
    SKIPPED_GPU = "skipped-gpu"  # needs a GPU, and none is present
    TIMED_OUT = "timed-out"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_requirement(value: str) -> str:
    try:
        Requirement(value)
    except InvalidRequirement as exc:
        raise ValueError(f"not a PEP 508 requirement: {value!r} ({str(exc).splitlines()[0]})") from None
    return value


class Variant(_Strict):
    """A fixed variant: the failing program with one workaround applied, or one dead end tried."""

    workaround: int | None = Field(default=None, ge=0, description="index of the workaround it applies")
    dead_end: int | None = Field(default=None, ge=0, description="index of the dead end it tries")
    program: str | None = Field(default=None, description="another program in the folder (default: the spec's)")
    args: list[str] | None = Field(default=None, description="arguments (default: the spec's)")
    command: str | None = Field(default=None, description="shell launcher: another command line")
    env: dict[str, str] = Field(default_factory=dict, description="extra environment for this variant")
    note: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> Variant:
        if (self.workaround is None) == (self.dead_end is None):
            raise ValueError("a fixed variant names exactly one of workaround or dead_end")
        return self

    @property
    def label(self) -> str:
        return f"workaround {self.workaround}" if self.workaround is not None else f"dead end {self.dead_end}"

    @property
    def expects_fix(self) -> bool:
        return self.workaround is not None


class Spec(_Strict):
    """``reproducer.yaml``."""

    what: str = Field(min_length=1, description="one line: what the program does wrong")
    launcher: Launcher = Launcher.PYTHON
    nproc_per_node: int = Field(default=2, ge=1, le=8, description="torchrun: processes")
    program: str | None = Field(default=None, description="python/torchrun: the failing program in the folder")
    args: list[str] = Field(default_factory=list)
    command: str | None = Field(default=None, description="shell: the failing command line")
    requires: list[str] = Field(default_factory=list, description="PEP 508 requirements of the interpreter")
    tools: list[str] = Field(default_factory=list, description="programs that must be on PATH (ninja, g++)")
    device: Device = Device.CPU
    timeout: int = Field(default=60, ge=1, le=900, description="seconds per run")
    env: dict[str, str] = Field(default_factory=dict)
    fixed: list[Variant] = Field(min_length=1)

    @field_validator("requires")
    @classmethod
    def _requirements(cls, value: list[str]) -> list[str]:
        return [_check_requirement(v) for v in value]

    @model_validator(mode="after")
    def _launch_is_complete(self) -> Spec:
        if self.launcher is Launcher.SHELL:
            if not self.command:
                raise ValueError("the shell launcher needs a command")
        elif not self.program:
            raise ValueError(f"the {self.launcher.value} launcher needs a program")
        return self

    @property
    def packages(self) -> list[str]:
        return [Requirement(r).name.lower() for r in self.requires]


class RunRecord(_Strict):
    run: str = Field(description="'failing' or a variant label such as 'workaround 0'")
    result: Outcome


class Record(_Strict):
    """``record.yaml``: the last passing verification, committed beside the spec."""

    verified: dt.date
    where: str = Field(min_length=1, description="the machine: CPU or GPU model, OS, cores")
    python: str
    versions: dict[str, str] = Field(default_factory=dict, description="the required packages as installed")
    runs: list[RunRecord] = Field(min_length=1)

    @property
    def passed(self) -> bool:
        return record_passes(self.runs)


def record_passes(runs: list[RunRecord]) -> bool:
    """The failing run reproduced, and every variant did what its spec says."""
    if not runs or runs[0].run != "failing" or runs[0].result is not Outcome.REPRODUCED:
        return False
    for r in runs[1:]:
        expected = Outcome.FIXED if r.run.startswith("workaround") else Outcome.NOT_FIXED
        if r.result is not expected:
            return False
    return len(runs) > 1


@dataclass(frozen=True)
class Reproducer:
    """A reproducer as the adapter found it: the spec (or why it could not be read) and its record."""

    entry_id: str
    folder: str  # as the entry names it, relative to the reproducers root
    spec: Spec | None
    record: Record | None
    problem: str | None = None  # the spec is missing or invalid
    expected_output: str | None = None
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    detail: str  # one line: the finding that came first, or what went wrong
    passed: bool


def judge_failing(entry: Entry, output: str, exit_code: int, index: CompiledIndex) -> Judgement:
    """The failing run passes when the entry is the first finding of the real diagnosis."""
    ids = [f.id for f in diagnose_text(output, index).findings]
    if ids and ids[0] == entry.id:
        return Judgement(Outcome.REPRODUCED, f"matched first (exit {exit_code})", True)
    if entry.id in ids:
        return Judgement(Outcome.NOT_REPRODUCED, f"matched, but {ids[0]} came first (exit {exit_code})", False)
    first = f"first finding {ids[0]}" if ids else "no finding"
    return Judgement(Outcome.NOT_REPRODUCED, f"not matched: {first} (exit {exit_code})", False)


def judge_variant(entry: Entry, variant: Variant, output: str, exit_code: int, index: CompiledIndex) -> Judgement:
    """A workaround must exit 0 with no finding for the entry; a dead end must still fail as the entry says."""
    ids = [f.id for f in diagnose_text(output, index).findings]
    shows_entry = entry.id in ids
    if exit_code == 0 and not shows_entry:
        return Judgement(Outcome.FIXED, "exit 0, no finding for the entry", variant.expects_fix)
    why = f"exit {exit_code}" + (", the entry is still found" if shows_entry else "")
    if variant.expects_fix:
        return Judgement(Outcome.NOT_FIXED, why, False)
    still = shows_entry and exit_code != 0
    return Judgement(Outcome.NOT_FIXED, why if still else f"{why}; the entry's error is not shown", still)


_VOLATILE = [
    (re.compile(r"\b0x[0-9a-fA-F]{4,}"), "0x…"),
    (re.compile(r"/tmp/[^\s'\":]+"), "/tmp/…"),
    (re.compile(r"\b\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d+)?"), "<time>"),
    (re.compile(r"\b(?:pid|PID|port)[ =:]*\d+"), "<num>"),
    (re.compile(r"\d+(?:\.\d+)?\s*(?:seconds|s|ms)\b"), "<dur>"),
]


def _steady(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        for rx, repl in _VOLATILE:
            line = rx.sub(repl, line)
        lines.append(line.rstrip())
    return lines


def output_diff(expected: str, real: str, *, limit: int = 80) -> str:
    """A unified diff of the recorded and the real output, with addresses, paths and times masked."""
    diff = list(difflib.unified_diff(_steady(expected), _steady(real), "expected.log", "real output", lineterm="", n=2))
    if len(diff) > limit:
        diff = [*diff[:limit], f"… {len(diff) - limit} more diff lines"]
    return "\n".join(diff)


def check_reproducers(entry: Entry, reproducers: list[Reproducer]) -> list[tuple[str, str]]:
    """Lint problems as (code, message): RC802 unearned ``reproduced``, RC803 a broken reproducer."""
    out: list[tuple[str, str]] = []
    for n, r in enumerate(reproducers):
        where = f"reproducers.{n} ({r.folder})"
        if r.spec is None:
            out.append(("RC803", f"{where}: {r.problem or 'no spec'}"))
            continue
        for v in r.spec.fixed:
            if v.workaround is not None and v.workaround >= len(entry.workarounds):
                out.append(("RC803", f"{where}: a variant names workaround {v.workaround}, which does not exist"))
            if v.dead_end is not None and v.dead_end >= len(entry.dead_ends):
                out.append(("RC803", f"{where}: a variant names dead end {v.dead_end}, which does not exist"))
        for name in [r.spec.program, *[v.program for v in r.spec.fixed]]:
            if name and r.files and name not in r.files:
                out.append(("RC803", f"{where}: the program {name!r} is not in the folder"))
    if entry.verification.value == "reproduced":
        passing = [r for r in reproducers if r.spec is not None and r.record is not None and r.record.passed]
        if not passing:
            out.append(
                (
                    "RC802",
                    "reproduced needs a reproducer with a passing record (run `rootcause verify "
                    f"{entry.id} --update-records`), or verification: community",
                )
            )
    return out


Verdict = Literal["pass", "fail", "skip"]


def verdict(outcomes: list[Outcome], passed: list[bool]) -> Verdict:
    """One reproducer: skipped when its environment is absent, else pass only if every run passed."""
    if any(o in (Outcome.SKIPPED_GPU, Outcome.ENVIRONMENT_MISSING) for o in outcomes):
        return "skip"
    return "pass" if passed and all(passed) else "fail"


def shown_command(spec: Spec, variant: Variant | None = None) -> str:
    """The command as a person types it in the reproducer's folder."""
    if spec.launcher is Launcher.SHELL:
        return (variant.command if variant and variant.command else None) or spec.command or ""
    program = (variant.program if variant and variant.program else None) or spec.program or ""
    args = variant.args if variant and variant.args is not None else spec.args
    head = ["python"] if spec.launcher is Launcher.PYTHON else ["torchrun", f"--nproc-per-node={spec.nproc_per_node}"]
    return " ".join([*head, program, *args])


@dataclass(frozen=True)
class ReproducerView:
    """What an entry page shows under "Reproduce it"."""

    folder: str
    what: str
    device: str
    requires: tuple[str, ...]
    command: str
    variants: tuple[tuple[str, str, str | None], ...]  # (label, command, runs measured on the reproducer)
    program: str | None
    code: str | None
    verified: str | None
    where: str | None
    versions: tuple[tuple[str, str], ...]


MAX_CODE = 6000


def measured_on_reproducer(variant: Variant, runs: Tally | None) -> str | None:
    """ "measured on reproducer, N runs: …" for one variant, from stored reproducer runs (never field reports)."""
    if runs is None:
        return None
    if variant.workaround is not None:
        c = runs.workarounds.get(variant.workaround)
        what = "fixed" if c is None else f"{c.worked} fixed"
    else:
        c = runs.dead_ends.get(variant.dead_end or 0)
        what = "still failed" if c is None else f"{c.failed} still failed"
    if c is None or c.reports == 0:
        return None
    return f"measured on reproducer, {c.reports} run{'s' if c.reports != 1 else ''}: {what}"


def reproducer_view(rep: Reproducer, code: str | None, runs: Tally | None = None) -> ReproducerView | None:
    if rep.spec is None:
        return None
    spec = rep.spec
    record = rep.record if rep.record is not None and rep.record.passed else None
    if code is not None and len(code) > MAX_CODE:
        code = code[:MAX_CODE] + "\n# …"
    return ReproducerView(
        folder=rep.folder,
        what=spec.what,
        device=spec.device.value,
        requires=tuple(spec.requires),
        command=shown_command(spec),
        variants=tuple((v.label, shown_command(spec, v), measured_on_reproducer(v, runs)) for v in spec.fixed),
        program=spec.program,
        code=code,
        verified=record.verified.isoformat() if record else None,
        where=record.where if record else None,
        versions=tuple(sorted((record.versions if record else {}).items()))
        + ((("python", record.python),) if record else ()),
    )
