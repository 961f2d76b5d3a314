"""The long fuzz run and the time-per-byte figures (the test suite runs the same properties
with 150 examples each; this runs them with many more, and measures what a test must not).

    python bench/fuzz_long.py                    # 1000 examples per property, sizes up to 64 MiB
    python bench/fuzz_long.py --examples 5000 --max-mib 256 --json bench/out/fuzz.json

Part 1 runs every property of tests/test_fuzz_engine.py and tests/test_fuzz_inputs.py and
counts the examples each ran. Part 2 diagnoses hostile inputs of growing size (random bytes,
one huge line, a million short lines per 3 MB, deep nesting, lines that all look like errors)
and reports seconds and nanoseconds per byte: time linear in input size means a flat ns/byte.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "src")]

from rootcause.adapters.loading import load_index  # noqa: E402
from rootcause.core.diagnosis import SourceInput, diagnose_sources  # noqa: E402

SEED_ERROR = (
    b"RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    b"Original reason for failure was: AllReduce timed out after 600000 ms"
)


def run_properties(examples: int) -> dict[str, Any]:
    os.environ["ROOTCAUSE_FUZZ_EXAMPLES"] = str(examples)  # read when the test modules load
    import test_fuzz_engine
    import test_fuzz_inputs

    index = load_index()
    counts: Counter[str] = Counter()
    failures: dict[str, str] = {}
    for module in (test_fuzz_engine, test_fuzz_inputs):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if not name.startswith("test_") or not hasattr(fn, "hypothesis"):
                continue
            inner = fn.hypothesis.inner_test

            def counted(*args: Any, _inner: Callable[..., None] = inner, _name: str = name, **kwargs: Any) -> None:
                counts[_name] += 1
                _inner(*args, **kwargs)

            fn.hypothesis.inner_test = counted
            run = fn
            started = time.perf_counter()
            try:
                run(index=index) if "index" in fn.__code__.co_varnames else run()
            except Exception as exc:  # a property failed: report it, keep going
                failures[name] = f"{type(exc).__name__}: {str(exc)[:500]}"
            print(f"{name:60s} {counts[name]:6d} examples  {time.perf_counter() - started:6.1f} s", flush=True)
    return {"examples": dict(counts), "total": sum(counts.values()), "failures": failures}


def shapes(size: int, rng: random.Random) -> dict[str, bytes]:
    short = b"ok\n" * (size // 3)
    errors = b"".join(
        b"RuntimeError: something went wrong in module %d at step %d\n" % (rng.randrange(10**6), i)
        for i in range(size // 56)
    )
    third = size // 3
    return {
        "random bytes": rng.randbytes(size),
        "one huge line": b"x" * (size - len(SEED_ERROR)) + SEED_ERROR,
        "short lines": short + SEED_ERROR,
        "deep nesting": b"[" * third + b"{" * third + b"(" * (size - 2 * third),
        "error-like lines": errors[:size],
    }


def time_per_byte(max_mib: int) -> list[dict[str, Any]]:
    index = load_index()
    rng = random.Random(14)
    rows = []
    mib = 1
    while mib <= max_mib:
        for shape, data in shapes(mib << 20, rng).items():
            chunks = [data[i : i + (1 << 20)] for i in range(0, len(data), 1 << 20)]
            best = float("inf")
            for _ in range(3 if mib <= 64 else 1):
                started = time.perf_counter()
                d = diagnose_sources([SourceInput("<bench>", chunks)], index)
                best = min(best, time.perf_counter() - started)
            rows.append(
                {
                    "shape": shape,
                    "mib": mib,
                    "seconds": round(best, 3),
                    "ns_per_byte": round(best * 1e9 / len(data), 1),
                    "matched": d.matched,
                }
            )
            print(f"{shape:18s} {mib:5d} MiB  {best:7.3f} s  {best * 1e9 / len(data):7.1f} ns/byte", flush=True)
        mib *= 4
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="examples per property")
    parser.add_argument("--max-mib", type=int, default=64, help="largest input of the time-per-byte run")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--skip-properties", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("ROOTCAUSE_CACHE_DIR", str(ROOT / "bench" / "out" / "cache"))
    out: dict[str, Any] = {}
    if not args.skip_properties:
        out["properties"] = run_properties(args.examples)
        print(f"total: {out['properties']['total']} examples, {len(out['properties']['failures'])} failing properties")
        for name, why in out["properties"]["failures"].items():
            print(f"FAILED {name}: {why}")
    out["time_per_byte"] = time_per_byte(args.max_mib)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))
    if out.get("properties", {}).get("failures"):
        sys.exit(1)


if __name__ == "__main__":
    main()
