"""Running reproducers: each run in its own temporary folder (a copy of the reproducer's folder), in its
own process group, under the spec's timeout, with the running interpreter's ``python`` first on PATH.
Runs go in parallel, up to the number of cores. The judging lives in core.reproducers."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rootcause.adapters.canon_files import LoadedEntry
from rootcause.adapters.reproducer_files import folder_path, reproducers_of
from rootcause.adapters.reproducer_machine import free_port, missing_environment
from rootcause.core.matching.index import CompiledIndex
from rootcause.core.model import Entry
from rootcause.core.reproducers import (
    EXPECTED_FILE,
    RECORD_FILE,
    Device,
    Judgement,
    Launcher,
    Outcome,
    Spec,
    Variant,
    judge_failing,
    judge_variant,
    output_diff,
    shown_command,
    verdict,
)

MAX_OUTPUT = 4 * 1024 * 1024
BASE_ENV = {
    "OMP_NUM_THREADS": "1",
    "PYTHONUNBUFFERED": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


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
    port = free_port()
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
