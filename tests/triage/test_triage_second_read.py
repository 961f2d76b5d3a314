"""The second read (core/triage/presence.py, adapters/triage_runner.py): when the one-pass prefilter left the answer
`undecided` with no candidate, the ranks of every line's prefix are read once more. On the real 8-rank `--tee`
console where rank 7 finished its epoch and exited 0, that shows rank 7; torchrun's report names rank 6."""

from __future__ import annotations

import pytest
from triage_support import TESTS, file_chunks, run_cli, triage_paths

from rootcause.core.triage.departures import left_early, quiet_departures, ring_neighbour
from rootcause.core.triage.engine import SourceFeed, Triage, wants_second_read
from rootcause.core.triage.presence import HEAD, MAX_PREFIXES, Presence, PresenceScan
from rootcause.core.triage.resolve import Resolved, resolve
from rootcause.core.triage.state import Accumulator

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


def _resolved(presence: bool) -> Resolved:
    acc = Accumulator()
    feed = SourceFeed(acc, acc.open_source(str(CONSOLE), None), presence)
    for chunk in file_chunks(CONSOLE, 4093):
        feed.feed(chunk)
    feed.close()
    return resolve(acc)


def test_the_candidate_rules_see_rank_7_only_after_the_second_read() -> None:
    """Where left-early's conditions would not all hold, the same evidence still ranks rank 7 first: it is a quiet
    departure (no error, no exit, last line 9 before the others' failures) and the one rank that neighbours, in an
    8-rank ring, ranks 0 and 6, which lost their connection to one and the same peer."""
    first = _resolved(presence=False)
    assert quiet_departures(first) == [] and ring_neighbour(first) is None and 7 not in first.ranks
    second = _resolved(presence=True)
    quiet = quiet_departures(second)
    assert [r for r, _ in quiet] == [7]
    assert quiet[0][1][0].line == 9 and "epoch done" in quiet[0][1][0].text
    ring = ring_neighbour(second)
    assert ring is not None and ring[0] == 7
    assert second.world_size == 8 and not second.missing


def test_a_rank_still_logging_after_the_failures_is_no_departure() -> None:
    """The same console with one more line of rank 7 after the others' failures: it did not leave first."""
    text = CONSOLE.read_bytes().replace(
        b"W1205 13:11:07.675000", b"[default7]:rank 7: still here\nW1205 13:11:07.675000", 1
    )
    acc = Accumulator()
    feed = SourceFeed(acc, acc.open_source("console.log", None), True)
    feed.feed(text)
    feed.close()
    res = resolve(acc)
    assert 7 in res.ranks and quiet_departures(res) == [] and left_early(res) is None


def test_a_decided_capture_is_read_once() -> None:
    """The common case pays nothing: a conclusion with a verdict (or with candidates) asks for no second read."""
    decided = CONSOLE.parent.parent.parent / "init-store" / "manual-4" / "console.log"
    t = Triage()
    t.add(str(decided), file_chunks(decided))
    assert not wants_second_read(t.report())


@pytest.mark.parametrize(
    ("run", "kind", "guilty", "rule"),
    [
        ("early-exit/manual-4", "straggler", [3], "left-early"),
        ("self-exit/manual-4", "crash-first", [2], "exit-without-error"),
        ("self-exit/ddp-8", "crash-first", [6], "exit-without-error"),
    ],
)
def test_other_tee_consoles_alone_now_decide(run: str, kind: str, guilty: list[int], rule: str) -> None:
    """torchrun's --tee console by itself: the first read leaves these undecided with no candidate (the guilty
    rank printed no keyword line); the second read shows it, and the rule the per-rank logs use names it."""
    console = CONSOLE.parent.parent.parent / run / "console.log"
    t = Triage()
    t.add(str(console), file_chunks(console))
    assert wants_second_read(t.report())
    c = triage_paths(console).conclusion
    assert (c.kind, c.guilty_ranks, c.named_ranks[0].rule) == (kind, guilty, rule)


def test_the_prefixes_kept_are_capped() -> None:
    data = b"".join(b"[rank%d]: x\n" % r for r in range(MAX_PREFIXES + 500))
    got = _scan_presence(data, 1 << 16)
    assert got.capped and len(got.seen) == MAX_PREFIXES and len(got.heads) <= MAX_PREFIXES
    assert got.lines == MAX_PREFIXES + 500


def _scan_presence(data: bytes, size: int) -> Presence:
    scan = PresenceScan()
    for i in range(0, len(data), size):
        scan.feed(data[i : i + size])
    return scan.finish()
