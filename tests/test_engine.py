"""The diagnosis engine: generalisation over framing and noise, ranking, grouping, abstention."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from engine_helpers import index_of, make_entry
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import SEED_ID, SEED_SIGNATURE, run_cli

import rootcause
from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources, diagnose_text
from rootcause.core.matching.scan import iter_text_chunks
from rootcause.core.normalize import parameterise, strip_framing


@pytest.fixture(scope="module")
def canon_index():
    return load_index()


FRAMINGS = [
    "",
    "[rank3]:",
    "[rank3]: ",
    "[default3]:",
    "[rank12]:[E1206 18:44:16.994932383 ProcessGroupNCCL.cpp:1709] ",
    "E1202 13:13:37.486000 11617 torch/distributed/elastic/multiprocessing/api.py:1002] ",
    "[E ProcessGroupNCCL.cpp:737] ",
    "2024-03-01 12:00:01,123 ",
    "2024-03-01T12:00:01.123456Z | ",
    "[2024-03-01 12:00:01] ",
    "12: ",
    "\x1b[31m",
    "ERROR:root:",
    "2024-03-01 12:00:01,123 - root - ERROR - ",
    "2024-03-01 12:00:01,123 - ERROR - ",
    "(VllmWorker TP1 pid=437) ERROR 01-08 17:16:15 [core.py:844] ",
    "(APIServer pid=1) (EngineCore_DP0 pid=181) ",
    "(VllmWorker rank=1 pid=12231) ERROR 03-25 21:13:53 multiproc_executor.py:374] ",
]


@pytest.mark.parametrize("prefix", FRAMINGS)
def test_seed_error_is_found_under_any_framing(canon_index, prefix: str) -> None:
    text = f"step 10 loss 0.3\n{prefix}{SEED_SIGNATURE}\x1b[0m\r\nstep 11\n"
    d = diagnose_text(text, canon_index)
    assert d.findings and d.findings[0].id == SEED_ID
    assert d.findings[0].lines[0].line == 2
    assert d.findings[0].params["rank"] == "2"


@given(
    rank=st.integers(0, 4095),
    local=st.integers(0, 7),
    msg=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(
        lambda s: (
            s.strip() == s
            and not s[:1].isdigit()
            and not s.startswith(("[", "E", "I", "W", "F"))
            # what users add around a paste is framing too (quotes, fences, bullets, prompts, Ray's "(pid=…)")
            and not s.startswith((">", "`", "*", "_", "-", "+", "$", "#", "(", "~", ".", "D", "C"))
            and not s.endswith("`")
            and s.count("\\n") < 2
        )
    ),
)
@settings(max_examples=200, deadline=None)
def test_strip_framing_keeps_the_message_and_the_rank(rank: int, local: int, msg: str) -> None:
    line = f"[rank{rank}]:[default{local}]:[E1206 18:44:16.994932383 ProcessGroupNCCL.cpp:1709] {msg}\r\n"
    clean = strip_framing(line)
    assert clean.text == msg
    assert clean.rank == rank and clean.local_rank == local


def test_parameterise_known_cases() -> None:
    assert parameterise("rank 3 at 0xdeadBEEF in /usr/lib/x.so, v2.18.1") == "rank <num> at <hex> in <path> , <num>"
    assert "utf" in parameterise("codec utf-8 failed")  # Sentry's utf-8 → utf<int> trap: the word survives


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0x/19aZ_.-~:\\ \u0663\u00e9")), max_size=40))
def test_parameterise_skips_only_substitutions_that_cannot_match(text: str) -> None:
    """Each substitution is skipped only when the text lacks what its pattern needs: the result is the same as
    running them all."""
    from rootcause.core.normalize import _PARAMS

    full = text
    for rx, repl in _PARAMS:
        full = rx.sub(repl, full)
    assert parameterise(text) == " ".join(full.split())


def test_wrapped_terminal_lines_are_rejoined(canon_index) -> None:
    wrapped = "\n".join(SEED_SIGNATURE[i : i + 80] for i in range(0, len(SEED_SIGNATURE), 80))
    d = diagnose_text(f"noise\n{wrapped}\nmore noise\n", canon_index)
    assert [f.id for f in d.findings][:1] == [SEED_ID]


def test_many_ranks_are_grouped_with_their_count(canon_index) -> None:
    text = "".join(f"[rank{r}]: {SEED_SIGNATURE}\n" for r in range(8))
    d = diagnose_text(text, canon_index)
    seed = next(f for f in d.findings if f.id == SEED_ID)
    assert seed.count == 8 and seed.ranks == list(range(8))
    assert len([f for f in d.findings if f.id == SEED_ID]) == 1


ROLES = index_of(
    make_entry(
        "t/crash", r"CUDA error: an illegal memory access", "RuntimeError: CUDA error: an illegal memory access"
    ),
    make_entry(
        "t/timeout",
        r"Watchdog caught collective operation timeout",
        "Watchdog caught collective operation timeout",
        role="symptom",
    ),
    make_entry(
        "t/childfailed",
        r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        role="wrapper",
    ),
    make_entry("t/generic", r"^(?P<exc>[A-Z]\w*Error): (?P<message>.+)", "ValueError: x", generic=True),
)


def test_cause_first_then_symptoms_then_a_generic_cause_and_the_wrapper_last() -> None:
    """A wrapper (ChildFailedError) only says that something failed inside it: even a generic cause says more."""
    log = "\n".join(
        [
            "[rank1]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE)",
            "[rank0]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE)",
            "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered",
            "ValueError: something else",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        ]
    )
    d = diagnose_text(log, ROLES)
    assert [f.id for f in d.findings] == ["t/crash", "t/timeout", "t/generic", "t/childfailed"]
    assert d.findings[2].generic and d.findings[2].score < d.findings[0].score
    assert d.findings[1].ranks == [0, 1]


def test_earliest_cause_first_across_a_chained_traceback() -> None:
    index = index_of(
        make_entry("t/first", r"KeyError: 'weight'", "KeyError: 'weight'"),
        make_entry("t/second", r"RuntimeError: Error\(s\) in loading", "RuntimeError: Error(s) in loading"),
    )
    log = "KeyError: 'weight'\n\nDuring handling of the above exception, another exception occurred:\n\nRuntimeError: Error(s) in loading state_dict\n"
    assert [f.id for f in diagnose_text(log, index).findings] == ["t/first", "t/second"]


def test_multi_line_window_pattern() -> None:
    index = index_of(
        make_entry(
            "t/window",
            r"Traceback \(most recent call last\):\n(?:.*\n){0,3}.*ZeroDivisionError",
            "ZeroDivisionError",
            window=5,
        )
    )
    log = 'Traceback (most recent call last):\n  File "x.py", line 1\n    1/0\nZeroDivisionError: division by zero\n'
    d = diagnose_text(log, index)
    assert d.findings and d.findings[0].lines[0].line == 4
    far = "Traceback (most recent call last):\n" + "  frame\n" * 10 + "ZeroDivisionError: x\n"
    assert all(f.matched_by != "pattern" for f in diagnose_text(far, index).findings), "windows are bounded"


UNRELATED = [
    "TypeError: Cannot read properties of undefined (reading 'map')\n    at App (webpack:///./src/App.js:12:20)",
    'Exception in thread "main" java.lang.NullPointerException\n\tat com.example.Main.main(Main.java:5)',
    'ERROR:  duplicate key value violates unique constraint "users_pkey"\nDETAIL:  Key (id)=(1) already exists.',
    "Warning  BackOff  3m (x12 over 5m)  kubelet  Back-off restarting failed container app in pod web-7d9f",
    "Error: ENOENT: no such file or directory, open '/app/package.json'",
    "ORA-00942: table or view does not exist",
    "Usage: rootcause [OPTIONS] COMMAND [ARGS]...\n  --help  Show this message and exit.",
    "--help",
    "",
]


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_texts_yield_no_finding(canon_index, text: str) -> None:
    d = diagnose_text(text, canon_index)
    assert d.findings == [], [f.id for f in d.findings]
    assert not d.matched and d.abstain_reason


def test_cli_exit_codes_follow_grep() -> None:
    assert run_cli("diagnose", stdin=SEED_SIGNATURE).returncode == 0
    nothing = run_cli("diagnose", "-f", "json", stdin="all good here\n")
    assert nothing.returncode == 1
    assert json.loads(nothing.stdout)["findings"] == []
    assert run_cli("diagnose", "--env", "torch").returncode == 2
    assert run_cli("diagnose", "/no/such/file.log").returncode == 2


def test_json_output_schema(tmp_path: Path) -> None:
    result = run_cli("diagnose", "-f", "json", "--env", "torch==2.1.0", stdin=f"x\n{SEED_SIGNATURE}\n")
    data = json.loads(result.stdout)
    assert {"schema_version", "matched", "findings", "nearest", "environment", "inputs"} <= set(data)
    first = data["findings"][0]
    assert {"id", "score", "lines", "params", "confidence", "versions", "workarounds", "dead_ends"} <= set(first)
    assert first["lines"][0] == {"source": "<stdin>", "line": 2, "text": SEED_SIGNATURE, "rank": None}
    assert first["versions"]["status"] == "affected"


def test_markdown_output_names_the_entry() -> None:
    result = run_cli("diagnose", "-f", "md", stdin=SEED_SIGNATURE)
    assert result.returncode == 0
    assert f"`{SEED_ID}`" in result.stdout and "Workarounds:" in result.stdout


def test_gzip_and_several_files(tmp_path: Path) -> None:
    gz = tmp_path / "rank0.log.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write("noise\n" * 1000 + SEED_SIGNATURE + "\n")
    plain = tmp_path / "rank1.log"
    plain.write_text(SEED_SIGNATURE + "\n", encoding="utf-8")
    d = rootcause.diagnose(paths=[str(gz), str(plain)])
    seed = d.findings[0]
    assert seed.id == SEED_ID and seed.count == 2 and seed.ranks == [0, 1]
    assert seed.lines[0].line == 1001


def test_versions_stated_in_the_log_and_overridden_by_env(canon_index) -> None:
    log = f"PyTorch version: 1.9.0+cu111\n{SEED_SIGNATURE}\n"
    d = diagnose_text(log, canon_index)
    assert d.environment["torch"] == "1.9.0"
    assert d.findings[0].versions.status == "not_affected"
    d2 = diagnose_text(log, canon_index, env={"torch": "2.3.0"})
    assert d2.findings[0].versions.status == "affected"


def test_hostile_input_is_bounded(canon_index) -> None:
    huge_line = "x" * (8 << 20) + SEED_SIGNATURE
    d = diagnose_sources([SourceInput("huge", iter_text_chunks(huge_line))], canon_index)
    assert d.inputs[0].bytes == len(huge_line)
    binary = b"\x00\xff\xfe" * 10000 + SEED_SIGNATURE.encode() + b"\n"
    d2 = diagnose_sources([SourceInput("bin", iter([binary]))], canon_index)
    assert d2.findings and d2.findings[0].id == SEED_ID


def test_no_newline_at_end_and_tiny_chunks(canon_index) -> None:
    data = ("noise\n" * 50 + SEED_SIGNATURE).encode()
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    d = diagnose_sources([SourceInput("s", iter(chunks))], canon_index)
    assert d.findings[0].lines[0].line == 51


def test_window_across_chunk_boundary_and_without_final_newline() -> None:
    index = index_of(
        make_entry("t/window", r"Couldn't cast array of type\n\S.*\nto(?:\n|$)", "Couldn't cast", window=4),
        make_entry("t/generic", r"^(?P<exc>[A-Z]\w*Error): (?P<message>.+)", "TypeError: x", generic=True),
    )
    text = "noise\n" * 10 + "TypeError: Couldn't cast array of type\nstring\nto"
    data = text.encode()
    for cut in (len(data) - 3, len(data) - 10, len(data) - 40, 33):
        d = diagnose_sources([SourceInput("s", iter([data[:cut], data[cut:]]))], index)
        assert d.findings and d.findings[0].id == "t/window", (cut, [f.id for f in d.findings])
        assert d.findings[0].lines[0].line == 13


def test_newline_inside_a_character_class_of_a_window_pattern() -> None:
    index = index_of(
        make_entry("t/frame", r"File \"[^\"\n]+\", line \d+.*\n(?:.*\n){0,2}(?P<exc>\w+Error): ", "X", window=4)
    )
    log = '[rank0]: Traceback (most recent call last):\n[rank0]:   File "a.py", line 3, in <module>\n[rank0]:     f()\n[rank0]: KeyError: 1\n'
    d = diagnose_text(log, index)
    assert [f.id for f in d.findings] == ["t/frame"] and d.findings[0].params["exc"] == "KeyError"


def test_error_looking_lines_keep_exact_line_numbers(canon_index) -> None:
    from rootcause.core.matching.scan import SourceScanner

    lines = [f"step {i} ok" if i % 7 else f"WARNING: metrics push {i} timed out" for i in range(1, 20001)]
    data = ("\n".join(lines) + "\n").encode()
    scanner = SourceScanner(canon_index)
    for i in range(0, len(data), 65536):
        scanner.feed(data[i : i + 65536])
    kept = scanner.finish().errorish
    assert len(kept) == 200 and kept[0][0] == 7 and kept[-1][0] == 19999
    assert all(lines[n - 1] == raw for n, raw, _, _ in kept)


def test_window_fed_one_byte_at_a_time() -> None:
    index = index_of(
        make_entry("t/window", r"Couldn't cast array of type\n\S.*\nto(?:\n|$)", "Couldn't cast", window=4),
    )
    data = ("noise\n" * 5 + "TypeError: Couldn't cast array of type\nstring\nto\nmore\n").encode()
    d = diagnose_sources([SourceInput("s", iter([data[i : i + 1] for i in range(len(data))]))], index)
    assert [f.id for f in d.findings] == ["t/window"] and d.findings[0].lines[0].line == 8
