"""Find, read and run reproducers (docs/reproducers.md). The judging lives in core.reproducers.

Each run happens in its own temporary folder (a copy of the reproducer's folder), in its own
process group, under the spec's timeout, with the running interpreter's ``python`` first on
PATH. Runs go in parallel, up to the number of cores.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata as md
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from pydantic import ValidationError

from rootcause.adapters.canon_files import LoadedEntry, write_atomic
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry
from rootcause.core.reproducers import (
    EXPECTED_FILE,
    RECORD_FILE,
    SPEC_FILE,
    Device,
    Judgement,
    Launcher,
    Outcome,
    Record,
    Reproducer,
    ReproducerView,
    RunRecord,
    Spec,
    Variant,
    judge_failing,
    judge_variant,
    output_diff,
    reproducer_view,
    shown_command,
    verdict,
)
from rootcause.core.stats import Tally

MAX_OUTPUT = 4 * 1024 * 1024
BASE_ENV = {
    "OMP_NUM_THREADS": "1",
    "PYTHONUNBUFFERED": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


def reproducers_root(entry_file: str | Path) -> Path:
    """``<canon>/<domain>/<slug>.yaml`` -> ``<canon>/../reproducers``."""
    return Path(entry_file).resolve().parent.parent.parent / "reproducers"


def _read_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _problem(path: Path, exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top)"
    return f"{path}: {where}: {err['msg']}"


def load_reproducer(entry_id: str, folder: str, root: Path) -> Reproducer:
    base = root / folder
    spec_path = base / SPEC_FILE
    if not spec_path.is_file():
        return Reproducer(entry_id, folder, None, None, problem=f"{spec_path}: no such file")
    files = tuple(sorted(p.name for p in base.iterdir() if p.is_file()))
    try:
        spec = Spec.model_validate(_read_yaml(spec_path))
    except ValidationError as exc:
        return Reproducer(entry_id, folder, None, None, problem=_problem(spec_path, exc), files=files)
    except (yaml.YAMLError, OSError) as exc:
        return Reproducer(entry_id, folder, None, None, problem=f"{spec_path}: {' '.join(str(exc).split())}")
    record = None
    record_path = base / RECORD_FILE
    problem = None
    if record_path.is_file():
        try:
            record = Record.model_validate(_read_yaml(record_path))
        except (ValidationError, yaml.YAMLError) as exc:
            problem = f"{record_path}: invalid record ({' '.join(str(exc).split())[:200]})"
            return Reproducer(entry_id, folder, None, None, problem=problem, files=files)
    expected = base / EXPECTED_FILE
    text = expected.read_text(encoding="utf-8", errors="replace") if expected.is_file() else None
    return Reproducer(entry_id, folder, spec, record, expected_output=text, files=files)


def reproducer_views(entry: Entry, canon_roots: Sequence[Path], runs: Tally | None = None) -> list[ReproducerView]:
    """The "Reproduce it" views of an entry; a later canon folder's reproducers override earlier ones."""
    out = []
    for ref in entry.reproducers:
        found = None
        for canon in canon_roots:
            base = canon.parent / "reproducers"
            if (base / ref.folder / SPEC_FILE).is_file():
                found = base
        if found is None:
            continue
        rep = load_reproducer(entry.id, ref.folder, found)
        code = None
        if rep.spec is not None and rep.spec.program:
            program = found / ref.folder / rep.spec.program
            code = program.read_text(encoding="utf-8", errors="replace") if program.is_file() else None
        view = reproducer_view(rep, code, runs)
        if view is not None:
            out.append(view)
    return out


def reproducers_of(loaded: LoadedEntry) -> list[Reproducer]:
    root = reproducers_root(loaded.path)
    return [load_reproducer(loaded.entry.id, ref.folder, root) for ref in loaded.entry.reproducers]


def folder_path(loaded: LoadedEntry, folder: str) -> Path:
    return reproducers_root(loaded.path) / folder


# -- the machine ------------------------------------------------------------------------------
def gpu_name() -> str | None:
    """The first GPU's name, or None when there is none (nvidia-smi absent or failing)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
    return names[0] if out.returncode == 0 and names else None


def machine(gpu: str | None) -> str:
    what = f"GPU {gpu}" if gpu else "CPU only"
    return f"{what}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores"


def installed(requirement: str) -> str | None:
    req = Requirement(requirement)
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        return None
    return version if req.specifier.contains(version, prereleases=True) else None


def missing_environment(spec: Spec) -> list[str]:
    out = []
    for r in spec.requires:
        if installed(r) is None:
            name = Requirement(r).name
            try:
                have = md.version(name)
                out.append(f"{r} (installed {have})")
            except md.PackageNotFoundError:
                out.append(f"{r} (not installed)")
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")  # as the runs see it
    out += [f"{t} (not on PATH)" for t in spec.tools if shutil.which(t, path=path) is None]
    return out


def versions_of(spec: Spec) -> dict[str, str]:
    out = {}
    for r in spec.requires:
        name = Requirement(r).name
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- one run ----------------------------------------------------------------------------------
@dataclass
class Run:
    """One program run of one reproducer: the failing run, or one variant."""

    entry: Entry
    folder: str
    source: Path
    spec: Spec
    variant: Variant | None
    label: str
    outcome: Outcome | None = None
    passed: bool = False
    detail: str = ""
    seconds: float = 0.0
    exit_code: int | None = None
    output: str = ""
    diff: str | None = None
    command: str = ""


def command_line(spec: Spec, variant: Variant | None, port: int) -> list[str]:
    program = (variant.program if variant and variant.program else None) or spec.program
    args = variant.args if variant and variant.args is not None else spec.args
    if spec.launcher is Launcher.SHELL:
        return ["bash", "-c", (variant.command if variant and variant.command else None) or spec.command or ""]
    if spec.launcher is Launcher.TORCHRUN:
        return [
            sys.executable,
            "-m",
            "torch.distributed.run",
            f"--nproc-per-node={spec.nproc_per_node}",
            "--master-addr=127.0.0.1",
            f"--master-port={port}",
            str(program),
            *args,
        ]
    return [sys.executable, str(program), *args]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


SUPPORT_DIR = "_support"  # helpers several reproducers share, beside the domain folders


def _add_support_files(source: Path, work: Path) -> None:
    """Copy the shared helpers (make_wheels.py …) into a run folder; a reproducer's own file wins."""
    support = source.parent.parent / SUPPORT_DIR
    if support.is_dir():
        for helper in support.iterdir():
            if helper.is_file() and not (work / helper.name).exists():
                shutil.copy2(helper, work / helper.name)


def execute(run: Run, index: CompiledIndex, expected_output: str | None) -> Run:
    start = time.monotonic()
    port = _free_port()
    env = {**os.environ, **BASE_ENV, **run.spec.env, **(run.variant.env if run.variant else {})}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["RC_PORT"] = str(port)
    env["RC_PYTHON"] = sys.executable
    argv = command_line(run.spec, run.variant, port)
    run.command = shown_command(run.spec, run.variant)
    with tempfile.TemporaryDirectory(prefix="rc-verify-") as tmp:
        work = Path(tmp) / "run"
        shutil.copytree(run.source, work, ignore=shutil.ignore_patterns(RECORD_FILE, EXPECTED_FILE, "__pycache__"))
        _add_support_files(run.source, work)
        env["HF_HOME"] = str(Path(tmp) / "hf_home")
        env["TMPDIR"] = tmp
        proc = subprocess.Popen(
            argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            raw, _ = proc.communicate(timeout=run.spec.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raw, _ = proc.communicate()
            timed_out = True
        _kill_group(proc)  # stragglers (torchrun workers, DataLoader workers)
    run.seconds = time.monotonic() - start
    run.exit_code = proc.returncode
    run.output = raw[-MAX_OUTPUT:].decode("utf-8", "replace")
    if timed_out:
        judged = Judgement(Outcome.TIMED_OUT, f"no exit within {run.spec.timeout} s", False)
    elif run.variant is None:
        judged = judge_failing(run.entry, run.output, proc.returncode, index)
    else:
        judged = judge_variant(run.entry, run.variant, run.output, proc.returncode, index)
    run.outcome, run.detail, run.passed = judged.outcome, judged.detail, judged.passed
    if not run.passed and run.variant is None and expected_output is not None:
        run.diff = output_diff(expected_output, run.output)
    return run


# -- many runs --------------------------------------------------------------------------------
@dataclass
class ReproducerResult:
    entry_id: str
    folder: str
    environment: str
    runs: list[Run] = field(default_factory=list)
    skipped: Outcome | None = None
    skip_detail: str = ""
    problem: str | None = None

    @property
    def verdict(self) -> str:
        if self.problem:
            return "fail"
        if self.skipped is not None:
            return "skip"
        return verdict([r.outcome for r in self.runs if r.outcome], [r.passed for r in self.runs])


def plan(
    selected: Sequence[LoadedEntry], *, gpu: str | None, include_gpu: bool = True
) -> tuple[list[ReproducerResult], list[tuple[Run, str | None]]]:
    results: list[ReproducerResult] = []
    runs: list[tuple[Run, str | None]] = []
    for loaded in selected:
        for rep in reproducers_of(loaded):
            if rep.spec is None:
                results.append(ReproducerResult(loaded.entry.id, rep.folder, "-", problem=rep.problem))
                continue
            spec = rep.spec
            env_word = spec.device.value + (
                f", {spec.launcher.value} x{spec.nproc_per_node}" if spec.launcher is Launcher.TORCHRUN else ""
            )
            result = ReproducerResult(loaded.entry.id, rep.folder, env_word)
            results.append(result)
            if spec.device is Device.GPU and gpu is None:
                result.skipped, result.skip_detail = Outcome.SKIPPED_GPU, "needs a GPU; none is present"
                continue
            if spec.device is Device.GPU and not include_gpu:
                result.skipped, result.skip_detail = Outcome.SKIPPED_GPU, "GPU reproducers not selected"
                continue
            missing = missing_environment(spec)
            if missing:
                result.skipped, result.skip_detail = Outcome.ENVIRONMENT_MISSING, "; ".join(missing)
                continue
            source = folder_path(loaded, rep.folder)
            for variant in [None, *spec.fixed]:
                label = "failing" if variant is None else variant.label
                run = Run(loaded.entry, rep.folder, source, spec, variant, label)
                result.runs.append(run)
                runs.append((run, rep.expected_output))
    return results, runs


def run_all(
    runs: Iterable[tuple[Run, str | None]],
    index: CompiledIndex,
    *,
    jobs: int,
    on_done: Callable[[Run], None] | None = None,
) -> None:
    ordered = sorted(runs, key=lambda item: -item[0].spec.timeout)  # long ones first
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(execute, run, index, expected) for run, expected in ordered]
        for fut in futures:
            done = fut.result()
            if on_done is not None:
                on_done(done)


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
