"""Assign each corpus case to `dev` or `test` once, and write the split into the files.

The split is a SHA-256 of the case's thread URL (40% test), so the pastes of one thread share a split.
A split already recorded is never changed: re-running only fills in cases that have none.

    python corpus/split.py [CORPUS_DIR]          # write missing splits
    python corpus/split.py --check [CORPUS_DIR]  # exit 1 if a case has no split or a wrong one
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

TEST_SHARE_PERCENT = 40


def split_of(url: str) -> str:
    digest = hashlib.sha256(url.strip().encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 100 < TEST_SHARE_PERCENT else "dev"


def _files(root: Path) -> list[Path]:
    return sorted([*root.glob("cases/*.yaml"), *root.glob("negatives/*.yaml")])


def _insert_split(text: str, cases: list[dict]) -> str:
    """Add `split:` after each case's `url:` line that lacks one, leaving the rest byte-identical."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    pending = iter(c for c in cases if "split" not in c)
    case = next(pending, None)
    for line in lines:
        out.append(line)
        stripped = line.lstrip(" -")
        if (
            case is not None
            and stripped.startswith("url:")
            and line.startswith(("- ", "  "))
            and stripped[4:].strip().strip("'\"") == str(case["url"]).strip()
        ):
            indent = " " * (len(line) - len(line.lstrip(" -")))
            out.append(f"{indent}split: {split_of(str(case['url']))}\n")
            case = next(pending, None)
    if case is not None:
        raise SystemExit(f"split.py: could not place split for case {case.get('id')}")
    return "".join(out)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = Path(args[0]) if args else Path(__file__).parent
    problems = 0
    for path in _files(root):
        cases = yaml.safe_load(path.read_text()) or []
        for case in cases:
            want = split_of(str(case["url"]))
            if "split" in case and case["split"] != want:
                print(f"{path}: case {case['id']}: split {case['split']} differs from {want}", file=sys.stderr)
                problems += 1
        if check:
            missing = [c["id"] for c in cases if "split" not in c]
            for case_id in missing:
                print(f"{path}: case {case_id}: no split", file=sys.stderr)
            problems += len(missing)
        elif any("split" not in c for c in cases):
            new_text = _insert_split(path.read_text(), cases)
            assert yaml.safe_load(new_text) is not None
            path.write_text(new_text)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
