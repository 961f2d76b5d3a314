"""The second read (core/triage/presence.py, adapters/triage_runner.py): when the one-pass prefilter left the answer
`undecided` with no candidate, the ranks of every line's prefix are read once more. On the real 8-rank `--tee`
console where rank 7 finished its epoch and exited 0, that shows rank 7; torchrun's report names rank 6."""

from __future__ import annotations

from triage_support import TESTS, file_chunks, run_cli, triage_paths

from rootcause.core.triage.engine import Triage, wants_second_read
from rootcause.core.triage.presence import HEAD, PresenceScan

CONSOLE = TESTS / "fixtures" / "triage-real" / "early-exit" / "manual-8-tee" / "console.log"


def test_the_first_read_alone_cannot_tell() -> None:
    t = Triage()
    t.add(str(CONSOLE), file_chunks(CONSOLE))
    report = t.report()
    assert wants_second_read(report)
    assert (report.conclusion.kind, report.conclusion.candidates) == ("undecided", [])
    assert 7 not in report.ranks


def test_the_second_read_names_the_rank_that_left_early() -> None:
    c = triage_paths(CONSOLE, chunk=997).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == ("straggler", [7], "left-early")
    assert 6 not in c.guilty_ranks and c.detected_by and 7 not in c.detected_by


def test_the_cli_reads_twice_and_concludes() -> None:
    out = run_cli("triage", "--no-kb", "-f", "json", str(CONSOLE))
    assert out.returncode == 0, out.stdout[-400:] + out.stderr
    assert '"guilty_ranks": [\n      7\n    ]' in out.stdout


def _scan(data: bytes, size: int) -> dict[tuple[str, int], tuple[int, int]]:
    scan = PresenceScan()
    for i in range(0, len(data), size):
        scan.feed(data[i : i + size])
    return scan.finish().ranks()


def test_presence_is_the_same_whatever_the_chunks() -> None:
    data = CONSOLE.read_bytes()
    whole = _scan(data, len(data))
    assert whole[("local", 7)] == (7, 9)  # "[default7]:rank 7: epoch done after 2 batches" is line 9
    assert whole[("rank", 6)][0] == 18 and ("slurm", 7) not in whole
    for size in (1, 7, 64, 4096):
        assert _scan(data, size) == whole


def test_a_long_line_costs_its_head_only_and_keeps_the_count() -> None:
    data = b"[default1]:" + b"x" * (50 * HEAD) + b"\n[rank2]: y\nno prefix\n[default3]:z"
    for size in (5, 100, len(data)):
        scan = PresenceScan()
        for i in range(0, len(data), size):
            scan.feed(data[i : i + size])
            assert len(scan._pending) < HEAD  # what is carried between chunks stays bounded
        got = scan.finish()
        assert got.ranks() == {("local", 1): (1, 1), ("rank", 2): (2, 2), ("local", 3): (4, 4)}
        assert got.lines == 4


def test_srun_labels_count_only_when_nearly_every_line_has_one() -> None:
    labelled = b"".join(b"%d: step %d\n" % (i % 4, i) for i in range(40))
    assert set(_scan(labelled, 13)) == {("slurm", r) for r in range(4)}
    mixed = b"3: not a label\n" + b"plain line\n" * 9
    assert _scan(mixed, 13) == {}
