"""The CLI against grep, ripgrep, raw hyperscan and cat on one log, as CPU-time ratios of interleaved runs.

    python bench/cli_ratios.py LOG [--rounds 3] [--json OUT] [--base SRC]

Every round runs every tool once, one after the other (so a busy neighbour slows all of them alike), and
each run's CPU time (user + system, from GNU time) and peak RSS are recorded; the table gives medians over the
rounds and each tool's CPU as a ratio to rootcause's. CPU time, not wall time, because the box is shared.

- rootcause: `rootcause diagnose -f json LOG`, end to end (start-up, index from the disk cache, scan, ranking),
  with its index cache in a folder of its own and bytecode caching on (as an installed package has it);
  with --base SRC, the same with another tree's package too (e.g. `git archive HEAD src`: before and after).
- hyperscan, same patterns: the canon's 655 patterns compiled as they are into one database (bench/hs_raw.py),
  the file scanned in 1 MiB chunks with a counting callback; start-up of a bare Python included.
- hyperscan, rootcause's prefilter forms: the floor, the database rootcause's scan starts from.
- grep -E -c -f / rg -c -f (counting lines; output to a pipe, since GNU grep stops at its first match when
  it writes to /dev/null): the canon's single-line patterns (ERE where it can say them; see throughput.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from throughput import ere, rg_pattern

from rootcause.adapters.loading import load_entries


def run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS MiB of one run (GNU time: the forked parent's RSS is not counted)."""
    # GNU grep stops at its first match when stdout is /dev/null, even with -c: small outputs go to a pipe
    sink = subprocess.DEVNULL if cmd[0] == "cat" else subprocess.PIPE
    proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *cmd], stdout=sink, stderr=subprocess.PIPE, env=env)
    if proc.returncode not in (0, 1):  # 1: no line matched (grep, rg) or no known error (rootcause)
        raise SystemExit(f"{' '.join(cmd[:3])} ...: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    user, system, rss_kb = proc.stderr.decode().strip().splitlines()[-1].split()
    return float(user) + float(system), int(rss_kb) / 1024


def _env(src: Path | None, cache: Path, pycache: Path) -> dict[str, str]:
    """A rootcause run's environment: its own index cache, bytecode cached, and (src) another tree's package."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [os.environ.get("PYTHONPATH", "")])])
    env["ROOTCAUSE_CACHE_DIR"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(pycache))
    return env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("log", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--base", type=Path, help="a folder holding another version of the package: timed too")
    ap.add_argument("--no-grep", action="store_true", help="leave out grep (minutes on 1 GiB)")
    ap.add_argument("--no-rg", action="store_true", help="leave out ripgrep")
    args = ap.parse_args()
    here = Path(__file__).parent
    tmp = Path(tempfile.mkdtemp())
    py = sys.executable
    patterns = [p.regex for e in load_entries() for p in e.patterns if p.window == 1]
    (tmp / "ere.txt").write_text("\n".join(x for x in (ere(p) for p in patterns) if x is not None) + "\n")
    rg = [rg_pattern(p) for p in patterns]
    (tmp / "re2.txt").write_text("\n".join(rg) + "\n")
    for name, extra in (("exact.db", ["--exact"]), ("prefilter.db", [])):
        subprocess.run([py, str(here / "hs_raw.py"), "compile", str(tmp / name), *extra], check=True)
    log = str(args.log)
    diagnose = [py, "-m", "rootcause.adapters.cli.main", "diagnose", "--no-progress", "-f", "json", log]
    envs: dict[str, dict[str, str]] = {"rootcause diagnose": _env(None, tmp / "cache", tmp / "pycache")}
    tools = {
        "rootcause diagnose": diagnose,
        "hyperscan, same patterns": [py, str(here / "hs_raw.py"), "scan", str(tmp / "exact.db"), log],
        "hyperscan, prefilter forms (floor)": [py, str(here / "hs_raw.py"), "scan", str(tmp / "prefilter.db"), log],
        "cat": ["cat", log],
        "grep -E -c -f": ["grep", "-E", "-c", "-f", str(tmp / "ere.txt"), log],
    }
    if args.no_grep:
        del tools["grep -E -c -f"]
    if not args.no_rg and shutil.which("rg"):
        tools["rg -c -f"] = ["rg", "--no-config", "-c", "-f", str(tmp / "re2.txt"), log]
    if args.base:
        name = f"rootcause diagnose ({args.base})"
        tools[name] = diagnose
        envs[name] = _env(args.base.resolve(), tmp / "cache-base", tmp / "pycache")
    for name in envs:
        run(tools[name], envs[name])  # warm the page cache, the index cache and the bytecode cache
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
    for n in range(args.rounds):
        for name, cmd in tools.items():
            samples[name].append(run(cmd, envs.get(name)))
            print(f"round {n + 1} {name}: {samples[name][-1][0]:.2f} CPU s", file=sys.stderr, flush=True)
    mb = args.log.stat().st_size / (1 << 20)
    base = statistics.median(cpu for cpu, _ in samples["rootcause diagnose"])
    rows = {}
    print(f"\n{mb:.0f} MiB, {args.rounds} interleaved rounds, medians; load average {os.getloadavg()[0]:.1f}\n")
    print("| tool | CPU s | MiB per CPU s | peak RSS MiB | rootcause CPU ÷ tool CPU |\n|---|---:|---:|---:|---:|")
    for name, got in samples.items():
        cpu = statistics.median(c for c, _ in got)
        rss = max(r for _, r in got)
        rows[name] = {"cpu_s": cpu, "peak_rss_mib": rss, "all_cpu_s": [c for c, _ in got]}
        ratio = f"{base / cpu:.2f}" if cpu > 0 else "n/a (no CPU time: it failed)"
        print(f"| {name} | {cpu:.2f} | {mb / max(cpu, 1e-9):.0f} | {rss:.0f} | {ratio} |")
    if args.json:
        args.json.write_text(json.dumps({"log_mib": mb, "rounds": args.rounds, "tools": rows}, indent=2))


if __name__ == "__main__":
    main()
