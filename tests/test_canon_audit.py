"""Regression tests for the findings of the canon audit (issue 20, items 4 and 5).

Each test asserts the corrected fact on the loaded canon, as read from the released artifacts (the
wheel, tag, file and line are in the entry's ``sources`` or generation notes):

- transformers 5.0.0 has no ``torchscript`` config attribute (the 4.57.6 wheel has it), so
  ``from_pretrained(..., torchscript=True)`` raises TypeError there;
- ``new_group(timeout=None)`` takes the backend default (torch 2.2.0 .. 2.13.0), and in 1.10.2 and
  2.1.2 it defaulted to ``default_pg_timeout``: never the value given to ``init_process_group``;
- ``TORCH_NCCL_TRACE_BUFFER_SIZE`` / ``TORCH_NCCL_DUMP_ON_TIMEOUT`` appear in the 2.2.0 wheel's
  c10d headers and in none of 2.1.2's; the ``torchfrtrace`` console script is in 2.5.0, not 2.4.1;
- huggingface_hub's ``hf`` console script appears in 0.34.0; ``huggingface-cli`` is gone in 1.0.0.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from rootcause.adapters.loading import load_entries
from rootcause.core.model import Entry, Workaround


@cache
def _entries() -> dict[str, Entry]:
    return {e.id: e for e in load_entries([])}


def _entry(entry_id: str) -> Entry:
    return _entries()[entry_id]


def _allows(requirement: str | None, package: str, version: str) -> bool:
    """Whether an environment with ``package==version`` meets the workaround's ``requires``."""
    if requirement is None:
        return True
    req = Requirement(requirement)
    return req.name != package or req.specifier.contains(Version(version), prereleases=True)


def _workarounds_naming(entry: Entry, needle: str) -> list[Workaround]:
    return [w for w in entry.workarounds if needle in w.how or needle in w.action]


# --- majors ---------------------------------------------------------------------------------------


def test_torchscript_workaround_is_limited_to_transformers_4() -> None:
    entry = _entry("pytorch/jit-trace-unsupported-io-type")
    found = _workarounds_naming(entry, "torchscript=True")
    assert found, "the torchscript=True workaround was dropped instead of conditioned"
    for w in found:
        assert _allows(w.requires, "transformers", "4.57.6")
        assert not _allows(w.requires, "transformers", "5.0.0")
        assert "TypeError" in (w.condition or "")
    # transformers 5 users still get a way to tuple outputs
    assert any(
        "return_dict=False" in w.how and _allows(w.requires, "transformers", "5.25.0") for w in entry.workarounds
    )


TIMEOUT_ENTRIES = [
    "pytorch/nccl-watchdog-timeout",
    "pytorch/nccl-watchdog-timeout-legacy",
    "pytorch/nccl-watchdog-status-legacy",
    "pytorch/nccl-blocking-wait-timeout",
]


@pytest.mark.parametrize("entry_id", TIMEOUT_ENTRIES)
def test_timeout_advice_covers_subgroups(entry_id: str) -> None:
    entry = _entry(entry_id)
    texts = [w.action for w in entry.workarounds] + [w.action_zh or "" for w in entry.workarounds]
    assert not any("only knob" in t or "唯一能设置" in t for t in texts)
    raising = [w for w in entry.workarounds if "init_process_group(" in w.how and "timeout=" in w.how]
    assert raising
    for w in raising:
        assert "new_group(" in w.how and re.search(r"new_group\([^)]*timeout=", w.how)
        assert "10 minutes" in w.action and "2.2" in w.action
        assert "new_group" in (w.action_zh or "") and "10 分钟" in (w.action_zh or "")
        assert any("distributed_c10d.py" in s for s in w.sources)


# --- freshness (item 4) ---------------------------------------------------------------------------

FLIGHT_RECORDER = ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT", "torchfrtrace")


def _entry_version_floor(entry: Entry, package: str) -> Version | None:
    """The lowest release the entry's own message exists in, when its versions say so (torch>=2.6)."""
    floors = []
    for vr in entry.versions:
        req = Requirement(vr.requirement)
        if req.name == package:
            floors += [Version(s.version) for s in req.specifier if s.operator in (">=", "==")]
    return min(floors) if floors else None


def test_flight_recorder_advice_states_its_versions() -> None:
    seen = 0
    for entry in _entries().values():
        floor = _entry_version_floor(entry, "torch")
        for w in entry.workarounds:
            text = w.how + w.action
            names = [n for n in FLIGHT_RECORDER if n in text]
            if not names:
                continue
            seen += 1
            first = "2.5.0" if "torchfrtrace" in names else "2.2.0"
            old = "2.1.2"
            if floor is not None and floor >= Version(first):
                continue  # the entry's message only exists where the advice does
            assert w.requires is not None, f"{entry.id}: {names} without requires"
            assert _allows(w.requires, "torch", "2.13.0") and not _allows(w.requires, "torch", old), entry.id
            if "torchfrtrace" in names and _allows(w.requires, "torch", "2.2.0"):
                assert "torch>=2.5" in w.how, f"{entry.id}: torchfrtrace named without its version"
        for d in entry.dead_ends:
            assert not any(n in d.action for n in FLIGHT_RECORDER) or "2.2" in d.why_fails, entry.id
    assert seen >= 2


def test_env_var_list_carries_flight_recorder_first_version() -> None:
    rows = {}
    for item in (resources.files("rootcause") / "data" / "env_vars").iterdir():
        if item.name.endswith(".yaml"):
            rows |= {row["name"]: row for row in yaml.safe_load(item.read_text(encoding="utf-8")) or []}
    for name in ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT"):
        assert str(rows[name].get("since", "")).startswith("torch 2.2.0"), name


HF_CLI = re.compile(r"huggingface-cli (?:download|login|whoami|logout)")


def test_huggingface_cli_is_only_named_with_its_version() -> None:
    """`huggingface-cli` is gone in huggingface_hub 1.0 and `hf` exists from 0.34: advice naming either says which."""
    seen = 0
    for entry in _entries().values():
        for w in entry.workarounds:
            lines = [ln for ln in w.how.splitlines() if HF_CLI.search(ln) or re.search(r"\bhf (?:download|auth)\b", ln)]
            if not lines:
                continue
            seen += 1
            stated = "huggingface_hub>=0.34" in (w.requires or "") or any(
                "huggingface_hub < 0.34" in ln for ln in lines
            )
            assert stated, f"{entry.id}: {lines[0].strip()!r} states no huggingface_hub version"
            for line in lines:
                assert not line.lstrip().startswith("huggingface-cli"), f"{entry.id}: {line.strip()!r}"
                assert "huggingface_hub < 1.0" not in line, f"{entry.id}: hf needs 0.34, not 1.0"
    assert seen >= 10


def test_load_weights_only_persistent_id_downloads_with_hf() -> None:
    entry = _entry("pytorch/load-weights-only-persistent-id")
    (w,) = _workarounds_naming(entry, "download")
    assert w.how.splitlines()[-1].lstrip().startswith("hf download ")
    assert any("0.34.0" in s and "1.0.0" in s for s in w.sources)


# --- minors ---------------------------------------------------------------------------------------


def _generation_allows(entry: Entry, needle: str, package: str, version: str) -> bool:
    (gen,) = [g for g in entry.generations if needle in g.wording]
    return _allows(gen.versions, package, version)


@pytest.mark.parametrize(
    ("entry_id", "old", "new"),
    [
        ("pytorch/nccl-invalid-usage", ", invalid usage, NCCL", "invalid usage (run with NCCL_DEBUG=WARN for details)"),
        ("pytorch/nccl-internal-error", ", internal error, NCCL", "internal error - please report this issue"),
    ],
)
def test_nccl_result_string_generations_follow_nccl_tags(entry_id: str, old: str, new: str) -> None:
    """ncclGetErrorString: plain strings up to v2.17.1-1, the 2.18.1-1 wording through v2.30.7-1."""
    entry = _entry(entry_id)
    assert _generation_allows(entry, old, "nccl", "2.17.1") and not _generation_allows(entry, old, "nccl", "2.18.1")
    assert _generation_allows(entry, new, "nccl", "2.18.1") and not _generation_allows(entry, new, "nccl", "2.17.1")
    for gen in entry.generations:
        assert gen.bounds_source != "unchecked" and "NVIDIA/nccl@v2.1" in gen.bounds_source.ref
        wording = (old if "2.17" in gen.bounds_source.ref else new).split(", NCCL")[0]
        assert any(wording in entry.examples[n].text for n in gen.examples), gen.wording
    # the DistBackendError wording needs torch 2.0: no open torch>=1.0 bound is claimed any more
    assert not any(v.requirement == "torch>=1.0" for v in entry.versions)
    # the INFO suffix belongs to unhandled cuda/system errors, not to this code
    notes = " ".join(s.note or "" for s in entry.sources)
    assert "suffixes start in 2.18" not in notes


def test_gloo_socket_ifname_is_not_said_to_pin_the_store() -> None:
    entry = _entry("pytorch/nccl-internal-error")
    (w,) = _workarounds_naming(entry, "GLOO_SOCKET_IFNAME")
    assert "c10d store)" not in w.action and "c10d store）" not in (w.action_zh or "")
    assert "MASTER_ADDR" in w.action and "MASTER_ADDR" in w.how and "MASTER_ADDR" in (w.action_zh or "")


def test_state_dict_size_mismatch_type_and_old_wording() -> None:
    entry = _entry("pytorch/state-dict-size-mismatch")
    assert entry.root_cause_type == "config_mismatch"  # a model/checkpoint config difference, not a library version
    old = next(g for g in entry.generations if g.wording.startswith("While copying the parameter named"))
    assert _allows(old.versions, "torch", "0.4.1") and not _allows(old.versions, "torch", "1.0.0")
    # 1.0.0..1.4.0 still print the whole sentence on copy failures; the suffix came in 1.5.0 ("occurred" in 1.7.0)
    assert "up to 1.4.0" in (old.note or "") and "1.5.0" in (old.note or "") and "1.7.0" in (old.note or "")
    assert "survives only as the prefix" not in (old.note or "")


def test_ddp_find_unused_parameters_generations_are_torch_1_8_and_1_9() -> None:
    entry = _entry("pytorch/ddp-find-unused-parameters-warning")
    first, second = entry.generations
    assert "did not find any unused parameters. This flag" in first.wording
    assert [_allows(first.versions, "torch", v) for v in ("1.7.1", "1.8.0", "1.8.1", "1.9.0")] == [
        False,
        True,
        True,
        False,
    ]
    assert "in the forward pass" in second.wording
    assert [_allows(second.versions, "torch", v) for v in ("1.8.1", "1.9.0", "2.13.0")] == [False, True, True]
    assert all(g.bounds_source != "unchecked" and g.bounds_source.kind == "source" for g in entry.generations)


def test_cudnn_not_supported_source_fixes_and_old_variant() -> None:
    entry = _entry("cuda/cudnn-status-not-supported")
    notes = " ".join(p.note or "" for p in entry.patterns)
    assert "ATen/cuda/Exceptions.h" in notes and "aten/src/ATen/cudnn/Exceptions.h)" not in notes
    # disabling cuDNN is a slow fallback today, not a dead end
    assert not any("cudnn" in d.action.lower() and "disabl" in d.action.lower() for d in entry.dead_ends)
    hows = [w.how for w in entry.workarounds]
    assert any("cudnn.flags(enabled=False)" in h for h in hows)
    assert any("cudnn.benchmark = True" in h for h in hows)
    assert any("torch.backends.cudnn.version()" in h for h in hows)  # a CUDA/cuDNN change
    old = next(g for g in entry.generations if g.wording.startswith("CuDNN error:"))
    assert not _allows(old.versions, "torch", "1.0.0")
    new = next(g for g in entry.generations if g.wording.startswith("cuDNN error:"))
    assert _allows(new.versions, "torch", "1.0.0") and _allows(new.versions, "torch", "2.13.0")


def test_cudnn_old_capitalised_wrapped_paste_is_answered_by_its_entry() -> None:
    from rootcause.adapters.loading import load_index
    from rootcause.core.diagnosis import diagnose_text

    text = (
        "RuntimeError: CuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a n\n"
        "on-contiguous input."
    )
    findings = [f for f in diagnose_text(text, load_index()).findings if f.matched_by == "pattern"]
    assert findings and findings[0].id == "cuda/cudnn-status-not-supported"


def test_dtensor_mesh_root_cause_does_not_blame_plain_python() -> None:
    entry = _entry("pytorch/dtensor-mesh-bigger-than-world")
    assert "plain python instead of torchrun" not in entry.root_cause
    assert "RANK expected, but not set" in entry.root_cause and "RANK expected, but not set" in (
        entry.root_cause_zh or ""
    )
    old, new = entry.generations
    assert _allows(old.versions, "torch", "2.4.1") and not _allows(old.versions, "torch", "2.5.0")
    assert _allows(new.versions, "torch", "2.5.0") and not _allows(new.versions, "torch", "2.4.1")


def test_apex_fused_adam_cuda_needs_deprecated_fused_adam() -> None:
    entry = _entry("packaging/apex-cuda-extensions-missing")
    (w,) = _workarounds_naming(entry, "--deprecated_fused_adam")
    assert w.evidence and re.search(w.evidence, "ModuleNotFoundError: No module named 'fused_adam_cuda'")
    assert not re.search(w.evidence, "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'")
    assert "apex.optimizers import FusedAdam" in w.how and "25.09" in w.how
    rows = {}
    for item in (resources.files("rootcause") / "data" / "env_vars").iterdir():
        if item.name.endswith(".yaml"):
            rows |= {row["name"]: row for row in yaml.safe_load(item.read_text(encoding="utf-8")) or []}
    assert "APEX_DEPRECATED_FUSED_ADAM" in rows


def test_export_constraints_signature_zh_is_complete() -> None:
    entry = _entry("pytorch/export-constraints-violated")
    zh = entry.signature_zh or ""
    # every sentence of the English signature has its Chinese counterpart
    for token in (
        "mark_dynamic",
        "maybe_mark_dynamic",
        "Dim.DYNAMIC",
        "Dim.STATIC",
        "Dim.AUTO",
        'TORCH_LOGS="+dynamic"',
    ):
        assert token in entry.signature and token in zh, token


def test_pip_check_wording_dates_from_pip_9() -> None:
    entry = _entry("packaging/pip-resolver-torch-pin-conflict")
    check = next(g for g in entry.generations if g.wording == "%s %s has requirement %s, but you have %s %s.")
    assert _allows(check.versions, "pip", "9.0.0") and not _allows(check.versions, "pip", "8.1.2")
    install = next(g for g in entry.generations if "but you'll have %s %s which is incompatible" in g.wording)
    assert not _allows(install.versions, "pip", "9.0.3") and _allows(install.versions, "pip", "10.0.0")
    assert any(_allows(v.requirement, "pip", "9.0.0") for v in entry.versions if v.requirement.startswith("pip"))


def test_ib_retry_third_generation_and_2_28_7_rewording() -> None:
    entry = _entry("nccl/ib-retry-exceeded")
    third = entry.generations[2]
    assert third.wording.startswith(
        "NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d"
    )
    assert "NET/IB%s" not in third.wording
    assert _allows(third.versions, "nccl", "2.28.3") and not _allows(third.versions, "nccl", "2.28.7")
    assert _allows(third.versions, "nccl", "2.20.3") and not _allows(third.versions, "nccl", "2.19.4")
    notes = " ".join(p.note or "" for p in entry.patterns)
    assert "2.28.7+" in notes and "2.28.9+" not in notes
    # the v2.28.7-1 format (net_ib.cc:2543, ibvWcStatusStr names the status) is matched by the entry's patterns
    line = (
        "NET/IB: Got completion from peer 10.0.0.2<40000> with status=IBV_WC_RETRY_EXC_ERR(12) "
        "opcode=IBV_WC_RDMA_WRITE(1) reqSize=0 vendor_err=129 req_type=Send hca mlx5_0"
    )
    assert any(re.search(p.regex, line) for p in entry.patterns)


def test_tensor_loss_sequence_length_thread_backs_the_right_workaround() -> None:
    entry = _entry("pytorch/tensor-loss-batch-size-mismatch")
    thread = "https://github.com/gauthierdmn/question_generation/issues/4"
    backed = [w for w in entry.workarounds if thread in w.sources]
    assert len(backed) == 1
    (w,) = backed
    # that thread already flattens both tensors; 1216 vs 1280 is 64 x 19 vs 64 x 20: a sequence-length mismatch
    assert "sequence length" in w.action and "labels[:, 1:]" in w.how
    flatten = next(x for x in entry.workarounds if "labels.reshape(-1)" in x.how and x is not w)
    assert thread not in flatten.sources


def test_vllm_engine_core_names_the_non_dp_engine_engine_core() -> None:
    entry = _entry("huggingface/vllm-engine-core-init-failed")
    assert "process's name" in entry.root_cause
    assert '"(EngineCore pid=...)"' in entry.root_cause and '"(EngineCore pid=...)"' in (entry.root_cause_zh or "")
    assert "0.18" in entry.root_cause and "0.18" in (entry.root_cause_zh or "")
    gen = next(g for g in entry.generations if "{finished}" in g.wording)
    assert "{''EngineCore'': 1}" not in (gen.note or "") and "{'EngineCore': 1}" in (gen.note or "")
    assert any("v0.18.0" in s.ref and "EngineCore" in (s.note or "") for s in entry.sources)
    # the pattern still answers the current single-engine form
    line = (
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore': 1}"
    )
    m = next(re.search(p.regex, line) for p in entry.patterns if re.search(p.regex, line))
    assert m.group("procs") == "{'EngineCore': 1}"
