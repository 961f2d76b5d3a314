"""Line numbers and line counts from the one forward count of newlines, across long spans and chunk edges."""

from __future__ import annotations

import random

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching.scan import count_newlines

ERROR = "RuntimeError: NCCL communicator was aborted on rank 1."


def test_count_newlines_on_long_and_short_spans() -> None:
    rng = random.Random(5)
    data = bytes(rng.choice(b"ab\n\n\xff") for _ in range(1 << 19))
    for start, end in [(0, len(data)), (7, (1 << 18) + 9), (100, 200), (5, 5), (len(data) - 1, len(data))]:
        assert count_newlines(data, start, end) == data.count(b"\n", start, end)


def test_a_hit_deep_in_a_large_input_has_its_line_number() -> None:
    noise = "".join(f"step {n} loss 0.{n % 97:02d}\n" for n in range(120_000))  # about 2.5 MiB
    text = noise + ERROR + "\n" + noise[: len(noise) // 3]
    chunks = [text.encode()[i : i + 300_001] for i in range(0, len(text), 300_001)]
    d = diagnose_sources([SourceInput("big", chunks)], load_index())
    assert d.findings[0].lines[0].line == 120_001
    assert d.inputs[0].lines == len(text.splitlines())  # the unterminated last line counts too


def test_a_line_where_only_one_line_patterns_end_cleans_no_window(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A halted line on which no multi-line pattern's scanned form ends is matched alone: the lines before it are not
    cleaned for the widest window (that cost 50 framing strips per halted line on a long log). A multi-line error
    ending on a halted line is still found whole."""
    import rootcause.core.matching.scan as scan

    index = load_index()
    if index.hs_db is None:  # the narrow path is hyperscan's; RE2's fallback scans each window size
        return
    import rootcause.core.matching.scan_confirm as scan_confirm

    calls = []
    real = scan.strip_framing
    for module in (scan, scan_confirm):  # the line's own cleaning, and the windows'
        monkeypatch.setattr(module, "strip_framing", lambda text: calls.append(1) or real(text))
    noise = "".join(f"step {n} loss 0.{n % 97:02d}\n" for n in range(60))
    warning = (
        "UserWarning: This DataLoader will create 64 worker processes in total. Our suggested max number of worker"
    )
    text = (noise + warning + "\n") * 40
    d = diagnose_sources([SourceInput("log", [text.encode()])], index)
    assert d.findings[0].id == "pytorch/dataloader-too-many-workers-warning" and d.findings[0].count == 40
    assert len(calls) <= 3 * 40, len(calls)  # the halted lines themselves, not 50 lines before each
    window = 'so_path = next(so_dir.glob(f"*.{extension}"))\n          ^^^^^^^^^^^^^^^^^^^^^^^^^^\nStopIteration\n'
    d = diagnose_sources([SourceInput("log", [(noise + window).encode()])], index)
    assert [f.id for f in d.findings][:1] == ["packaging/transformer-engine-extension-not-found"]


def test_a_repeated_line_is_read_once_and_each_repeat_is_a_hit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A line read alone is cleaned and confirmed once per distinct text; its repeats (a warning printed each step)
    still count as hits, each with its own line number."""
    import rootcause.core.matching.scan as scan
    from rootcause.core.matching.scan import SourceScanner

    index = load_index()
    if index.hs_db is None:
        return
    import rootcause.core.matching.scan_confirm as scan_confirm

    calls = []
    real = scan.strip_framing
    for module in (scan, scan_confirm):
        monkeypatch.setattr(module, "strip_framing", lambda text: calls.append(text) or real(text))
    warning = (
        "UserWarning: This DataLoader will create 64 worker processes in total. Our suggested max number of worker"
    )
    noise = "".join(f"step {n} loss 0.{n % 97:02d}\n" for n in range(30))
    scanner = SourceScanner(index)
    for _ in range(200):
        scanner.feed((noise + warning + "\n").encode())
    result = scanner.finish()
    assert [h.line for h in result.hits] == [31 * (k + 1) for k in range(200)]
    assert sum(1 for text in calls if "DataLoader will create" in text) == 1


def test_a_window_reads_the_lines_read_alone_before_it_in_order() -> None:
    """Lines read alone stay in the raw lines a later multi-line window reads: the window holds them in input order."""
    from rootcause.core.matching.scan import SourceScanner

    index = load_index()
    warning = (
        "UserWarning: This DataLoader will create 64 worker processes in total. Our suggested max number of worker"
    )
    text = (
        "step 1 loss 0.5\n" + warning + "\nTraceback (most recent call last):\n"
        '  File "/w/train.py", line 9, in <module>\n    main()\n' + warning + "\nValueError: the rest of it\n"
    )
    scanner = SourceScanner(index)
    scanner.feed(text.encode())
    result = scanner.finish()
    windows = [h.context for h in result.hits if h.line == 7 and h.context]
    assert windows, [(h.line, index.patterns[h.pattern].entry_id) for h in result.hits]
    assert windows[0].splitlines()[-3:] == ["    main()", warning, "ValueError: the rest of it"]
    assert [h.line for h in result.hits if "DataLoader" in h.clean] == [2, 6]


def test_a_crlf_split_between_two_pieces_is_one_line_end() -> None:
    """A piece that ends between a CR and its LF leaves no CR on the line: the line reads as it does whole."""
    line = "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: AllReduce timed out after 600000 ms"
    data = (line + "\r\n") * 2
    cut = len(line) + 1  # after the first line's CR
    whole = diagnose_sources([SourceInput("log", [data.encode()])], load_index())
    split = diagnose_sources([SourceInput("log", [data.encode()[:cut], data.encode()[cut:]])], load_index())
    assert [line.text for f in split.findings for line in f.lines] == [
        line.text for f in whole.findings for line in f.lines
    ]
    assert all(not line.text.endswith("\r") for f in split.findings for line in f.lines)
    assert split.inputs[0].lines == whole.inputs[0].lines == 2


def test_a_line_matched_at_every_repeat_is_one_line_to_handle(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A long line on which patterns match again and again (hostile input: one message repeated 100,000 times on one
    line) is one item of the scan's list of lines to handle, not one per match: memory stays flat."""
    from rootcause.core.matching.scan import SourceScanner

    index = load_index()
    if index.hs_db is None:
        return
    seen: list[int] = []
    real = SourceScanner._merged_lines

    def spy(data, lo, halts, late):  # type: ignore[no-untyped-def]
        seen.append(len(halts) + len(late))
        return real(data, lo, halts, late)

    monkeypatch.setattr(SourceScanner, "_merged_lines", staticmethod(spy))
    scanner = SourceScanner(index)
    scanner.feed(("RuntimeError: CUDA error: out of memory " * 100_000 + "\nstep 2\n").encode())
    scanner.finish()
    assert seen and max(seen) <= 2, seen
