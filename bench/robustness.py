"""How well the matcher survives what users do to a message: the canon's own examples, each rewritten the way
real pastes are (cut short mid-word or at a drawn point, quoted, wrapped, escaped inside JSON, Windows paths, in
backticks, behind a logger's or a launcher's prefix, indented, in terminal colours, with blanks at line ends, no-break
spaces, a full-width colon or a blank line after each line), and the
share of rewrites whose first claim is still the example's entry (``wrong``: rewrites whose first claim is another
entry).

    python bench/robustness.py            # one row per rewrite
    python bench/robustness.py --show cut # the examples a rewrite loses
    python bench/robustness.py --corpus corpus            # the corpus's DEV pastes instead of the canon's examples
    python bench/robustness.py --corpus corpus --show fence   # the dev pastes a rewrite turns into a wrong claim

This is a synthetic complement to bench/coverage.py (real pastes): it measures general mechanisms on the
canon's examples, or on the corpus's **dev** split (never its test split: those cases are not even loaded), so
nothing here is tuned on test. Figures are not asserted.

With ``--corpus`` each dev paste is rewritten whole (the rewrites that need the one line an entry matched use
the paste's last non-empty line), and a rewrite's answer is ``right`` (a first claim in the case's ``expected``),
``abstain`` (no claim) or ``wrong`` (any other claim: the one outcome that must not happen). ``new wrong`` counts
the wrong answers whose unrewritten paste was not answered wrong.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Callable

Rewrite = Callable[[str, str], str | None]  # (example text, the line its entry matched) -> paste, or None


def _cut(fraction: float) -> Rewrite:
    """The matched line alone, cut mid-word at a fraction of its length past its first 30 characters."""

    def rewrite(_text: str, line: str) -> str | None:
        line = line.strip()
        if len(line) < 45:
            return None
        at = 30 + int((len(line) - 30) * fraction)
        while at < len(line) and not line[at - 1].isalnum():  # end inside a word, as a title cut does
            at += 1
        return line[:at] if at < len(line) - 1 else None

    return rewrite


def _quote(text: str, _line: str) -> str:
    return "\n".join("> " + x for x in text.splitlines())


def _wrap(width: int) -> Rewrite:
    def rewrite(text: str, _line: str) -> str:
        out: list[str] = []
        for x in text.splitlines():
            out.extend([x[i : i + width] for i in range(0, len(x), width)] or [""])
        return "\n".join(out)

    return rewrite


def _json(text: str, _line: str) -> str:
    return json.dumps({"error": text + "\n"})


_POSIX_PATH = re.compile(r"(?<![\w.])/(?:home|usr|opt|root|data|mnt|workspace|tmp)(?:/[\w.\-]+)+")


def _windows(text: str, _line: str) -> str | None:
    if not _POSIX_PATH.search(text):
        return None
    return _POSIX_PATH.sub(lambda m: "C:\\Users\\me" + m.group(0).replace("/", "\\"), text)


def _backticks(_text: str, line: str) -> str:
    return f"`{line.strip()}`"


def _unclosed_backtick(_text: str, line: str) -> str:
    return f"I get `{line.strip()}"


def _bullet_bold(_text: str, line: str) -> str:
    return f"- **{line.strip()}**"


def _title(_text: str, line: str) -> str:
    """An issue title: a few words of the user's own, then the message, cut at GitHub's 200 characters."""
    title = f"[Bug] training crashes: {line.strip()}"
    return title[:200]


def _fence(text: str, _line: str) -> str:
    return f"```\n{text}\n```"


def _fence_lang(text: str, _line: str) -> str:
    return f"**Error:**\n```python\n{text}\n```"


def _prefix(prefix: str) -> Rewrite:
    """Every line behind a launcher's or logger's prefix (torchrun's [rank3]:, a timestamp, a worker's pid)."""

    def rewrite(text: str, _line: str) -> str:
        return "\n".join(prefix + x for x in text.splitlines())

    return rewrite


def _crlf(text: str, _line: str) -> str:
    return text.replace("\n", "\r\n") + "\r\n"


def _trailing_blanks(text: str, _line: str) -> str:
    """Blanks a copy leaves at each line's end (a terminal's padding, an editor)."""
    return "\n".join(x + " \t " for x in text.split("\n"))


def _nbsp(text: str, _line: str) -> str:
    """Spaces copied from a rendered web page: no-break spaces."""
    return text.replace(" ", "\u00a0")


def _fullwidth_colon(text: str, _line: str) -> str:
    """The first ': ' typed again with a Chinese input method."""
    return text.replace(": ", "\uff1a", 1)


def _double_spaced(text: str, _line: str) -> str | None:
    """A blank line after every line (some copies from notebooks and chat clients)."""
    return "\n\n".join(text.split("\n")) if "\n" in text else None


def _after(before: str) -> Rewrite:
    """The paste behind a line the user copied with it (the command's banner, an import): what stands before a
    pattern's line must not change whether it is found (Hyperscan 5.4 missed zsh's crash report after a long line)."""

    def rewrite(text: str, _line: str) -> str:
        return before + "\n" + text

    return rewrite


def _last_line(text: str, _line: str) -> str | None:
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1].strip() if len(lines) > 1 else None


def _indent(text: str, _line: str) -> str:
    return "\n".join("    " + x for x in text.splitlines())


def _ansi(text: str, _line: str) -> str:
    """Colour codes kept by a terminal copy: each line in red, the level word in bold."""
    return "\n".join(f"\x1b[31m{x}\x1b[0m" if x.strip() else x for x in text.splitlines())


def _cut_random(seed: int) -> Rewrite:
    """The paste cut mid-line at a point drawn from its text (the same point on every run)."""

    def rewrite(text: str, _line: str) -> str | None:
        if len(text) < 60:
            return None
        digest = hashlib.sha256(f"{seed}:{text}".encode()).digest()
        at = 20 + int.from_bytes(digest[:4], "big") % (len(text) - 20)
        while at < len(text) and not text[at - 1].isalnum():
            at += 1
        return text[:at] if at < len(text) - 1 else None

    return rewrite


def _cut_whole(fraction: float) -> Rewrite:
    """The paste cut mid-line at a fraction of its length (a paste stopped short, a comment over a size limit)."""

    def rewrite(text: str, _line: str) -> str | None:
        if len(text) < 60:
            return None
        at = int(len(text) * fraction)
        while at < len(text) and not text[at - 1].isalnum():
            at += 1
        return text[:at] if at < len(text) - 1 else None

    return rewrite


REWRITES: dict[str, Rewrite] = {
    "line": lambda _t, line: line.strip(),
    "cut-30": _cut(0.3),
    "cut-60": _cut(0.6),
    "cut-90": _cut(0.9),
    "title": _title,
    "quote": _quote,
    "wrap-80": _wrap(80),
    "wrap-120": _wrap(120),
    "json": _json,
    "windows": _windows,
    "backticks": _backticks,
    "unclosed-backtick": _unclosed_backtick,
    "bullet-bold": _bullet_bold,
    "fence": _fence,
    "fence-lang": _fence_lang,
    "rank-prefix": _prefix("[rank3]: "),
    "timestamp": _prefix("2024-05-07 14:43:59,173 - ERROR - "),
    "pid-prefix": _prefix("(VllmWorker TP1 pid=4242) ERROR 05-07 14:43:59 [worker.py:88] "),
    "vllm-info": _prefix("INFO 05-12 10:11:12 [file.py:12] "),
    "vllm-rank": _prefix("(VllmWorker rank=1 pid=2) "),
    "indent": _indent,
    "ansi": _ansi,
    "crlf": _crlf,
    "trailing-blanks": _trailing_blanks,
    "nbsp": _nbsp,
    "fullwidth-colon": _fullwidth_colon,
    "double-spaced": _double_spaced,
    "last-line": _last_line,
    "after-banner": _after("pip 24.0 from /usr/lib/python3/dist-packages/pip (python 3.10)"),
    "after-import": _after(">>> import numpy"),
    "cut-whole-50": _cut_whole(0.5),
    "cut-whole-75": _cut_whole(0.75),
    "cut-whole-90": _cut_whole(0.9),
    "cut-random-1": _cut_random(1),
    "cut-random-2": _cut_random(2),
    "cut-random-3": _cut_random(3),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=sorted(REWRITES), help="list the examples this rewrite loses")
    parser.add_argument("--corpus", metavar="DIR", help="rewrite the corpus's dev pastes (never test) instead")
    args = parser.parse_args(argv)

    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import SourceInput, diagnose_sources
    from rootcause.core.matching.scan import iter_text_chunks

    index = load_index()

    def first_claim(paste: str) -> str | None:
        d = diagnose_sources([SourceInput("<paste>", iter_text_chunks(paste))], index)
        if not d.matched:
            return None
        for f in d.findings:
            if f.matched_by in ("pattern", "lexical") and not index.entries[f.id].catch_all:
                return f.id
        return None

    if args.corpus:
        return _corpus_main(args.corpus, args.show, first_claim)

    base: list[tuple[str, str, str]] = []  # (entry id, example text, matched line) where the example is first
    for entry in index.entries.values():
        if entry.catch_all:
            continue
        for ex in entry.examples:
            if first_claim(ex.text) != entry.id:
                continue
            lines = [x for x in ex.text.splitlines() if x.strip()]
            own = [x for x in lines if first_claim(x) == entry.id]
            if own:
                base.append((entry.id, ex.text, own[-1]))
    print(f"{len(base)} examples whose own entry is first, and one line of which alone is too")
    print(f"{'rewrite':<18} {'tried':>6} {'kept':>6} {'share':>6} {'wrong':>6}")
    for name, rewrite in REWRITES.items():
        if args.show and name != args.show:
            continue
        tried = kept = wrong = 0
        for entry_id, text, line in base:
            paste = rewrite(text, line)
            if paste is None:
                continue
            tried += 1
            got = first_claim(paste)
            if got == entry_id:
                kept += 1
                continue
            wrong += got is not None
            if args.show:
                print(f"  {entry_id}: got {got}\n    {paste[:300]!r}")
        share = f"{kept / tried:.3f}" if tried else "-"
        print(f"{name:<18} {tried:>6} {kept:>6} {share:>6} {wrong:>6}")
    return 0


def _corpus_main(root: str, show: str | None, first_claim: Callable[[str], str | None]) -> int:
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from coverage import load_corpus

    cases = [c for c in load_corpus(Path(root)) if c.split == "dev"]  # the test split is never rewritten
    print(f"{len(cases)} dev cases ({sum(c.kind == 'positive' for c in cases)} positives)")
    print(f"{'rewrite':<18} {'tried':>6} {'right':>6} {'abstain':>7} {'wrong':>6} {'new wrong':>9}")

    def verdict(case, got: str | None) -> str:  # type: ignore[no-untyped-def]
        if got is None:
            return "abstain"
        return "right" if got in case.expected else "wrong"

    before = {c.id: verdict(c, first_claim(c.paste)) for c in cases}
    for name, rewrite in REWRITES.items():
        if show and name != show:
            continue
        counts = {"right": 0, "abstain": 0, "wrong": 0}
        tried = new_wrong = 0
        for case in cases:
            lines = [x for x in case.paste.splitlines() if x.strip()]
            paste = rewrite(case.paste, lines[-1] if lines else case.paste)
            if paste is None:
                continue
            tried += 1
            got = first_claim(paste)
            v = verdict(case, got)
            counts[v] += 1
            if v == "wrong" and before[case.id] != "wrong":
                new_wrong += 1
                if show:
                    print(f"  {case.id} (expected {list(case.expected)}, was {before[case.id]}): got {got}")
                    print(f"    {paste[:400]!r}")
        print(f"{name:<18} {tried:>6} {counts['right']:>6} {counts['abstain']:>7} {counts['wrong']:>6} {new_wrong:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
