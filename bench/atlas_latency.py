"""The located tier with a whole atlas loaded: build, cached load, and single-line latency.

    python bench/atlas_latency.py --templates 100000          # a synthetic atlas (the real one may be absent)
    python bench/atlas_latency.py --atlas src/rootcause/data/atlas/atlas.sqlite
    python bench/atlas_latency.py --templates 100000 --write /tmp/atlas.sqlite  # then bench/coldstart.py --atlas

The synthetic atlas has the real one's shape: each template is 4 to 14 words drawn from the words of the
canon's own examples (so that real error lines share many of its words), with 0 to 3 bounded captures
between them, a package of the stack, an exception and release intervals. Lines: "hit" lines instantiate
a random template (its captures filled), "miss" lines are the real errors of other stacks from the tests'
data and the corpus negatives (what must never be located). Timed per single line, in-process: the
located tier alone (`AtlasIndex.locate`), and a whole `diagnose_text` with and without the atlas.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from rootcause.adapters.atlas.store import load_templates, write_atlas
from rootcause.adapters.loading import load_entries, load_index
from rootcause.core.atlas.locate import AtlasIndex
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind
from rootcause.core.diagnosis import diagnose_text

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["torch", "transformers", "accelerate", "peft", "datasets", "huggingface_hub", "vllm", "deepspeed", "trl"]
EXCEPTIONS = ["RuntimeError", "ValueError", "TypeError", "ImportError", "AttributeError", "KeyError", "OSError"]
CAPTURE = "(?P<p{}>[^\\n]{{0,200}}?)"


def _vocabulary() -> list[str]:
    words: set[str] = set()
    for entry in load_entries():
        for ex in entry.examples:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", ex.text))
    return sorted(words)


def synthesise(n: int, seed: int = 7) -> list[Template]:
    rnd = random.Random(seed)
    vocab = _vocabulary()
    out = []
    for i in range(n):
        words = rnd.sample(vocab, rnd.randint(4, 14))
        holes = sorted(rnd.sample(range(1, len(words) + 1), rnd.randint(0, min(3, len(words) - 1))))
        parts, message, literal_runs, run = [], [], [], []
        k = 0
        for j, word in enumerate(words, 1):
            parts.append(re.escape(word + " "))
            message.append(word + " ")
            run.append(word + " ")
            if j in holes:
                parts.append(CAPTURE.format(k) + " ")
                message.append(f"{{arg{k}}} ")
                literal_runs.append("".join(run))
                run, k = [], k + 1
        literal_runs.append("".join(run))
        first = f"{rnd.randint(0, 3)}.{rnd.randint(0, 20)}.0"
        last = f"{int(first.split('.')[0]) + rnd.randint(0, 1)}.{rnd.randint(0, 20)}.1"
        kind = rnd.choice([TemplateKind.RAISE, TemplateKind.RAISE, TemplateKind.WARNING, TemplateKind.LOG])
        out.append(
            Template(
                package=rnd.choice(PACKAGES),
                module=f"pkg/mod{i % 977}.py",
                function=f"f{i}",
                line=rnd.randint(1, 5000),
                exception=rnd.choice(EXCEPTIONS) if kind == TemplateKind.RAISE else "UserWarning",
                kind=kind,
                message="".join(message).strip(),
                pattern="".join(parts).rstrip("\\ ").rstrip(),
                literal=max(literal_runs, key=len).strip(),
                releases=(ReleaseInterval(first=first, last=last),),
                source_url=f"https://github.com/example/{i}",
            )
        )
    return out


def _instance(t: Template, rnd: random.Random) -> str:
    text = re.sub(r"\{arg\d+\}", lambda _: f"v{rnd.randint(0, 99999)}", t.message)
    return f"{t.exception}: {text}" if t.kind == TemplateKind.RAISE else f"x.py:1: UserWarning: {text}"


def _misses() -> list[str]:
    unrelated = yaml.safe_load((ROOT / "tests" / "data" / "unrelated_errors_sourced.yaml").read_text())
    lines = [item["text"].strip().splitlines()[-1] for item in unrelated]
    for path in sorted((ROOT / "corpus" / "negatives").glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()):
            lines += [ln for ln in case["paste"].splitlines() if re.search(r"[Ee]rror|failed|Exception", ln)][:2]
    return [ln for ln in lines if ln.strip()]


def _timed(fn, items) -> list[float]:
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t)
    return out


def _ms(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "median_ms": round(statistics.median(values) * 1000, 4),
        "p99_ms": round(values[int(len(values) * 0.99) - 1] * 1000, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--templates", type=int, default=100_000)
    ap.add_argument("--atlas", type=Path, help="a real atlas file instead of a synthetic one")
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--write", type=Path, help="keep the synthetic atlas there (for bench/coldstart.py --atlas)")
    args = ap.parse_args()
    rnd = random.Random(11)
    if args.atlas:
        path = args.atlas
    else:
        path = args.write or Path(tempfile.mkdtemp()) / "atlas.sqlite"
        write_atlas(path, AtlasManifest(packages={}), synthesise(args.templates))
    t0 = time.perf_counter()
    templates = load_templates(path)
    t1 = time.perf_counter()
    atlas = AtlasIndex.from_templates(templates)
    t2 = time.perf_counter()
    blob = pickle.dumps(atlas.payload(), protocol=pickle.HIGHEST_PROTOCOL)
    t3 = time.perf_counter()
    atlas = AtlasIndex.from_payload(pickle.loads(blob))
    t4 = time.perf_counter()
    with_literal = [t for t in templates if len(t.literal) >= 12]
    hits = [_instance(rnd.choice(with_literal), rnd) for _ in range(args.lines)]
    misses = _misses()
    one = lambda line: atlas.locate([("<b>", 1, line, line)])  # noqa: E731
    one(hits[0])
    located = sum(bool(one(h)) for h in hits)
    false = [m for m in misses if one(m)]
    index = load_index()
    row = {
        "atlas": str(args.atlas) if args.atlas else f"synthetic {args.templates}",
        "templates": len(templates),
        "indexed_literals": len(atlas.literals),
        "read_sqlite_s": round(t1 - t0, 3),
        "build_s": round(t2 - t1, 3),
        "cache_mb": round(len(blob) / 2**20, 1),
        "cached_load_s": round(t4 - t3, 3),
        "hit_lines_located": f"{located}/{len(hits)}",
        "miss_lines_located": f"{len(false)}/{len(misses)}",
        "locate_hit": _ms(_timed(one, hits)),
        "locate_miss": _ms(_timed(one, misses)),
        "diagnose_hit_with_atlas": _ms(_timed(lambda x: diagnose_text(x, index, atlas=atlas), hits[:300])),
        "diagnose_hit_without": _ms(_timed(lambda x: diagnose_text(x, index), hits[:300])),
        "diagnose_miss_with_atlas": _ms(_timed(lambda x: diagnose_text(x, index, atlas=atlas), misses)),
        "diagnose_miss_without": _ms(_timed(lambda x: diagnose_text(x, index), misses)),
    }
    if false:
        row["miss_examples"] = false[:5]
    print(json.dumps(row, indent=2))
    if args.json:
        args.json.write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()
