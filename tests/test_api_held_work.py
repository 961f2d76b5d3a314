"""What a held `rootcause.diagnose` call reuses instead of rebuilding (the API's per-call work, issue 25)."""

from __future__ import annotations

import threading

import pytest
from pydantic import ValidationError

import rootcause
from rootcause.adapters.loading import load_index
from rootcause.core import advice
from rootcause.core.advice import Support, judge
from rootcause.core.assembled import assembled
from rootcause.core.diagnosis import Diagnosis
from rootcause.core.findings import InputSummary
from rootcause.core.matching.index import CompiledIndex, CompiledPattern
from rootcause.core.matching.patterns import compile_re2
from rootcause.core.matching.scan import SourceScanner
from rootcause.core.model import Workaround

PROBE = "NCCL communicator was aborted on rank 3."


def _workaround(**extra: object) -> Workaround:
    return Workaround.model_validate(
        {"action": "Raise the timeout", "how": "Set it higher.", "success_rate": {"value": 0.5, "basis": "estimate"}}
        | extra
    )


def test_a_finished_scan_gives_its_scratch_back_for_the_next() -> None:
    index = load_index()
    if index.hs_scratch is None:
        pytest.skip("no hyperscan on this platform")
    rootcause.diagnose(PROBE)
    pooled = index.take_scratch()
    index.give_back_scratch(pooled)
    scanner = SourceScanner(index)
    assert scanner._scratch is pooled  # reused, not cloned
    assert index.take_scratch() is not pooled  # held by the unfinished scan: another scan gets its own
    scanner.feed(PROBE.encode() + b"\n")
    assert [index.patterns[h.pattern].entry_id for h in scanner.finish().hits] == ["pytorch/nccl-communicator-aborted"]
    assert index.take_scratch() is pooled  # given back


def test_diagnoses_in_threads_answer_as_one_thread_does() -> None:
    expected = rootcause.diagnose(PROBE).model_dump_json()
    answers: list[str] = []
    workers = [
        threading.Thread(target=lambda: answers.extend(rootcause.diagnose(PROBE).model_dump_json() for _ in range(20)))
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert answers == [expected] * 80


def test_evidence_is_compiled_once_and_still_decides_support() -> None:
    advice._evidence.cache_clear()
    workaround = _workaround(evidence=r"timeout \d+")
    assert judge(workaround, ["watchdog timeout 600 s"], {}).support == Support.SEEN
    assert judge(workaround, ["nothing here"], {}).support == Support.UNKNOWN
    assert advice._evidence.cache_info().misses == 1


def test_a_requirement_the_environment_fails_excludes_the_workaround() -> None:
    workaround = _workaround(requires="torch>=2.2")
    judged = judge(workaround, [], {"torch": "2.1.0"})
    assert judged.support == Support.EXCLUDED
    assert judged.why == "needs torch>=2.2; this environment has torch 2.1.0"
    assert judge(workaround, [], {"torch": "2.3.0"}).support == Support.UNKNOWN
    assert judge(workaround, [], {}).support == Support.UNKNOWN


def _wrapper_confirm(regex: str, text: str) -> dict[str, str] | None:
    m = compile_re2(regex).search(text)
    return None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}


def test_confirm_gives_the_wrappers_groups_on_the_canons_examples() -> None:
    index = load_index()
    checked = 0
    for i, pattern in enumerate(index.patterns[: index.n_scanned]):
        if not pattern.names:
            continue
        entry = index.entries[pattern.entry_id]
        for text in (entry.signature, *(ex.text for ex in entry.examples)):
            assert index.confirm(i, text) == _wrapper_confirm(pattern.regex, text), (pattern.entry_id, text)
            checked += 1
    assert checked > 100


def test_confirm_reads_groups_after_multibyte_text_and_leaves_out_groups_not_taken() -> None:
    regex = r"(?P<dev>cuda:\d+)(?: on (?P<host>\w+))? — (?P<what>ünïcode \S+)"
    pattern = CompiledPattern("demo/x", regex, 1, ("dev", "host", "what"), 10)
    index = CompiledIndex([], derived=([pattern], 0))
    text = "«€» cuda:3 — ünïcode déjà"
    assert index.confirm(0, text) == _wrapper_confirm(regex, text) == {"dev": "cuda:3", "what": "ünïcode déjà"}
    assert index.confirm(0, "cuda:3 elsewhere") is None


def test_confirm_takes_the_public_search_where_re2_has_no_core_object(monkeypatch: pytest.MonkeyPatch) -> None:
    from rootcause.core.matching import index as index_module

    regex = r"(?P<dev>cuda:\d+)(?: on (?P<host>\w+))? — (?P<what>ünïcode \S+)"
    index = CompiledIndex([], derived=([CompiledPattern("demo/x", regex, 1, ("dev", "host", "what"), 10)], 0))
    monkeypatch.setattr(index_module, "_UNANCHORED", None)  # a google-re2 release without the private core API
    text = "«€» cuda:3 — ünïcode déjà"
    assert index.confirm(0, text) == {"dev": "cuda:3", "what": "ünïcode déjà"}
    assert index.confirm(0, "cuda:3 elsewhere") is None


def test_assembled_findings_equal_validated_ones() -> None:
    texts = [ex.text for entry in load_index().entries.values() for ex in entry.examples][:300]
    compared = 0
    for text in texts:
        d = rootcause.diagnose(text)
        for model in [*d.findings, *d.inputs, *(line for f in d.findings for line in f.lines)]:
            again = type(model).model_validate(model.model_dump())
            assert again == model
            assert again.model_dump_json() == model.model_dump_json()
            assert again.model_fields_set == model.model_fields_set
            compared += 1
        again = Diagnosis.model_validate(d.model_dump())
        assert again == d and again.model_dump_json() == d.model_dump_json()
        unset = {"schema_version", "triage"} | ({"located"} if d.matched else set())  # as validation leaves them
        assert d.model_fields_set == set(Diagnosis.model_fields) - unset
    assert compared > 300


def test_a_callers_environment_is_still_validated() -> None:
    with pytest.raises(ValidationError):
        rootcause.diagnose(PROBE, env={"torch": 2})  # type: ignore[dict-item]
    assert rootcause.diagnose(PROBE, env={"torch": "2.1.0"}).environment == {"torch": "2.1.0"}


def test_assembled_needs_every_field_and_no_other() -> None:
    with pytest.raises(TypeError, match=r"missing \['rank'\]"):
        assembled(InputSummary, name="<text>", lines=1, bytes=3)
    with pytest.raises(TypeError, match=r"unknown \['size'\]"):
        assembled(InputSummary, name="<text>", lines=1, bytes=3, rank=None, size=3)
    built = assembled(InputSummary, name="<text>", lines=1, bytes=3, rank=None)
    assert built == InputSummary(name="<text>", lines=1, bytes=3, rank=None)
