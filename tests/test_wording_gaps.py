"""scripts/wording_gaps.py finds the rewordings an entry's patterns miss, on a small hand-made atlas."""

from __future__ import annotations

from types import SimpleNamespace

from testkit import load_script

wg = load_script("scripts/wording_gaps.py", "wording_gaps")


def test_literal_runs_cut_at_placeholders_and_keep_escapes() -> None:
    assert wg.literal_runs("Expected {n} but got %d (100%% sure) {{x}}") == [
        "Expected ",
        " but got ",
        " (100% sure) {x}",
    ]
    assert wg.literal_runs("%(name)s failed: %zu bytes") == [" failed: ", " bytes"]


def test_fillings_give_numbers_words_and_types() -> None:
    assert wg.fillings("got %d of %s") == ["got 2 of 2", "got foo of foo", "got 2 of foo"]
    assert wg.shown("bad {x}", "ValueError")[-1] == "ValueError: bad foo"
    assert all(not t.startswith("WARNING") for t in wg.shown("bad {x}", "warning"))


def test_regex_literals_read_the_fixed_text() -> None:
    runs = wg.regex_literals(r"Cannot re-initialize CUDA in forked subprocess\. (?P<rest>.*)")
    assert "Cannot re-initialize CUDA in forked subprocess. " in runs
    assert wg.regex_literals(r"out of memory\s+tried[s]? to") == ["out of memory", "tried", " to"]


def _row(key: str, message: str, module: str = "m.py", function: str = "f", first: str = "1.0", last: str = "2.0"):
    return wg.Row(key, "torch", module, function, 1, "RuntimeError", "raise", message, ((first, last),), "")


def _entry(eid: str, regex: str, atlas: list[str], examples: tuple[str, ...] = ()):
    generation = SimpleNamespace(atlas=atlas, versions="torch", package="torch")
    shown = [SimpleNamespace(text=t) for t in examples]
    entry = SimpleNamespace(id=eid, patterns=[SimpleNamespace(regex=regex)], generations=[generation], examples=shown)
    return SimpleNamespace(entry=entry, path=f"{eid}.yaml")


def test_a_rewording_the_pattern_misses_is_a_gap_and_one_it_accepts_is_not() -> None:
    rows = [
        _row("torch:a", "Cannot re-initialize CUDA in forked subprocess. Use spawn", first="1.8", last="2.0"),
        _row("torch:b", "Cannot reinit CUDA in a forked child process. Use spawn", first="1.0", last="1.7"),
        _row("torch:c", "Cannot re-initialize CUDA in forked subprocess: {err}", first="1.0", last="1.7"),
        _row("torch:d", "Unrelated message raised in the same function", first="1.0", last="1.7"),
        _row("torch:e", "Cannot re-initialize CUDA in forked subprocess (elsewhere)", module="n.py", function="g"),
    ]
    canon = [_entry("cuda/fork", r"Cannot re-initialize CUDA in forked subprocess", ["torch:a"])]
    gaps = wg.find_gaps(canon, rows, {"torch": "2.0"})
    assert [(g.key, g.relation) for g in gaps] == [("torch:b", "same-function")]
    assert gaps[0].intervals == [("1.0", "1.7")] and not gaps[0].current


def test_a_gap_names_the_other_entry_that_accepts_it() -> None:
    rows = [
        _row("torch:a", "CUDA error: out of memory while allocating the workspace"),
        _row("torch:b", "CUDA error: out of memory while allocating the workspace buffer for cuBLAS", "x.py", "g"),
    ]
    canon = [
        _entry("cuda/oom", r"out of memory while allocating the workspace$", ["torch:a"]),
        _entry("cuda/cublas", r"workspace buffer for cuBLAS", []),
    ]
    gaps = wg.find_gaps(canon, rows, {"torch": "2.0"})
    # cuda/cublas links nothing: its longest pattern literal finds torch:b, which relates torch:a in turn
    assert sorted((g.entry, g.key, g.relation, tuple(g.matched_by)) for g in gaps) == [
        ("cuda/cublas", "torch:a", "shared-run", ("cuda/oom",)),
        ("cuda/oom", "torch:b", "shared-run", ("cuda/cublas",)),
    ]


def test_a_value_the_examples_print_fills_a_placeholder_the_pattern_pins() -> None:
    rows = [
        _row("torch:a", "Got completion with error %d, opcode %d", first="1.0", last="1.7"),
        _row("torch:b", "Got completion from peer %s with error %d, opcode %d", first="1.8", last="2.0"),
    ]
    regex = r"Got completion (?:from peer \S+ )?with error (?P<code>12)\b"
    pinned = _entry("nccl/retry", regex, ["torch:a"], ("NCCL WARN Got completion with error 12, opcode 0",))
    assert wg.find_gaps([pinned], rows, {"torch": "2.0"}) == []
    bare = _entry("nccl/retry", regex, ["torch:a"])  # no example: 12 is never tried, both read as gaps
    assert [g.key for g in wg.find_gaps([bare], rows, {"torch": "2.0"})] == ["torch:a", "torch:b"]
