"""Reach on real traffic (issue 19): what users really paste is matched however it is cut, quoted, wrapped or
printed, and nothing that is not a known error is claimed as one. The corpus's figures are in bench/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import run_cli

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text

ROOT = Path(__file__).resolve().parents[1]
OOM = "cuda/oom-caching-allocator"


@pytest.fixture(scope="module")
def index():
    return load_index()


def _ids(text: str, index) -> list[str]:
    return [f.id for f in diagnose_text(text, index).findings]


# The example is a real Gloo all-reduce timeout run under TORCH_DISTRIBUTED_DEBUG=DETAIL, where PyTorch wraps the
# collective in a monitored barrier: what times out is that barrier, naming the rank that never arrived.
GLOO_TIMEOUT_FAMILY = {"pytorch/gloo-timeout", "pytorch/dist-monitored-barrier-timeout"}


def test_quick_start_example_gives_only_the_gloo_timeout_and_its_wrappers(index) -> None:
    d = diagnose_text((ROOT / "examples/gloo-allreduce-timeout/console.log").read_text(encoding="utf-8"), index)
    assert d.findings and d.findings[0].id in GLOO_TIMEOUT_FAMILY
    # besides the timeout: torchrun's wrappers (ChildFailedError) and its notice of the teardown that followed
    # (``Sending process N closing signal SIGTERM``), both printed by this log and both ranked after the cause
    others = [f for f in d.findings if f.id not in GLOO_TIMEOUT_FAMILY]
    assert all(f.role == "wrapper" or f.id == "pytorch/elastic-closing-workers-signal" for f in others), others


@pytest.mark.parametrize(
    "text",
    [
        "CUDA out of memory",
        "RuntimeError: CUDA out of memory",
        "RuntimeError: CUDA out of memory.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity;",
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 3 has a total capac",
        "> RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "`torch.OutOfMemoryError: CUDA out of memory`",
        "```\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB.\n```",
        "- CUDA out of memory when the batch size is 32",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB.",
    ],
)
def test_every_oom_short_form_gets_the_oom_entry_first(index, text: str) -> None:
    assert _ids(text, index)[:1] == [OOM]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[ERROR] [launch.py:321:sigkill_handler] [...] exits with return code = -9", "pytorch/elastic-worker-sigkill"),
        ("subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.",
         "pytorch/elastic-worker-sigkill"),
        ("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV",
         "pytorch/elastic-worker-sigsegv"),
        ("ERROR 07-26 14:50:35 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 214281 died, exit code: -11",
         "pytorch/elastic-worker-sigsegv"),
        ("[2023-06-01 10:00:00,000] [ERROR] [launch.py:434:sigkill_handler] ['python'] exits with return code = -7",
         "pytorch/elastic-worker-sigbus"),
    ],
)  # fmt: skip
def test_the_same_death_printed_by_another_launcher_is_one_entry(index, text: str, expected: str) -> None:
    assert _ids(text, index)[:1] == [expected]


LINE = "RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize(
    "framed",
    [
        f"> {LINE}",
        f"> > {LINE}",
        f"```{LINE}```",
        f"`{LINE}`",
        f"**{LINE}**",
        f"- {LINE}",
        f"1. {LINE}",
        f"(RayWorkerWrapper pid=37007, ip=10.0.0.2) {LINE}",
        f"ERROR 06-12 15:44:15 worker_base.py:148] {LINE}",
    ],
)
def test_framing_users_add_is_stripped(index, framed: str) -> None:
    assert _ids(framed, index)[:1] == ["cuda/illegal-memory-access"]


@pytest.mark.parametrize("closing", ["`", "```", "**"])
def test_a_pattern_ending_at_the_line_end_matches_before_closing_markup(index, closing: str) -> None:
    # the raw-text prefilter sees the markup the cleaned line has lost; its line-end anchor must allow it
    opening = closing if closing != "```" else "```\n"
    text = f"{opening}ModuleNotFoundError: No module named 'torch'{closing}"
    assert _ids(text, index)[:1] == ["packaging/torch-module-not-found"]


def test_a_message_hard_wrapped_between_words_is_rejoined(index) -> None:
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
        "RuntimeError: Expected all tensors to be on the same device, but found at least\n"
        "two devices, cuda:0 and cpu! (when checking argument for argument mat1)\n"
    )
    assert _ids(text, index)[:1] == ["cuda/tensors-on-different-devices"]


@pytest.mark.parametrize(
    "text",
    [
        '  File "/home/u/dist_gloo_timeout.py", line 16, in <module>',
        "Traceback (most recent call last):",
        "terminate called after throwing an instance of 'std::runtime_error'",
        "RuntimeError",
        "TypeError: HfApi.__init__() got an unexpected keyword argument 'headers'",
        "ERROR: Could not find a version that satisfies the requirement onnxruntime (from versions: none)",
        # the DataParallel entry's own template with the wrapper's name in the other quoted place (fresh audit)
        "AttributeError: 'NoneType' object has no attribute 'DataParallel'\n",
    ],
)
def test_lexical_stage_never_claims_on_boilerplate_or_another_name(index, text: str) -> None:
    assert [f.id for f in diagnose_text(text, index).findings if f.matched_by == "lexical"] == []


def test_a_plain_keyerror_traceback_is_no_known_error() -> None:
    text = 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    d["b"]\nKeyError: \'b\'\n'
    result = run_cli("diagnose", "-", stdin=text)
    assert result.returncode == 1 and "No known error matched" in result.stdout
    assert "Unclassified" not in result.stdout, "frames all outside the ML stack: not rootcause's business"
    in_stack = text.replace("app.py", "/opt/venv/lib/python3.11/site-packages/transformers/trainer.py")
    result = run_cli("diagnose", "--format", "md", "-", stdin=in_stack)
    assert (
        result.returncode == 1 and "Unclassified Python exception" in result.stdout and "KeyError: 'b'" in result.stdout
    )


def test_empty_input_exits_2_saying_nothing_to_read() -> None:
    result = run_cli("diagnose", "-", stdin="")
    assert result.returncode == 2 and "nothing to read" in result.stderr


def test_ai_generated_finding_shows_the_unverified_notice_below_the_grounded_one() -> None:
    line = (
        "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=2511984, OpType=ALLREDUCE, Timeout(ms)=1800000) ran "
        "for 1809553 milliseconds before timing out."
    )
    out = run_cli("diagnose", "--format", "md", "-", stdin=line).stdout
    grounded, seed = out.index("pytorch/nccl-watchdog-timeout-legacy"), out.index("pytorch/nccl-timeout-allreduce")
    notice = out.index("unverified, AI-generated")
    assert grounded < seed < notice


def test_a_consequence_line_answers_with_its_failure_marked_as_consequence(index) -> None:
    d = diagnose_text("AttributeError: '_OpNamespace' 'image' object has no attribute 'decode_jpeg'", index)
    assert [(f.id, f.consequence) for f in d.findings] == [("pytorch/vision-image-extension-load-failed", True)]
    both = diagnose_text(
        "UserWarning: Failed to load image Python extension: ''\n"
        "AttributeError: '_OpNamespace' 'image' object has no attribute 'decode_jpeg'\n",
        index,
    )
    vision = [f for f in both.findings if f.id == "pytorch/vision-image-extension-load-failed"]
    assert len(vision) == 1 and not vision[0].consequence and vision[0].count == 2, "its own line was seen"


def test_a_message_cut_after_its_stable_head_still_matches(index) -> None:
    from rootcause.core.matching.heads import truncated

    cut = truncated(r"failed \(exitcode: (?P<exitcode>[1-9]\d*)\) local_rank: (?P<rank>\d+) \(pid: \d+\) of binary:")
    assert cut is not None and cut.endswith(r"\s*$") and "(?P<rank>" in cut
    assert truncated(r"Short one\. Then (?P<x>\w+)") is None, "too short to name an error on its own"
    assert truncated(r"alpha error|beta error with a long enough text") is None, "a top-level alternation is not cut"
    assert _ids("RuntimeError: Some NCCL operations have failed or timed out.", index)[:1] == [
        "pytorch/nccl-operations-failed-teardown"
    ]
    line = "E0727 16:36:50.118000 1282 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) local_rank: 0 (pid: 840146)"
    assert _ids(line, index)[:1] == ["pytorch/elastic-child-failed"]
    full = diagnose_text(line + " of binary: /usr/bin/python", index).findings
    assert [f.count for f in full if f.id == "pytorch/elastic-child-failed"] == [1], "no second hit from the cut form"


def test_a_line_cut_before_the_words_that_tell_two_entries_apart_names_neither(index) -> None:
    d = diagnose_text("RuntimeError: Error(s) in loading state_dict for GenEfficientNet:", index)
    assert [f.id for f in d.findings if f.id.startswith("pytorch/state-dict")] == []


def test_a_wrapper_around_an_unknown_exception_is_no_known_error(index) -> None:
    log = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/venv/lib/python3.11/site-packages/transformers/trainer.py", '
        "line 2241, in _inner_training_loop\n"
        "[rank1]:     raise ValueError(\n"
        "[rank1]: ValueError: bad batch at step 2: labels out of range\n"
        "E0727 16:36:50.118000 1282 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) "
        "local_rank: 0 (pid: 840146) of binary: /venv/bin/python\n"
    )
    d = diagnose_text(log, index)
    assert [f.id for f in d.findings] == ["pytorch/elastic-child-failed"] and not d.matched
    assert d.abstain_reason is not None and "ValueError" in d.abstain_reason
    alone = diagnose_text(log.split("\n", 4)[-1], index)
    assert alone.matched and [f.id for f in alone.findings] == ["pytorch/elastic-child-failed"]


def test_pips_indented_build_output_is_read_for_the_exception_it_wraps(index) -> None:
    # pip indents the failed build's own output; its exception line is indented too
    log = (
        "  error: subprocess-exited-with-error\n"
        "  \n"
        "  \u00d7 python setup.py egg_info did not run successfully.\n"
        "  \u2502 exit code: 1\n"
        "  \u2570\u2500> [6 lines of output]\n"
        "      Traceback (most recent call last):\n"
        '        File "/tmp/pip-install-k2x8/fused_ops/setup.py", line 12, in <module>\n'
        '          subprocess.check_call(["nvcc", "--version"])\n'
        "      FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'\n"
        "      [end of output]\n"
    )
    d = diagnose_text(log, index)
    assert [f.id for f in d.findings] == ["packaging/pip-metadata-generation-failed"] and not d.matched
    assert d.abstain_reason is not None and "FileNotFoundError" in d.abstain_reason


def test_a_traceback_inside_a_json_string_is_read_through_its_escapes(index) -> None:
    line = (
        '{"detail": "Traceback (most recent call last):\\n  File \\"/srv/app.py\\", line 3, in run\\n'
        "ModuleNotFoundError: No module named 'triton'\\n\"}"
    )
    assert "\\n" in line and _ids(line, index)[:1] == ["packaging/triton-not-found"]


def test_a_line_matched_by_two_patterns_of_one_entry_is_one_occurrence(index) -> None:
    """The full OOM message is matched by its full pattern and by its stable head: one line, one occurrence,
    the richer match kept (its parameters)."""
    line = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 1.25 GiB is free. Including non-PyTorch memory, this process has 77.89 GiB memory in use."
    )
    once = diagnose_text(line + "\n", index).findings[0]
    assert once.id == "cuda/oom-caching-allocator"
    assert (once.count, len(once.lines)) == (1, 1)
    assert once.params.get("size") == "2.00 GiB"
    thrice = diagnose_text((line + "\n") * 3, index).findings[0]
    assert (thrice.count, len(thrice.lines)) == (3, 3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("RuntimeError: CUDA error: invalid device ordin", "cuda/invalid-device-ordinal"),
        ("When built with FA it fails on RTX 5090 - CUDA error: no kernel image is availa", "cuda/no-kernel-image"),
        ("Bug: no kernel image is available for execution on the dev…", "cuda/no-kernel-image"),
        ("RuntimeError: CUDA error: device-side assert trigge", "cuda/device-side-assert-triggered"),
        ("RuntimeError: DataLoader worker (pid 16725) is killed by signal: K", "pytorch/dataloader-worker-killed-oom"),
    ],
)
def test_a_message_cut_mid_word_after_its_stable_head_still_matches(index, text: str, expected: str) -> None:
    assert _ids(text, index)[:1] == [expected]


def test_a_head_other_entries_share_grows_until_it_is_its_own() -> None:
    import re2

    from rootcause.core.matching.heads import truncated

    regex = r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: Killed\."
    other = "dataloader worker (pid \0) is killed by signal: segmentation fault"
    alone, grown = truncated(regex), truncated(regex, lambda head: head in other)
    assert alone is not None and grown is not None
    shared_part, own_part = (
        "DataLoader worker (pid 7) is killed by sig",
        "DataLoader worker (pid 7) is killed by signal: Ki",
    )
    assert re2.search(alone, shared_part) and not re2.search(grown, shared_part)
    assert re2.search(grown, own_part) and not re2.search(grown, "DataLoader worker (pid 7) is killed by signal: S")
    assert truncated(r"Error while deserializing header: \w+", lambda head: True) is None, "all of it is shared"


def test_an_exception_name_is_not_a_stable_head() -> None:
    from rootcause.core.matching.heads import truncated

    cut = truncated(r"ModuleNotFoundError: No module named 'triton'(?:$|\s)")
    assert cut is not None and cut.startswith("ModuleNotFoundError: No module named 'triton'")


def test_a_line_cut_where_two_entries_still_agree_names_neither(index) -> None:
    for line in ("RuntimeError: cuDNN error: CUDNN_STATUS_", "SafetensorError: Error while deserializing header: M"):
        assert _ids(line, index) == [], line


def test_a_message_wrapped_over_several_lines_is_rejoined(index) -> None:
    message = (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"
    )
    at_80 = "\n".join(message[i : i + 80] for i in range(0, len(message), 80))
    assert at_80.count("\n") == 2 and _ids(at_80, index)[:1] == ["cuda/system-not-yet-initialized-fabric-manager"]
    by_words = (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda\n"
        "functions before calling NumCudaDevices() that might have already set an error?\n"
        "Error 802: system not yet initialized\n"
    )
    found = diagnose_text(by_words, index).findings
    assert [f.id for f in found][:1] == ["cuda/system-not-yet-initialized-fabric-manager"] and found[0].count == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"error": "ModuleNotFoundError: No module named \'torch\'\\n"}',
        '{"detail": "ModuleNotFoundError: No module named \\"torch\\""}'.replace('\\"torch\\"', "'torch'\\n"),
        "  | ModuleNotFoundError: No module named 'torch'",
    ],
)
def test_one_escaped_line_break_in_json_and_a_log_viewers_gutter_are_framing(index, text: str) -> None:
    assert _ids(text, index)[:1] == ["packaging/torch-module-not-found"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ModuleNotFoundError: No module named 'torch.profiler'", ["huggingface/ml-package-cannot-import-name"]),
        ("```\nModuleNotFoundError: No module named 'torch.distributed.pipelining\n```",
         ["huggingface/ml-package-cannot-import-name"]),
        ("ModuleNotFoundError: No module named 'torch._C'", []),  # a broken or shadowed install, not a release
    ],
)  # fmt: skip
def test_a_missing_torch_submodule_is_release_skew_with_or_without_its_closing_quote(index, text, expected) -> None:
    assert _ids(text, index)[:1] == expected


def test_a_head_runs_through_the_name_the_message_is_about() -> None:
    """A head of common words cut before the name it is about (a file, a library) could be any of them."""
    import re2

    from rootcause.core.matching.heads import truncated

    assert truncated(r"No such file or directory: 'cmake'") is None, "cut before 'cmake' it is any missing file"
    cut = truncated(r"Failed to load library libfoo_providers_cuda\.so with error: (?P<error>\S+) cannot open")
    assert cut is not None
    assert re2.search(cut, "Failed to load library libfoo_providers_cuda.so with err")
    assert not re2.search(cut, "Failed to load libra"), "cut before the library's name"
    assert not re2.search(cut, "Failed to load library libother.so with error: x")
    named = truncated(r"No module named 'triton' found in the path given")
    assert named is not None and re2.search(named, "No module named 'triton' fou"), "a head that names it already"


def test_a_head_of_an_errno_message_is_not_cut() -> None:
    """``No such file or directory`` and the C library's other errno messages are every program's: a pattern that
    starts with one and names its object only through a parameter (a path) has no cut form, since a line ending in
    the errno words (``bash: install.sh: No such file or directory``) could be anything."""
    from rootcause.core.matching.heads import truncated

    assert truncated(r"No such file or directory:? '?(?P<path>[^'\s]*zero_pp_rank_\d+_optim_states\.pt)") is None
    assert truncated(r"operation not permitted when stream is capturing") is None
    assert truncated(r"Too many open files\. Communication with the workers is no longer possible") is None
    assert truncated(r"CUDA error: operation not permitted when stream is capturing") is not None, "a stack's own head"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ModuleNotFoundError: No module named 'torchvision'", "packaging/ml-package-not-installed"),
        ("ImportError: No module named 'tokenizers'", "packaging/ml-package-not-installed"),
        (  # trl#6168, a dev case of the corpus
            '  File ".../lib/python3.10/site-packages/trl/trainer/sft_trainer.py", line 401, in __init__\n'
            "    super().__init__(\n"
            "TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'",
            "huggingface/ml-package-unexpected-keyword-argument",
        ),
    ],
)
def test_a_family_name_closed_by_its_quote_at_a_pastes_end_is_whole(index, text: str, expected: str) -> None:
    """A paste's last line with no line break may be cut, and a family's name that is only the start of a specific
    entry's (``'torchvision`` of ``'torchvision.transforms.functional_tensor'``) names neither; its closing quote
    says the name is whole (prec4, famB and famA found these unanswered)."""
    assert _ids(text, index)[:1] == [expected]
    assert _ids(text[:-1], index)[:1] != [expected], "cut inside the name: it may be the specific entry's"


def test_a_head_of_one_identifier_is_not_stable(index) -> None:
    """A status name (``CUBLAS_STATUS_ALLOC_FAILED``) is printed by every caller of the library in its own message:
    a head needs a second run of text, so TensorFlow's cuBLAS lines (tensorflow#7072, Mask-RCNN-series#7) are not
    torch's ``CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)``` cut short."""
    import re2

    from rootcause.core.matching.heads import truncated

    cut = truncated(r"CUBLAS_STATUS_ALLOC_FAILED when calling `?(?P<call>cublas\w+)")
    assert cut is not None
    assert not re2.search(cut, "failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED")
    assert re2.search(cut, "CUBLAS_STATUS_ALLOC_FAILED when call")
    assert truncated(r"CUDA_ERROR_MISALIGNED_ADDRESS") is None
    for line in (
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED",
        "Failed to create cublas handle - CUBLAS_STATUS_ALLOC_FAILED",
    ):
        assert _ids(line, index) == [], line
    assert _ids("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", index)[
        :1
    ] == ["cuda/cublas-status-alloc-failed"]


def test_a_head_holds_words_after_its_last_parameter() -> None:
    """``Load model from X failed:`` is every load failure; what follows the parameter tells them apart."""
    import re2

    from rootcause.core.matching.heads import truncated

    cut = truncated(r"Load model from (?P<path>.+?) failed: ?Protobuf parsing failed")
    assert cut is not None
    assert re2.search(cut, "Load model from /m/model.onnx failed:Protobuf pars")
    assert not re2.search(cut, "Load model from /m/model.onnx failed")
    assert not re2.search(cut, "Load model from /m/model.onnx failed:Fatal error: com.microsoft:Foo(-1) is not a")


def test_a_missing_file_cut_before_its_name_is_no_known_error(index) -> None:
    assert "packaging/cmake-not-found" not in _ids("FileNotFoundError: [Errno 2] No such file or director", index)
    assert _ids("FileNotFoundError: [Errno 2] No such file or directory: 'cmake'", index)[:1] == [
        "packaging/cmake-not-found"
    ]


def test_a_family_is_no_rival_of_its_members_on_a_cut_line(index) -> None:
    """Cut before the words of any member, the line is still the family's; cut where the family and one member
    still agree, the member answers."""
    family, member = "huggingface/ml-package-cannot-import-name", "huggingface/ml-package-import-unknown-location"
    assert _ids("ImportError: cannot import name 'MODEL_TYPE_TO_PEFT_MODEL_MAPPING' from 'peft.m", index)[:1] == [
        family
    ]
    assert _ids("ImportError: cannot import name 'LoraConfig' from 'peft' (unkno", index)[:1] == [member]
    assert _ids("RuntimeError: cuDNN error: CUDNN_STATUS_", index) == [], "two members still agree: neither"


def test_a_traceback_pasted_one_code_span_per_line_is_read_as_a_traceback(index) -> None:
    """Each line in its own backticks (pytorch#2104's shape): the frame's source line keeps its indentation under
    its frame line, so ``from torch._C import *`` is code, not the Windows DLL message cut short."""
    lines = [
        "Traceback (most recent call last):",
        '  File "test.py", line 1, in <module>',
        "    import torch",
        '  File "C:\\Python36\\lib\\site-packages\\torch\\__init__.py", line 78, in <module>',
        "    from torch._C import *",
        "ImportError: numpy.core.multiarray failed to import",
    ]
    d = diagnose_text("\n".join(f"`{line}`" for line in lines) + "\n", index)
    claims = [f.id for f in d.findings if f.matched_by in ("pattern", "lexical")]
    assert claims == ["packaging/numpy-multiarray-import-failed"]


def test_a_frames_source_line_is_not_a_message_cut_short(index) -> None:
    """A traceback cut after a frame's source line stops before its error: that code is no message of its own."""
    paste = '  File "C:\\Python36\\lib\\site-packages\\torch\\__init__.py", line 78, in <module>\n    from torch._C import *'
    assert not diagnose_text(paste, index).matched
    title = "from torch._C import * (ImportError: DLL load failed)"
    assert [f.id for f in diagnose_text(title, index).findings][:1] == ["packaging/windows-torch-c-dll-load-failed"]
