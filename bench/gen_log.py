"""Generate a large, realistic training log: noise with a few known errors buried in it.

    python bench/gen_log.py OUT.log --size-mb 1024

Noise is what real jobs print: step/loss lines, tqdm bars, warnings, NCCL INFO lines,
torchrun and c10 prefixes, glog headers, and a few unrelated error-looking lines.
The known errors are the examples of real canon entries, so the expected findings are known.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from rootcause.adapters.loading import load_entries

# (weight, template): what a long training job prints over and over
NOISE = [
    (40, "[rank{r}]: step {n} | loss {f:.4f} | lr 3.0e-04 | grad_norm {g:.3f} | tokens/s {t}"),
    (25, "{pct}%|{bar}| {n}/20000 [{mm}:{ss}<{mm2}:{ss}, {it:.2f}it/s]"),
    (10, "{{'loss': {f:.4f}, 'grad_norm': {g:.3f}, 'learning_rate': 2e-05, 'epoch': {e:.2f}}}"),
    (6, "2026-12-02 13:{mm}:{ss},{ms} - INFO - trainer - Saving checkpoint to /ckpt/step_{n}.pt"),
    (6, "Evaluating: {pct}%|{bar}| {n}/500"),
    (4, "I1202 13:{mm}:{ss}.{us} {pid} torch/distributed/elastic/agent/server/api.py:{line}] [default] heartbeat ok"),
    (3, "node-{h}:{pid}:{pid} [{lr}] NCCL INFO Channel {c:02d}/0 : {r} -> {r2} via P2P/IPC"),
    (
        2,
        "/usr/lib/python3.11/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create {w} worker processes in total.",
    ),
    (
        1,
        "[rank{r}]:[W1202 13:{mm}:{ss}.{ns} ProcessGroupNCCL.cpp:{line}] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now",
    ),
    (1, "WARNING: retrying connection to metrics server (attempt {w}/5): timed out after 5s"),
]
# printed once per rank at start-up (NCCL_DEBUG=INFO)
HEADER = [
    "node-{h}:{pid}:{pid} [{lr}] NCCL INFO comm 0x{hex} rank {r} nRanks 64 nNodes 8 localRanks 8 localRank {lr} MNNVL 0",
    "node-{h}:{pid}:{pid} [{lr}] NCCL INFO Init COMPLETE",
]


def _fill(tpl: str, rng: random.Random) -> str:
    return tpl.format(
        r=rng.randrange(64),
        r2=rng.randrange(64),
        lr=rng.randrange(8),
        n=rng.randrange(100000),
        f=rng.random() * 4,
        g=rng.random() * 10,
        t=rng.randrange(10**6),
        pct=rng.randrange(100),
        bar="#" * rng.randrange(10) + " " * 3,
        mm=rng.randrange(60),
        ss=rng.randrange(60),
        mm2=rng.randrange(60),
        it=rng.random() * 9,
        w=rng.randrange(16),
        h=rng.randrange(128),
        pid=rng.randrange(1, 99999),
        c=rng.randrange(32),
        hex=rng.getrandbits(48),
        line=rng.randrange(3000),
        ns=rng.randrange(10**9),
        us=rng.randrange(10**6),
        ms=rng.randrange(1000),
        e=rng.random() * 3,
    )


def noise_line(rng: random.Random) -> str:
    weights = [w for w, _ in NOISE]
    return _fill(rng.choices([t for _, t in NOISE], weights)[0], rng)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--errors", type=int, default=50, help="known errors to bury")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--error-ranks", type=int, default=1, help="ranks the buried errors come from (>1: a multi-rank log)"
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    examples = [(e.id, ex.text) for e in load_entries() if not e.generic for ex in e.examples if "\n" not in ex.text]
    if args.error_ranks == 1:  # a single-process log: no example that quotes another rank's prefix
        examples = [(i, t) for i, t in examples if not re.search(r"\[(?:rank|default)\d+\]|\[Rank [1-9]", t)]
    block_lines = [noise_line(rng) for _ in range(200_000)]
    block = ("\n".join(block_lines) + "\n").encode()
    target = args.size_mb << 20
    n_blocks = max(1, target // len(block))
    planted: list[dict[str, object]] = []
    with args.out.open("wb") as fh:
        fh.write(("\n".join(_fill(t, rng) for _ in range(64) for t in HEADER) + "\n").encode())
        for b in range(n_blocks):
            fh.write(block)
            if b % max(1, n_blocks // args.errors) == 0 and len(planted) < args.errors:
                entry_id, text = rng.choice(examples)
                fh.write(f"[rank{rng.randrange(args.error_ranks)}]: {text}\n".encode())
                planted.append({"id": entry_id, "block": b})
    args.out.with_suffix(".planted.json").write_text(json.dumps(planted, indent=1))
    print(f"wrote {args.out} ({args.out.stat().st_size >> 20} MiB), {len(planted)} planted errors")


if __name__ == "__main__":
    main()
