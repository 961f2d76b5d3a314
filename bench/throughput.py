"""Throughput and peak memory on a large log, next to grep -E -f and ripgrep -f.

    python bench/throughput.py LOG

The same pattern set goes to every tool: the canon's single-line patterns, translated to
POSIX ERE for grep (patterns ERE cannot express are counted and left out for grep only).
rootcause runs end to end as the CLI (start-up, index load, scan, ranking, JSON output).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rootcause.adapters.loading import load_entries


def ere(regex: str) -> str | None:
    """RE2 → POSIX ERE (GNU grep), or None when ERE cannot say it."""
    if "(?i" in regex or "\\n" in regex or "(?s" in regex:
        return None
    out = regex.replace("(?P<", "(?<")
    out = re.sub(r"\(\?<[A-Za-z_]\w*>", "(", out)
    out = out.replace("(?:", "(")
    out = out.replace("\\d", "[0-9]").replace("\\D", "[^0-9]")
    out = re.sub(r"([*+?}])\?", r"\1", out)  # lazy → greedy (same lines match)
    if "(?" in out or "\\p" in out or "\\A" in out or "\\z" in out:
        return None
    return out


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)  # each escape pair in turn, so an escaped backslash stays one


def rg_pattern(regex: str) -> str:
    """RE2 -> ripgrep (Rust's regex). ripgrep joins its patterns into one regex, so capture names would clash: they
    become plain groups; and Rust's regex refuses escapes of punctuation that RE2 takes (``\\/``, ``\\'``)."""
    plain = re.sub(r"\(\?P<[A-Za-z_]\w*>", "(?:", regex)
    return _ESCAPE.sub(lambda m: m.group(1) if m.group(1) in "\"'<>`/!@#%&=,;:~ " else m.group(0), plain)


def timed(cmd: list[str]) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):  # 1: no line matched (grep, rg) or no known error (rootcause)
        raise SystemExit(f"{' '.join(cmd[:3])} ...: exit {proc.returncode}: {proc.stderr[-500:]}")
    rss_kb = int(proc.stderr.strip().splitlines()[-1]) if proc.stderr.strip() else 0
    return elapsed, rss_kb, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("log", type=Path)
    ap.add_argument("--multi-rank-log", type=Path, help="the same noise with errors from many ranks (triage runs too)")
    ap.add_argument("--json", type=Path, help="write results here")
    args = ap.parse_args()
    size_mb = args.log.stat().st_size / (1 << 20)
    patterns = [p.regex for e in load_entries() for p in e.patterns if p.window == 1]
    ere_patterns = [x for x in (ere(p) for p in patterns) if x is not None]
    tmp = Path(tempfile.mkdtemp())
    (tmp / "ere.txt").write_text("\n".join(ere_patterns) + "\n")
    rg_patterns = [rg_pattern(p) for p in patterns]
    (tmp / "re2.txt").write_text("\n".join(rg_patterns) + "\n")
    subprocess.run(["cat", str(args.log)], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    rootcause = [
        sys.executable,
        "-m",
        "rootcause.adapters.cli.main",
        "diagnose",
        "--no-progress",
        "-f",
        "json",
        str(args.log),
    ]
    subprocess.run(rootcause, capture_output=True)  # warm the index cache
    runs: dict[str, dict[str, float]] = {}
    t, rss, out = timed(rootcause)
    findings = len(json.loads(out)["findings"]) if out else 0
    runs["rootcause, single-rank log"] = {
        "seconds": t,
        "mb_s": size_mb / t,
        "peak_rss_mb": rss / 1024,
        "findings": findings,
    }
    if args.multi_rank_log:
        multi = [*rootcause[:-1], str(args.multi_rank_log)]
        subprocess.run(multi, capture_output=True)
        t, rss, out = timed(multi)
        mb = args.multi_rank_log.stat().st_size / (1 << 20)
        triaged = bool(out) and json.loads(out).get("triage") is not None
        runs["rootcause, multi-rank log (one pass: scan + triage)"] = {
            "seconds": t,
            "mb_s": mb / t,
            "peak_rss_mb": rss / 1024,
            "triage_report": triaged,
        }
        # what a second pass over the log would add: the triage alone, with its own keyword prefilter
        alone = [*rootcause[:3], "triage", "--no-kb", "--no-progress", "-f", "json", str(args.multi_rank_log)]
        t, rss, _ = timed(alone)
        runs["rootcause triage --no-kb alone, multi-rank log (the old second pass)"] = {
            "seconds": t,
            "mb_s": mb / t,
            "peak_rss_mb": rss / 1024,
        }
    logs = [("single-rank log", args.log)] + ([("multi-rank log", args.multi_rank_log)] if args.multi_rank_log else [])
    for label, log in logs:
        mb = log.stat().st_size / (1 << 20)
        if shutil.which("grep"):
            t, rss, _ = timed(["grep", "-E", "-f", str(tmp / "ere.txt"), str(log)])
            runs[f"grep -E -f, {label}"] = {"seconds": t, "mb_s": mb / t, "peak_rss_mb": rss / 1024}
        if shutil.which("rg"):
            t, rss, _ = timed(["rg", "--no-config", "-f", str(tmp / "re2.txt"), str(log)])
            runs[f"rg -f, {label}"] = {"seconds": t, "mb_s": mb / t, "peak_rss_mb": rss / 1024}
    result = {
        "log_mb": round(size_mb),
        "patterns": len(patterns),
        "patterns_for_grep": len(ere_patterns),
        "runs": runs,
    }
    print("| tool | seconds | MB/s | peak RSS MB | ratio rootcause/tool |\n|---|---|---|---|---|")
    base = runs["rootcause, single-rank log"]["mb_s"]
    for name, r in runs.items():
        print(f"| {name} | {r['seconds']:.1f} | {r['mb_s']:.0f} | {r['peak_rss_mb']:.0f} | {base / r['mb_s']:.2f} |")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
