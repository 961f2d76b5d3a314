"""A generated fleet: per-rank logs of many jobs, realistic training noise with real captured errors
(tests/fixtures/real, tests/fixtures/real_hf) mixed in. Deterministic for a seed.

Layout: ``<root>/<job>/<host>/rank<N>.log``. Used by the fleet tests and by bench/fleet_bench.py.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BAD_HOST = "node-013"  # the node that keeps failing


@dataclass
class Fleet:
    root: Path
    logs: list[Path] = field(default_factory=list)
    jobs: dict[str, list[Path]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)  # job -> fixture used


def _real_single_logs() -> list[Path]:
    return sorted((FIXTURES / "real").glob("*.log")) + sorted((FIXTURES / "real_hf").glob("*.log"))


def _real_rank_cases() -> list[list[Path]]:
    cases = []
    for case in sorted((FIXTURES / "real" / "ranks").iterdir()):
        attempts = sorted(case.glob("*/attempt_0"))
        if not attempts:
            continue
        ranks = sorted((p for p in attempts[0].iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
        files = [r / "stderr.log" for r in ranks if (r / "stderr.log").is_file()]
        if len(files) >= 2:
            cases.append(files)
    return cases


def _noise(rng: random.Random, host: str, rank: int, world: int, lines: int) -> list[str]:
    pid = rng.randint(1000, 60000)
    out = [
        f"[2026-12-0{rng.randint(1, 3)} 0{rng.randint(0, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}] "
        f"launching rank {rank}/{world} on {host} (pid {pid})",
        f"{host}:{pid}:{pid} [{rank % 8}] NCCL INFO Bootstrap : Using eth0:10.{rng.randint(0, 9)}.{rng.randint(0, 250)}.{rng.randint(1, 250)}<0>",
        f"{host}:{pid}:{pid + 17} [{rank % 8}] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
        f"{host}:{pid}:{pid + 17} [{rank % 8}] NCCL INFO Connected all rings",
    ]
    total = rng.choice([500, 1000, 2000])
    for step in range(lines):
        kind = rng.random()
        if kind < 0.35:
            done = min(total, (step + 1) * total // lines)
            pct = done * 100 // total
            bar = "█" * (pct // 10) + " " * (10 - pct // 10)
            out.append(
                f"Training:  {pct:2d}%|{bar}| {done}/{total} [{step // 60:02d}:{step % 60:02d}<{(lines - step) // 60:02d}:"
                f"{(lines - step) % 60:02d},  {rng.uniform(1, 9):.2f}it/s, loss={rng.uniform(0.5, 3):.3f}]"
            )
        elif kind < 0.7:
            out.append(
                f"{{'loss': {rng.uniform(0.5, 3):.4f}, 'grad_norm': {rng.uniform(0.1, 8):.3f}, "
                f"'learning_rate': {rng.uniform(1e-5, 5e-4):.2e}, 'epoch': {step / lines:.2f}}}"
            )
        elif kind < 0.85:
            out.append(f"step {step * 10} | tokens/s {rng.randint(9000, 40000)} | mem {rng.uniform(20, 70):.1f} GiB")
        elif kind < 0.95:
            out.append(f"Saving model checkpoint to /ckpt/run-{rng.randint(1, 99)}/checkpoint-{step * 10}")
        else:
            out.append(f"eval: accuracy={rng.uniform(0.4, 0.9):.4f} perplexity={rng.uniform(3, 40):.2f}")
    return out


def _write(path: Path, lines: list[str], tail: bytes = b"", mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode() + tail)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def make_fleet(root: Path, jobs: int = 220, seed: int = 13, noise_lines: int = 30, now: float | None = None) -> Fleet:
    """``jobs`` jobs of 8–12 ranks (about 10 per job), 8 ranks per host; some jobs fail with a real error."""
    rng = random.Random(seed)
    singles = _real_single_logs()
    cases = _real_rank_cases()
    hosts = [f"node-{n:03d}" for n in range(48)]
    fleet = Fleet(root)
    import time

    now = now if now is not None else time.time()
    for j in range(jobs):
        job = f"job-{j:04d}"
        world = rng.randint(8, 12)
        n_hosts = (world + 7) // 8
        job_hosts = rng.sample(hosts, n_hosts)
        roll = rng.random()
        fails = roll < 0.45
        if fails and rng.random() < 0.5 and BAD_HOST not in job_hosts:
            job_hosts[0] = BAD_HOST  # the bad node shows up in many failing jobs
        mtime = now - rng.uniform(0, 20 * 86400)  # written over the last 20 days
        tails: dict[int, bytes] = {}
        if roll < 0.30:
            fixture = rng.choice(singles)
            tails[rng.randrange(min(world, 8))] = fixture.read_bytes()
            fleet.failures[job] = fixture.name
        elif roll < 0.45 and cases:
            case = rng.choice(cases)
            for r, f in enumerate(case):
                tails[r] = f.read_bytes()
            fleet.failures[job] = case[0].parts[-5]
        paths = []
        for rank in range(world):
            host = job_hosts[rank // 8]
            path = root / job / host / f"rank{rank}.log"
            lines = _noise(rng, host, rank, world, noise_lines)
            _write(path, lines, tails.get(rank, b""), mtime + rank)
            paths.append(path)
        fleet.jobs[job] = paths
        fleet.logs.extend(paths)
    return fleet
