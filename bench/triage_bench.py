"""Triage of many large rank logs: time and peak memory at 1/4, 1/2 and all of the input.

    python bench/triage_bench.py                      # 1,024 rank logs x 10 MB (10 GiB) in a temp dir
    python bench/triage_bench.py --small              # 64 x 2 MB, for a quick look
    python bench/triage_bench.py --ranks 256 --mb 4   # any size
    python bench/triage_bench.py --append-readme      # also append the table to bench/README.md ("Triage")
    python bench/triage_bench.py --real               # correctness on every real capture, beside torchrun's own
                                                      # "Root Cause" (bench/triage_real.py; --append-readme too)

The logs are generated at run time into a temporary folder (deleted afterwards): a 1,024-rank job on
128 hosts where rank 100 never reaches ALLREDUCE #81234 and every other rank times out in it (PyTorch
2.6 / NCCL 2.21 formats, as in tests/fixtures/triage). Each log is mostly noise: NCCL INFO chatter,
step lines, c10 warnings, data-loader warnings that contain "Error". Each measurement runs
`rootcause triage --format json` end to end in a fresh process (start-up, the knowledge-base scan
and the triage, in one pass) and reads its peak RSS from wait4(). The answer is checked every time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEQ = 81234
HEADER = "## Triage"


def _c10(rank: int, sev: str, sec: int, line: int) -> str:
    return f"[rank{rank}]:[{sev}304 10:{sec // 60 % 60:02d}:{sec % 60:02d}.{rank * 977 % 10**9:09d} ProcessGroupNCCL.cpp:{line}] "


def _pg(rank: int) -> str:
    return f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}] "


def noise_block(variant: int, size: int) -> bytes:
    """About `size` bytes of lines that real jobs print between failures."""
    rng = random.Random(variant)
    lines: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        pick = n % 20
        if pick < 12:
            line = (
                f"step {n} | loss {2 + rng.random():.4f} | lr 3.0e-04 | grad_norm {rng.random() * 3:.3f} | "
                f"tokens/s {rng.randrange(90000, 99000)} | mem 71.{n % 10}G"
            )
        elif pick < 17:
            line = (
                f"node-{variant:03d}:{4000 + variant}:{4100 + n % 64} [{n % 8}] NCCL INFO Channel {n % 32:02d}/32 : "
                f"{n % 1024} -> {(n + 1) % 1024} via NET/IB/{n % 8}/GDRDMA"
            )
        elif pick < 19:
            line = (
                f"[W304 10:{n // 60 % 60:02d}:{n % 60:02d}.{n:09d} CUDAGuardImpl.h:119] Warning: "
                "CUDA warning: driver shutting down (function destroyEvent)"
            )
        elif n % 5000 == 19:  # now and then a warning that contains "Error"
            line = f"2025-03-04 10:{n // 60 % 60:02d}:{n % 60:02d},123 - WARNING - dataset - skip {n}: DecodeError('x')"
        else:
            line = f"2025-03-04 10:{n // 60 % 60:02d}:{n % 60:02d},123 - INFO - trainer - saved metrics for step {n}"
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def guilty_rank(nranks: int) -> int:
    return nranks * 100 // 1024  # in the first quarter, so that every fraction of the input holds it


def rank_log(rank: int, nranks: int) -> tuple[bytes, bytes]:
    """(head, tail) of one rank's log: NCCL init lines, then what it printed when the job failed."""
    host, local = divmod(rank, 8)
    h, pid = f"node-{host:03d}", 4000 + rank
    head = [
        f"{h}:{pid}:{pid} [{local}] NCCL INFO Bootstrap : Using eth0:10.{host // 250}.{host % 250}.1<0>",
        f"{h}:{pid}:{pid} [{local}] NCCL INFO comm 0x55d{rank:06x} rank {rank} nRanks {nranks} nNodes {nranks // 8} localRanks 8 "
        f"localRank {local} MNNVL 0",
        f"{h}:{pid}:{pid} [{local}] NCCL INFO ncclCommInitRankConfig comm 0x55d{rank:06x} rank {rank} nranks {nranks} "
        f"cudaDev {local} nvmlDev {local} busId {local}a000 commId 0x5eed - Init COMPLETE",
    ]
    if rank == guilty_rank(nranks):
        tail = [
            _c10(rank, "E", 2468, 1595)
            + _pg(rank)
            + "Received a dump signal due to a collective timeout from  rank 0 and "
            f"we will try our best to dump the debug info. Last enqueued NCCL work: {SEQ - 1}, last completed NCCL work: "
            f"{SEQ - 1}.This is most likely caused by incorrect usages of collectives",
        ]
    else:
        work = f"WorkNCCL(SeqNum={SEQ}, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000)"
        tail = [
            _c10(rank, "E", 2467, 632) + f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for "
            "600012 milliseconds before timing out.",
            _c10(rank, "E", 2467, 2168)
            + _pg(rank)
            + f" failure detected by watchdog at work sequence id: {SEQ} PG status: "
            f"last enqueued work: {SEQ}, last completed work: {SEQ - 1}",
        ]
    return ("\n".join(head) + "\n").encode(), ("\n".join(tail) + "\n").encode()


def generate(root: Path, ranks: int, mb: float) -> list[Path]:
    """Four folders of ranks/4 logs each; returns the folders."""
    size = int(mb * (1 << 20))
    blocks = [noise_block(v, size) for v in range(4)]
    folders = [root / f"part{i}" for i in range(4)]
    for folder in folders:
        folder.mkdir(parents=True)
    per = ranks // 4
    for rank in range(ranks):
        head, tail = rank_log(rank, ranks)
        with (folders[min(rank // per, 3)] / f"rank{rank}.log").open("wb") as fh:
            fh.write(head)
            fh.write(blocks[rank % 4])
            fh.write(tail)
    return folders


def measure(folders: list[Path]) -> dict[str, float]:
    cmd = [sys.executable, "-m", "rootcause.adapters.cli.main", "triage", "--format", "json", "--no-progress"]
    cmd += [str(f) for f in folders]
    size = sum(p.stat().st_size for f in folders for p in f.iterdir())
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        report = json.loads(out.read())
    return {
        "files": sum(1 for f in folders for _ in f.iterdir()),
        "bytes": size,
        "seconds": elapsed,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "exit": proc.returncode,
        "kind": report["conclusion"]["kind"],
        "guilty": report["conclusion"]["guilty_ranks"],
    }


def table(rows: list[dict[str, float]], note: str) -> str:
    lines = [
        "| fraction | rank logs | input | wall time | CPU time | CPU s per GiB | throughput (wall) | peak RSS | conclusion |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for frac, r in zip(("1/4", "1/2", "all"), rows, strict=True):
        gib = r["bytes"] / (1 << 30)
        lines.append(
            f"| {frac} | {r['files']} | {gib:.2f} GiB | {r['seconds']:.1f} s | {r['cpu_seconds']:.1f} s "
            f"| {r['cpu_seconds'] / gib:.1f} | {r['bytes'] / (1 << 20) / r['seconds']:.0f} MiB/s "
            f"| {r['peak_rss_mib']:.0f} MiB | {r['kind']} {r['guilty']} |"
        )
    return "\n".join(lines) + "\n\n" + note + "\n"


def append_readme(text: str) -> None:
    readme = ROOT / "bench" / "README.md"
    current = readme.read_text(encoding="utf-8") if readme.exists() else "# Benchmarks\n"
    block = f"\n{HEADER}\n\n{text}"
    if HEADER in current:  # replace our section, keep the others
        before, _, after = current.partition(HEADER)
        rest = after.split("\n## ", 1)
        current = before.rstrip() + "\n" + block + ("\n## " + rest[1] if len(rest) > 1 else "")
        readme.write_text(current, encoding="utf-8")
    else:
        readme.write_text(current.rstrip() + "\n" + block, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--mb", type=float, default=10.0, help="size of each rank log in MiB")
    ap.add_argument("--small", action="store_true", help="64 rank logs of 2 MiB (a quick check)")
    ap.add_argument("--dir", type=Path, help="generate here instead of a temp dir (kept)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    ap.add_argument("--append-readme", action="store_true", help='append the table to bench/README.md under "Triage"')
    ap.add_argument("--real", action="store_true", help="the real captures beside torchrun's Root Cause instead")
    args = ap.parse_args()
    if args.real:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import triage_real

        sys.argv = [sys.argv[0]] + (["--append-readme"] if args.append_readme else [])
        triage_real.main()
        return
    if args.small:
        args.ranks, args.mb = 64, 2.0
    if args.ranks % 4 or args.ranks < 8:
        ap.error("--ranks must be a multiple of 4, at least 8")
    root = args.dir or Path(tempfile.mkdtemp(prefix="rootcause-triage-bench-"))
    try:
        t0 = time.perf_counter()
        folders = generate(root, args.ranks, args.mb)
        gen = time.perf_counter() - t0
        subprocess.run(["cat", *[str(p) for f in folders for p in f.iterdir()]], stdout=subprocess.DEVNULL, check=False)
        rows = [measure(folders[:1]), measure(folders[:2]), measure(folders)]
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    expected = guilty_rank(args.ranks)
    for r in rows:
        if r["kind"] != "straggler" or r["guilty"] != [expected]:
            raise SystemExit(f"unexpected conclusion: {r}")
    note = (
        f"{args.ranks} rank logs of {args.mb:g} MiB generated in {gen:.0f} s; `rootcause triage --format json` end to "
        f"end (start-up, knowledge-base scan and triage in one pass), one fresh process per row. "
        f"{time.strftime('%Y-%m-%d')}; machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.machine()}, load average {os.getloadavg()[0]:.1f} at the end (wall times grow with other load; "
        "CPU time is the figure to compare). "
        f"Every row names the straggler, rank {expected}, from the sequence numbers."
    )
    text = table(rows, note)
    sys.stdout.write(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"ranks": args.ranks, "mb": args.mb, "rows": rows}, indent=2))
    if args.append_readme:
        append_readme(text)


if __name__ == "__main__":
    main()
