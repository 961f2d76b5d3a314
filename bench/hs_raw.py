"""The floor for the CLI: a bare hyperscan scan of a log with the canon's patterns in one database.

    python bench/hs_raw.py compile DB [--exact]   # once
    python bench/hs_raw.py scan DB LOG            # timed: load the database, scan in 1 MiB chunks, count matches

Two databases: ``--exact`` holds the canon's patterns themselves (named groups made plain; the few that
hyperscan cannot compile exactly are left out and counted), the default holds the prefilter forms that
rootcause's own database starts with (`patterns.prefilter_source` of `heads.scan_tail`: a multi-line pattern by its
last lines; same flags) without its extra ids
(error-looking lines, versions, triage keywords): the floor. The scan counts matches in a Python callback and
reads the file as rootcause does (1 MiB chunks, lines whole).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import hyperscan

CHUNK = 1 << 20


def _compiles(source: bytes, flags: int) -> bool:
    try:
        hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK).compile(expressions=[source], ids=[0], flags=[flags])
    except hyperscan.error:
        return False
    return True


def compile_db(out: Path, exact: bool) -> None:
    from rootcause.adapters.loading import load_index
    from rootcause.core.matching.heads import scan_tail
    from rootcause.core.matching.patterns import prefilter_source

    index = load_index()
    scanned = index.patterns[: index.n_scanned]  # the derived cut heads after them are tried on pastes only
    if exact:
        flags = hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_ALLOWEMPTY
        every = [re.sub(r"\(\?P<[A-Za-z_]\w*>", "(", p.regex).encode() for p in scanned]
        sources = [s for s in every if _compiles(s, flags)]
        print(f"{len(every) - len(sources)} of {len(every)} patterns left out (hyperscan cannot match them exactly)")
    else:
        flags = hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_ALLOWEMPTY
        sources = [prefilter_source(scan_tail(p.regex)).encode() for p in scanned]
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=sources, ids=list(range(len(sources))), elements=len(sources), flags=[flags] * len(sources))
    out.write_bytes(hyperscan.dumpb(db))
    print(f"{len(sources)} patterns")


def scan(db_path: Path, log: Path) -> None:
    db = hyperscan.loadb(db_path.read_bytes(), hyperscan.HS_MODE_BLOCK)
    scratch = hyperscan.Scratch(db)
    count = 0

    def on_match(_id: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
        nonlocal count
        count += 1

    carry = b""
    with log.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            buf = carry + chunk
            cut = buf.rfind(b"\n") + 1
            carry = buf[cut:]
            db.scan(buf[:cut], match_event_handler=on_match, scratch=scratch)
    if carry:
        db.scan(carry, match_event_handler=on_match, scratch=scratch)
    print(count)


if __name__ == "__main__":
    if sys.argv[1] == "compile":
        compile_db(Path(sys.argv[2]), exact="--exact" in sys.argv)
    else:
        scan(Path(sys.argv[2]), Path(sys.argv[3]))
