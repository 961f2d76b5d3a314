"""Real messages of the cuda/ and packaging/ canon, each answered first by the right entry.

Each case is a real line (a public paste or output produced here); the cases pin the pattern
changes of issue 15 (every wording pip has printed, torch.AcceleratorError next to
RuntimeError, xformers with a CPU torch) and the new entries of issue 11.
"""

from __future__ import annotations

from functools import cache

import pytest

from rootcause.adapters.canon_files import load_canon
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.index import CompiledIndex


@cache
def canon_index() -> CompiledIndex:
    return CompiledIndex([loaded.entry for loaded in load_canon()])


def first_finding(text: str) -> tuple[str, dict[str, str]]:
    diagnosis = diagnose_text(text, canon_index())
    assert diagnosis.findings, f"no finding for {text!r}"
    top = diagnosis.findings[0]
    params = {name: values[0] for name, values in top.param_values.items() if values}
    return top.id, {**params, **top.params}


PIP_CONFLICT = "packaging/pip-resolver-torch-pin-conflict"


@pytest.mark.parametrize(
    ("text", "required", "installed"),
    [
        # pip 10.0 - 20.1
        (
            "ERROR: torchvision 0.6.0 has requirement torch==1.5.0, but you'll have torch 1.6.0.dev20200413 "
            "which is incompatible.",
            "torch==1.5.0",
            "1.6.0.dev20200413",
        ),
        # pip 20.3+: several specifiers in one requirement
        (
            "fastai 2.7.11 requires torch<1.14,>=1.7, but you have torch 2.0.0 which is incompatible.",
            "torch<1.14,>=1.7",
            "2.0.0",
        ),
        # pip check
        ("pinlib 0.1 has requirement torch<2.1,>=1.7, but you have torch 2.13.0+cpu.", "torch<2.1,>=1.7", "2.13.0+cpu"),
    ],
)
def test_pip_conflict_every_wording_and_several_specifiers(text: str, required: str, installed: str) -> None:
    entry_id, params = first_finding(text)
    assert entry_id == PIP_CONFLICT
    assert params["required"] == required
    assert params["installed"] == installed


def test_pip_conflict_is_not_claimed_for_torchvision_itself() -> None:
    diagnosis = diagnose_text(
        "torchaudio 2.0.1 requires torchvision==0.15.1, but you have torchvision 0.16.0 which is incompatible.",
        canon_index(),
    )
    assert PIP_CONFLICT not in [f.id for f in diagnosis.findings if f.matched_by == "pattern"]


XFORMERS = "packaging/xformers-cannot-load-extensions"


def test_xformers_cpu_torch_and_python_line() -> None:
    entry_id, params = first_finding(
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)"
    )
    assert entry_id == XFORMERS
    assert params["installed"] == "2.1.2+cpu"
    entry_id, params = first_finding("   Python  3.9.16 (you have 3.9.18)")
    assert (entry_id, params["python"]) == (XFORMERS, "3.9.18")


def test_xformers_entry_leads_with_the_cuda_torch_fix() -> None:
    entry = next(e.entry for e in load_canon() if e.entry.id == XFORMERS)
    assert "+cpu" in entry.workarounds[0].condition
    assert "download.pytorch.org/whl/cu" in entry.workarounds[0].how


@pytest.mark.parametrize(
    ("text", "entry_id"),
    [
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda/illegal-memory-access"),
        ("torch.AcceleratorError: CUDA error: an illegal memory access was encountered", "cuda/illegal-memory-access"),
        ("RuntimeError: CUDA error: invalid device ordinal", "cuda/invalid-device-ordinal"),
        ("torch.AcceleratorError: CUDA error: invalid device ordinal", "cuda/invalid-device-ordinal"),
        ("torch.AcceleratorError: CUDA error: unspecified launch failure", "cuda/unspecified-launch-failure"),
        ("AcceleratorError: CUDA error: device-side assert triggered", "cuda/device-side-assert-triggered"),
        (
            "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
            "cuda/no-kernel-image",
        ),
        ("torch.AcceleratorError: CUDA error: out of memory", "cuda/cuda-error-out-of-memory"),
    ],
)
def test_cuda_errors_accept_runtime_error_and_accelerator_error(text: str, entry_id: str) -> None:
    assert first_finding(text)[0] == entry_id


def test_every_cuda_and_packaging_entry_lists_generations_with_matched_examples() -> None:
    for loaded in load_canon():
        entry = loaded.entry
        if entry.id.split("/")[0] not in {"cuda", "packaging"}:
            continue
        assert entry.generations, entry.id
        for generation in entry.generations:
            for index in generation.examples:
                assert first_finding(entry.examples[index].text)[0] == entry.id, (entry.id, index)


def test_cpu_build_missing_cuda_binding_names_the_attribute() -> None:
    entry_id, params = first_finding("AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'")
    assert (entry_id, params["attr"]) == ("cuda/torch-c-missing-cuda-binding", "_cuda_setDevice")
    # a torch._C attribute that is not a CUDA binding is a different failure (mixed builds)
    diagnosis = diagnose_text("AttributeError: module 'torch._C' has no attribute 'AcceleratorError'", canon_index())
    assert "cuda/torch-c-missing-cuda-binding" not in [f.id for f in diagnosis.findings if f.matched_by == "pattern"]


@pytest.mark.parametrize(
    ("text", "entry_id"),
    [
        (
            "ERROR: Could not build wheels for pycuda which use PEP 517 and cannot be installed directly",
            "packaging/pip-wheel-build-failed",
        ),
        (
            "ERROR: Could not build wheels for flash-attn, which is required to install pyproject.toml-based projects",
            "packaging/pip-wheel-build-failed",
        ),
        ("  × python setup.py bdist_wheel did not run successfully.", "packaging/pip-wheel-build-failed"),
        (
            "ERROR: ERROR: Failed to build installable wheels for some pyproject.toml based projects (apex)",
            "packaging/pip-wheel-build-failed",
        ),
        ("× Encountered error while generating package metadata.", "packaging/pip-metadata-generation-failed"),
        ("  × python setup.py egg_info did not run successfully.", "packaging/pip-metadata-generation-failed"),
    ],
)
def test_pip_build_summaries_alone_get_the_wrapper_entry(text: str, entry_id: str) -> None:
    assert first_finding(text)[0] == entry_id


def test_the_cause_above_a_pip_build_failure_ranks_first() -> None:
    log = "\n".join(
        [
            "  Building wheel for flash-attn (setup.py) ... error",
            "  error: subprocess-exited-with-error",
            "  × python setup.py bdist_wheel did not run successfully.",
            "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
            "  ERROR: Failed building wheel for flash-attn",
            "ERROR: Could not build wheels for flash-attn, which is required to install pyproject.toml-based projects",
        ]
    )
    ids = [f.id for f in diagnose_text(log, canon_index()).findings]
    assert ids[:2] == ["packaging/cuda-home-not-set", "packaging/pip-wheel-build-failed"]


@pytest.mark.parametrize(
    ("text", "entry_id"),
    [
        # glibc vs the C++ runtime: two entries, told apart by the symbol-version family
        (
            "ImportError: /lib64/libm.so.6: version `GLIBC_2.29' not found (required by /x/libhsa-runtime64.so.1)",
            "packaging/glibc-version-not-found",
        ),
        (
            "ImportError: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.20' not found (required by /x/libtorch.so)",
            "packaging/glibcxx-version-not-found",
        ),
        # both nvcc wordings for an architecture it does not know
        ("nvcc fatal   : Unsupported gpu architecture 'compute_35'", "packaging/nvcc-unsupported-gpu-architecture"),
        (
            "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'",
            "packaging/nvcc-unsupported-gpu-architecture",
        ),
        # every cuDNN version-check wording torch has printed
        (
            "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7600",
            "cuda/cudnn-version-incompatible",
        ),
        (
            "cuDNN version incompatibility: PyTorch was compiled  against (8, 7, 0) but found runtime version (8, 2, 4).",
            "cuda/cudnn-version-incompatible",
        ),
        # Triton's older 'Hardware limitation' wording and the doubled comma seen in a paste
        (
            "OutOfResources: out of resource: shared memory, Required: 98304, , Hardware limit: 65536.",
            "cuda/triton-out-of-shared-memory",
        ),
        (
            "out of resource: shared memory, Required: 163842, Hardware limitation: 101376.",
            "cuda/triton-out-of-shared-memory",
        ),
        # THC-era and CUDA-runtime forms of one cudaError
        (
            "RuntimeError: cuda runtime error (100) : no CUDA-capable device is detected at /x/THCGeneral.cpp:50",
            "cuda/no-cuda-gpus-available",
        ),
        ("RuntimeError: CUDA error: the launch timed out and was terminated", "cuda/launch-timed-out"),
        ("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "cuda/cufft-internal-error"),
        (
            "ImportError: /x/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommWindowRegister",
            "packaging/torch-nccl-undefined-symbol",
        ),
    ],
)
def test_new_and_widened_cuda_packaging_patterns(text: str, entry_id: str) -> None:
    assert first_finding(text)[0] == entry_id
