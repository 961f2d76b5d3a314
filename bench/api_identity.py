"""Every diagnosis of the Python API, as JSON, one line per message: a change meant to be faster only is checked
by running this on the tree before and after it and comparing the two files byte for byte.

    python bench/api_identity.py OUT.jsonl     # then: cmp BEFORE.jsonl AFTER.jsonl

Messages: the canon's examples, then the pastes of the corpus's dev split (cases and negatives whose recorded
split and URL's split are both ``dev``; the test split is never read past its split field). Each message is
diagnosed twice in a row, so that a held index, a cache or a reused object that changes a second answer shows.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

import rootcause
from rootcause.adapters.loading import load_entries

ROOT = Path(rootcause.__file__).resolve().parents[2]  # the checkout whose code runs


def dev_pastes() -> list[str]:
    sys.path.insert(0, str(ROOT / "corpus"))
    from split import split_of  # corpus/split.py

    pastes: list[str] = []
    for path in sorted([*ROOT.glob("corpus/cases/*.yaml"), *ROOT.glob("corpus/negatives/*.yaml")]):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            url = str(case.get("url") or "")
            if case.get("split") == "dev" and url and split_of(url) == "dev":
                pastes.append(str(case["paste"]))
    return pastes


def main() -> None:
    out = Path(sys.argv[1])
    messages = [ex.text for e in load_entries() for ex in e.examples] + dev_pastes()
    with out.open("w", encoding="utf-8") as fh:
        for text in messages:
            first = rootcause.diagnose(text).model_dump_json()
            second = rootcause.diagnose(text).model_dump_json()
            fh.write(first + "\n")
            if second != first:
                fh.write("SECOND CALL DIFFERS: " + second + "\n")
    print(f"{len(messages)} messages -> {out}")


if __name__ == "__main__":
    main()
