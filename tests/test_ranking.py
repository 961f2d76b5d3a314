"""One test per ranking rule of docs/ranking.md, on small hand-built entries and on the real canon."""

from __future__ import annotations

import pytest
from engine_helpers import index_of, make_entry

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import LEXICAL_THRESHOLD, diagnose_text
from rootcause.core.matching import index as index_module
from rootcause.core.matching.backends import backends_named, other_backend, other_site, sites_named


@pytest.fixture(scope="module")
def canon_index():
    return load_index()


CATCH_ALL = make_entry(
    "t/catch-all",
    r"Traceback \(most recent call last\):\n(?:.*\n)*?(?P<exc>[A-Z]\w*Error): (?P<message>.+)",
    "Traceback (most recent call last):\nValueError: x",
    window=6,
    generic=True,
    catch_all=True,
)
GENERIC = make_entry(
    "t/generic-aborted",
    r"NCCL communicator was aborted on rank (?P<rank>\d+)",
    "RuntimeError: NCCL communicator was aborted on rank 0.",
    generic=True,
)
SPECIFIC = make_entry(
    "t/specific-timeout",
    r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+)",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE",
)
TRACEBACK = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "train.py", line 10, in <module>',
        "    dist.all_reduce(t)",
        '  File "/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 81, in wrapper',
        "    return func(*args, **kwargs)",
        "RuntimeError: NCCL communicator was aborted on rank 1. Original reason for failure was: "
        "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
        "Timeout(ms)=600000) ran for 600009 milliseconds before timing out.",
    ]
)


def test_specific_before_generic_before_catch_all_even_when_the_catch_all_starts_earlier() -> None:
    d = diagnose_text(TRACEBACK, index_of(CATCH_ALL, GENERIC, SPECIFIC))
    assert [f.id for f in d.findings][:1] == ["t/specific-timeout"]
    without_specific = diagnose_text(TRACEBACK, index_of(CATCH_ALL, GENERIC))
    assert [f.id for f in without_specific.findings] == ["t/generic-aborted"], "a catch-all is never a finding"
    assert without_specific.unclassified == [], "the exception line is explained by a finding"


def test_catch_all_alone_is_an_unclassified_exception_not_a_known_error() -> None:
    d = diagnose_text(TRACEBACK, index_of(CATCH_ALL))
    assert d.findings == [] and not d.matched
    [u] = d.unclassified
    assert (u.exception, u.stack, u.frames, u.line) == ("RuntimeError", ["torch"], 2, 6)
    assert u.last_frame is not None and u.last_frame.endswith("c10d_logger.py:81 in wrapper")


def test_catch_all_never_fires_for_a_traceback_outside_the_ml_stack() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/srv/app/views.py", line 4, in get\n    d["b"]\nKeyError: \'b\'\n'
    )
    d = diagnose_text(log, index_of(CATCH_ALL))
    assert d.findings == [] and d.unclassified == []
    in_stack = log.replace("/srv/app/views.py", "/usr/lib/python3/dist-packages/transformers/trainer.py")
    assert [u.stack for u in diagnose_text(in_stack, index_of(CATCH_ALL)).unclassified] == [["transformers"]]


def test_cause_before_symptom_before_wrapper() -> None:
    index = index_of(
        make_entry("t/wrapper", r"ChildFailedError", "ChildFailedError", role="wrapper"),
        make_entry("t/symptom", r"peer went away", "peer went away", role="symptom"),
        make_entry("t/cause", r"illegal memory access", "illegal memory access"),
    )
    log = "ChildFailedError\npeer went away\nCUDA error: an illegal memory access was encountered\n"
    assert [f.id for f in diagnose_text(log, index).findings] == ["t/cause", "t/symptom", "t/wrapper"]


NOTICE = make_entry("t/notice", r"attention mask and the pad token id were not set", "x", role="notice")
NOTICE_LINE = (
    "The attention mask and the pad token id were not set. As a consequence, you may observe unexpected behavior."
)


def test_a_notice_ranks_after_a_cause_printed_later() -> None:
    index = index_of(NOTICE, make_entry("t/cause", r"illegal memory access", "illegal memory access"))
    d = diagnose_text(NOTICE_LINE + "\nCUDA error: an illegal memory access was encountered\n", index)
    assert [f.id for f in d.findings] == ["t/cause", "t/notice"] and d.matched


def test_a_notice_alone_answers_its_own_paste() -> None:
    d = diagnose_text(NOTICE_LINE + "\n", index_of(NOTICE, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/notice"] and d.matched


def test_a_notice_beside_an_exception_no_entry_explains_is_no_known_error() -> None:
    log = NOTICE_LINE + "\n" + TRACEBACK.replace("NCCL communicator was aborted", "shape '[2, -1]' is invalid")
    d = diagnose_text(log, index_of(NOTICE, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/notice"], "the notice is still shown"
    assert not d.matched and "beside an exception no entry explains" in (d.abstain_reason or "")


def test_a_notice_beside_an_error_level_log_line_is_no_known_error() -> None:
    """A failure logged rather than raised (``[ERROR:modelscope] ...``) is still what the job died of."""
    log = NOTICE_LINE + "\n[ERROR:modelscope] The request model: unknown does not exist!\n"
    d = diagnose_text(log, index_of(NOTICE, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/notice"] and not d.matched
    assert "The request model" in (d.abstain_reason or "")
    calm = diagnose_text(NOTICE_LINE + "\nINFO - starting epoch 1 after the failed-batch retry\n", index_of(NOTICE))
    assert calm.matched, "an info line is no failure of its own"


def test_a_pasters_error_label_over_a_notice_is_no_error_of_its_own() -> None:
    """``**Error:**`` above a fenced block (an issue template's heading) labels the paste: the notice under it still
    answers. A bare ``Error:`` that carries a message, or an exception class with its colon, still is an error."""
    index = index_of(NOTICE, CATCH_ALL)
    for label in ("**Error:**", "Error:", "### Error:", "ERROR:", "__Exception:__"):
        d = diagnose_text(f"{label}\n```python\n{NOTICE_LINE}\n```\n", index)
        assert [f.id for f in d.findings] == ["t/notice"] and d.matched, label
    for line in ("Error: the engine core died unexpectedly", "RuntimeError:", "ERROR: the job failed"):
        d = diagnose_text(f"{NOTICE_LINE}\n{line}\n", index)
        assert not d.matched and line[:12] in (d.abstain_reason or ""), line


def test_a_notice_beside_an_nccl_warn_line_is_no_known_error() -> None:
    """NCCL reports its failures at WARN level: a notice (libibverbs missing, the job went on over sockets) beside
    another NCCL WARN line is no answer (nccl-tests#166 shape); an INFO line beside it is no failure."""
    notice = make_entry("t/ibverbs", r"Failed to open libibverbs\.so\[\.1\]", "x", role="notice")
    head = "node1:1234:1234 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
    warn = "node1:1234:1234 [0] NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='')\n"
    d = diagnose_text(head + warn, index_of(notice, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/ibverbs"] and not d.matched
    assert "Failed to find CUDA library" in (d.abstain_reason or "")
    calm = diagnose_text(
        head + "node1:1234:1234 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n", index_of(notice)
    )
    assert calm.matched


def test_a_notice_beside_an_uncaught_cxx_exception_is_no_known_error() -> None:
    """A C++ exception no handler caught aborts the process (libstdc++'s ``terminate called after throwing ...``, then
    ``what():``): a warning printed before it is no answer (TensorRT-LLM#435 shape)."""
    index = index_of(NOTICE, CATCH_ALL)
    crash = (
        "terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n"
        "  what():  [TensorRT-LLM][ERROR] Assertion failed: No valid SQ GEMM tactic (/src/plugin.cpp:468)\n"
    )
    d = diagnose_text(NOTICE_LINE + "\n" + crash, index)
    assert [f.id for f in d.findings] == ["t/notice"] and not d.matched
    assert "terminate called" in (d.abstain_reason or "")


@pytest.mark.parametrize(
    "death",
    [
        "Killed",
        "Aborted (core dumped)",
        "Segmentation fault (core dumped)",
        "Fatal Python error: Segmentation fault",
        "Bus error (core dumped)",
        "Illegal instruction (core dumped)",
        "Floating point exception (core dumped)",
        "free(): invalid pointer",
        "double free or corruption (!prev)",
        "[1]+  Killed                  python train.py",
        "[1]    12345 killed     python train.py",
        "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)",
    ],
)
@pytest.mark.parametrize("hyperscan", [True, False])
def test_a_notice_before_the_process_died_is_no_known_error(
    monkeypatch: pytest.MonkeyPatch, death: str, hyperscan: bool
) -> None:
    """The job died (a fatal signal, CPython's fatal error, glibc's heap check): the warning printed before it is not
    what killed it."""
    if not hyperscan:
        monkeypatch.setattr(index_module, "hyperscan", None)
    d = diagnose_text(NOTICE_LINE + "\n" + death + "\n", index_of(NOTICE, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/notice"] and not d.matched, death
    assert death.split()[-1][:6] in (d.abstain_reason or ""), d.abstain_reason


def test_a_notice_beside_words_about_killing_still_answers() -> None:
    calm = "killed the old run and restarted it with a smaller batch"
    assert diagnose_text(NOTICE_LINE + "\n" + calm + "\n", index_of(NOTICE, CATCH_ALL)).matched


def test_a_notice_beside_a_build_tools_error_line_is_no_known_error() -> None:
    """An extension build that printed torch's compiler warnings and then died in ninja or the compiler
    (xformers#608: ``ninja: error: ...`` after two cpp_extension warnings) died of that error, which no entry knows."""
    index = index_of(NOTICE, CATCH_ALL)
    for line in (
        "ninja: error: 'E:/PyCharmProjects/xformers/third_party/flash-attention/csrc/flash_attn/src/fmha_fwd.cu'",
        "error: command 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin\\nvcc.exe' failed",
        'csrc/kernel.cu(42): error: identifier "__hfma2" is undefined',
    ):
        d = diagnose_text(NOTICE_LINE + "\n" + line + "\n", index)
        assert [f.id for f in d.findings] == ["t/notice"] and not d.matched, line
        assert line[:30] in (d.abstain_reason or ""), d.abstain_reason
    calm = "Compiling objects... ninja: no work to do; the error count is 0"
    assert diagnose_text(NOTICE_LINE + "\n" + calm + "\n", index).matched


def test_a_notice_ranks_after_a_family_cause() -> None:
    """A notice is the answer only when nothing else failed: a family entry's cause (any ML package's missing
    attribute) still comes first, though a family ranks below every specific entry otherwise."""
    family = make_entry(
        "t/family",
        r"module '(?P<package>demo_pkg)' has no attribute '(?P<name>\w+)'",
        "AttributeError: module 'demo_pkg' has no attribute 'fit'",
        generic=True,
        family=True,
    )
    d = diagnose_text(
        NOTICE_LINE + "\nAttributeError: module 'demo_pkg' has no attribute 'fit'\n", index_of(NOTICE, family)
    )
    assert [f.id for f in d.findings] == ["t/family", "t/notice"] and d.matched


def test_a_notice_beside_a_log_header_of_error_level_is_no_known_error() -> None:
    """The level may be in the header that cleaning strips (DeepSpeed's ``[date] [ERROR] [launch.py:...]``, glog's
    ``E1202 ...``): it is read from the raw line (deepspeed#4000: a launcher killed by SIGKILL after a warning). An
    INFO header is not an error; a long hostile line is read no further than a header's length."""
    index = index_of(NOTICE, CATCH_ALL)
    sigkill = (
        "[2023-07-20 15:45:13,982] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', "
        "'--local_rank=1'] exits with return code = -7\n"
    )
    glog = "[E1202 13:13:37.486 process.cpp:17] worker 3 failed with an unknown error\n"
    for line in (sigkill, glog):
        d = diagnose_text(NOTICE_LINE + "\n" + line, index)
        assert [f.id for f in d.findings] == ["t/notice"] and not d.matched, line
        assert line.split("]")[0] in (d.abstain_reason or ""), d.abstain_reason
    info = sigkill.replace("[ERROR]", "[INFO]")
    assert diagnose_text(NOTICE_LINE + "\n" + info, index).matched
    hostile = "[" * 60_000 + " 1" * 2_000 + "\n"
    assert diagnose_text(NOTICE_LINE + "\n" + hostile, index).matched


def test_a_notice_beside_a_traceback_cut_before_its_exception_is_no_known_error() -> None:
    ipython = (
        "-" * 75 + "\nRuntimeError                              Traceback (most recent call last)\nCell In[3], line 11"
    )
    d = diagnose_text(NOTICE_LINE + "\n" + ipython + "\n", index_of(NOTICE, CATCH_ALL))
    assert [f.id for f in d.findings] == ["t/notice"] and not d.matched
    assert "RuntimeError" in (d.abstain_reason or "")
    plain = diagnose_text(
        NOTICE_LINE + '\nTraceback (most recent call last):\n  File "a.py", line 1\n', index_of(NOTICE)
    )
    assert not plain.matched


WHEEL = make_entry("t/wheel", r"Failed building wheel for (?P<package>\S+)", "x", role="wrapper")
COMPILE_ERROR = (
    "/opt/torch/include/ATen/core/boxing/impl/make_boxed_from_unboxed_functor.h:203:37: error: static assertion "
    "failed: You tried to register a kernel with an unsupported\n  error: command 'gcc' failed with exit status 1\n"
)


def test_a_wrapper_beside_a_compile_error_no_entry_explains_is_no_known_error() -> None:
    d = diagnose_text(COMPILE_ERROR + "  ERROR: Failed building wheel for transformer-engine\n", index_of(WHEEL))
    assert [f.id for f in d.findings] == ["t/wheel"], "the wrapper is still shown"
    assert not d.matched and "static assertion failed" in (d.abstain_reason or "")
    alone = diagnose_text("  ERROR: Failed building wheel for transformer-engine\n", index_of(WHEEL))
    assert alone.matched, "a wrapper alone still answers"
    cause = make_entry("t/cause", r"static assertion failed: You tried to register a kernel", "x")
    explained = diagnose_text(COMPILE_ERROR + "ERROR: Failed building wheel for te\n", index_of(WHEEL, cause))
    assert explained.matched and explained.findings[0].id == "t/cause"


RAY_TASK = make_entry("t/ray-task", r"RayTaskError(?:\((?P<exc>\w+)\))?", "x", role="wrapper")


@pytest.mark.parametrize(
    ("wrapper", "lines", "cause"),
    [
        # the task's own exception printed without a traceback (Ray_Tutorial#7 shape)
        (
            RAY_TASK,
            "ray.exceptions.RayTaskError(ZeroDivisionError): ray::compute() (pid=42)\nZeroDivisionError: division by zero\n",
            "division by zero",
        ),
        # pip's reason for stopping above its build summary (pyg#1505 shape)
        (
            WHEEL,
            "ERROR: Could not find a version that satisfies the requirement torch-scatter==2.0.9 (from versions: none)\nERROR: Failed building wheel for torch-scatter\n",
            "Could not find a version",
        ),
        (
            WHEEL,
            "  Running setup.py install\n    ModuleNotFoundError: No module named 'pkgconfig'\n  ERROR: Failed building wheel for x\n",
            "pkgconfig",
        ),
        # the compiler driver killed (the OOM killer during a parallel build), above setuptools' command exit
        (
            WHEEL,
            "      gcc: fatal error: Killed signal terminated program cc1plus\n      compilation terminated.\n"
            "      error: command '/usr/bin/gcc' failed with exit code 1\n  ERROR: Failed building wheel for flash-attn\n",
            "Killed signal",
        ),
        # the build's process killed (the OOM killer), inside pip's output
        (WHEEL, "      Killed\n  ERROR: Failed building wheel for flash-attn\n", "Killed"),
        # a setup.py's own download failing inside pip's build: setuptools' ``error:`` line
        (
            WHEEL,
            "      error: Remote end closed connection without response\n      [end of output]\n"
            "  ERROR: Failed building wheel for flash-attn\n",
            "Remote end closed",
        ),
        # argparse's exit line in a worker's output (pytorch/serve#1234)
        (
            make_entry("t/worker-died", r"Backend worker process died", "x", role="wrapper"),
            "MODEL_LOG - model_service_worker.py: error: unrecognized arguments: --sock-type unix\n"
            "MODEL_LOG - Backend worker process died.\n",
            "unrecognized arguments",
        ),
    ],
)
def test_a_wrapper_beside_an_error_line_no_entry_explains_is_no_known_error(wrapper, lines: str, cause: str) -> None:
    d = diagnose_text(lines, index_of(wrapper))
    assert [f.id for f in d.findings] == [wrapper.id], "the wrapper is still shown"
    assert not d.matched and cause in (d.abstain_reason or "")


def test_a_wrapper_and_a_notice_beside_an_error_line_no_entry_explains_is_no_known_error() -> None:
    # a compiler check's warning (a notice: the build may go on), then the build step's own error and pip's summary
    # (PromtEngineer/localGPT#251's shape): neither the notice nor the wrapper names the error the build died of
    check = make_entry("t/check", r"Error checking compiler version for (?P<compiler>[^\s:]+)", "x", role="notice")
    lines = (
        "UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file specified\n"
        "      error: [WinError 2] The system cannot find the file specified\n"
        "  ERROR: Failed building wheel for auto-gptq\n"
    )
    d = diagnose_text(lines, index_of(WHEEL, check))
    assert sorted(f.id for f in d.findings) == ["t/check", "t/wheel"], "both are still shown"
    assert not d.matched and "WinError 2" in (d.abstain_reason or "")
    assert diagnose_text(lines.replace("      error: [WinError 2] The system cannot find the file specified\n", ""),
                         index_of(WHEEL, check)).matched  # fmt: skip


@pytest.mark.parametrize(
    "lines",
    [
        # old pips prefix a build's own output with ERROR:, which says nothing of the cause (horovod#1507)
        "    ERROR: Complete output from command /usr/bin/python3 -u -c 'import setuptools' install:\n    ERROR: running install\n  ERROR: Failed building wheel for horovod\n",
        # a compiler driver's failure is the wrapper's own (the compiler's lines would be the cause)
        "distutils.errors.CompileError: command '/usr/bin/gcc' failed with exit code 1\n  ERROR: Failed building wheel for x\n",
        "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n  ERROR: Failed building wheel for x\n",
        # pip's own codes, a command's exit and cargo's summary wrap the lines above them
        "  error: subprocess-exited-with-error\n  ERROR: Failed building wheel for x\n",
        "      error: command 'gcc' failed with exit status 1\n  ERROR: Failed building wheel for x\n",
        "      error: could not compile `tokenizers` due to previous error\n  ERROR: Failed building wheel for x\n",
    ],
)
def test_a_wrapper_beside_only_its_own_noise_still_answers(lines: str) -> None:
    d = diagnose_text(lines, index_of(WHEEL))
    assert d.matched and [f.id for f in d.findings] == ["t/wheel"]


LAZY = make_entry(
    "t/lazy",
    r"Failed to import (?P<module>transformers(?:\.\w+)+) because of the following error \(look up to see its traceback\):?\s*$",
    "x",
    role="wrapper",
)
LAZY_LINE = "RuntimeError: Failed to import transformers.models.llama.modeling_llama because of the following error (look up to see its traceback):\n"


@pytest.mark.parametrize(
    "inner",
    [
        "'_OpNamespace' object has no attribute 'lift_fresh'\n",  # Consistent4D#8: str(e) without its class
        "[Errno 13] Permission denied: '/home/u/.cache/huggingface/modules/lock'\n",  # hermes-llava#3
        "> Another metric with the same name already exists.\n",  # transformers#34596, quoted
    ],
)
@pytest.mark.parametrize("hyperscan", [True, False])
def test_a_lazy_modules_inner_error_on_the_next_line_is_a_cause_beside_it(
    monkeypatch: pytest.MonkeyPatch, inner: str, hyperscan: bool
) -> None:
    """transformers' and diffusers' lazy modules put the inner error's message, without its class, on the line after
    ``(look up to see its traceback):``: no entry explains it, so the wrapper is no answer (famA)."""
    if not hyperscan:
        monkeypatch.setattr(index_module, "hyperscan", None)
    index = index_of(LAZY)
    assert (index.hs_db is not None) == hyperscan
    d = diagnose_text("> " * inner.startswith(">") + LAZY_LINE + inner, index)
    assert [f.id for f in d.findings] == ["t/lazy"], "the wrapper is still shown"
    assert not d.matched and inner.strip("> \n")[:30] in (d.abstain_reason or "")
    nested = LAZY_LINE + LAZY_LINE.removeprefix("RuntimeError: ")
    assert diagnose_text(nested, index).matched, "nested wrappers and no inner line: the wrapper answers"


def test_pattern_before_lexical() -> None:
    lexical_only = make_entry(
        "t/lexical",
        r"^never matches this pattern$",
        "RuntimeError: DataLoader worker exited unexpectedly with exit code 1 while prefetching batches",
    )
    exact = make_entry("t/exact", r"Segmentation fault in worker", "Segmentation fault in worker")
    log = "RuntimeError: DataLoader worker exited unexpectedly with exit code 1 while prefetching batches\nSegmentation fault in worker\n"
    d = diagnose_text(log, index_of(lexical_only, exact))
    assert [(f.id, f.matched_by) for f in d.findings] == [("t/exact", "pattern"), ("t/lexical", "lexical")]


def test_earliest_first_among_equals() -> None:
    index = index_of(
        make_entry("t/a", r"alpha failed", "alpha failed"), make_entry("t/b", r"beta failed", "beta failed")
    )
    assert [f.id for f in diagnose_text("beta failed\nalpha failed\n", index).findings] == ["t/b", "t/a"]
    assert [f.id for f in diagnose_text("alpha failed\nbeta failed\n", index).findings] == ["t/a", "t/b"]


FAMILY = make_entry(
    "t/cuda-error-family",
    r"CUDA error(?: \((?P<site>[^)]*)\))?: (?P<message>[a-z][\w ]*\w)",
    "CUDA error: invalid argument",
    generic=True,
    family=True,
)
GENERIC_ASSERT = make_entry(
    "t/device-side-assert",
    r"device-side assert triggered",
    "CUDA error: device-side assert triggered",
    generic=True,
)
NO_KERNEL = make_entry(
    "t/no-kernel-image",
    r"no kernel image is available for execution on the device",
    "CUDA error: no kernel image is available for execution on the device",
)


def test_a_family_entry_ranks_below_the_specific_member_and_never_hides_its_cut_form() -> None:
    index = index_of(FAMILY, NO_KERNEL)
    full = diagnose_text("CUDA error: no kernel image is available for execution on the device", index)
    assert [f.id for f in full.findings] == ["t/no-kernel-image"], "the family is redundant under its member"
    cut = diagnose_text("CUDA error (hopper/flash_fwd_launch_template.h:188): no kernel image is available for", index)
    assert [f.id for f in cut.findings] == ["t/no-kernel-image"], "the family's full match keeps the cut form"
    generic = diagnose_text("CUDA error: device-side assert triggered", index_of(FAMILY, GENERIC_ASSERT))
    assert [f.id for f in generic.findings] == ["t/device-side-assert"], "a family ranks below a generic entry too"
    other = diagnose_text("CUDA error: invalid configuration argument", index)
    assert [(f.id, f.params.get("message")) for f in other.findings] == [
        ("t/cuda-error-family", "invalid configuration argument")
    ]


def test_real_canon_family_line_stays_open_to_a_specific_lexical_claim(canon_index) -> None:
    line = "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"
    d = diagnose_text(line, canon_index)
    assert [f.id for f in d.findings] == ["cuda/illegal-memory-access"], "the family is redundant under its member"
    other = diagnose_text("RuntimeError: Triton Error [CUDA]: invalid argument", canon_index)
    assert [(f.id, f.params.get("message")) for f in other.findings] == [
        ("cuda/cuda-runtime-error-code", "invalid argument")
    ]


def test_backends_named_by_whole_words() -> None:
    assert backends_named("ProcessGroupGloo.cpp: Gloo connectFullMesh failed") == {"gloo"}
    assert backends_named("NCCL WARN Call to connect returned Connection refused") == {"nccl"}
    assert backends_named("the glooming model") == frozenset()
    assert other_backend("gloo timed out", "NCCL watchdog timed out")
    assert not other_backend("collective timed out", "NCCL watchdog timed out")
    assert not other_backend("gloo timed out", "Timed out waiting for recv operation")


def test_lexical_stage_never_claims_an_entry_of_another_backend() -> None:
    nccl = make_entry(
        "t/nccl-watchdog",
        r"^pattern that the gloo line does not match$",
        "NCCL watchdog caught collective operation timeout while the AllReduce ran too long",
    )
    line = "Gloo watchdog caught collective operation timeout while the AllReduce ran too long"
    d = diagnose_text(line, index_of(nccl))
    assert not d.matched and d.findings == []
    assert [c.id for c in d.nearest] == ["t/nccl-watchdog"], "offered as nearest, not claimed"
    same_backend = diagnose_text(line.replace("Gloo", "NCCL"), index_of(nccl))
    assert [f.id for f in same_backend.findings] == ["t/nccl-watchdog"]
    assert same_backend.findings[0].score >= LEXICAL_THRESHOLD


def test_real_canon_gives_no_nccl_entry_for_a_gloo_line(canon_index) -> None:
    line = (
        "[Rank 0] Gloo watchdog caught collective operation timeout: WorkGloo(SeqNum=35, OpType=ALLREDUCE, "
        "Timeout(ms)=1800000) ran for 1800366 milliseconds before timing out."
    )
    d = diagnose_text(line, canon_index)
    assert not any("nccl" in f.id for f in d.findings if f.matched_by == "lexical"), [f.id for f in d.findings]


def test_real_canon_catch_all_is_never_a_finding(canon_index) -> None:
    log = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3, in f',
            "    dist.all_reduce(t)",
            "RuntimeError: NCCL communicator was aborted on rank 3.",
        ]
    )
    d = diagnose_text(log, canon_index)
    assert [f.id for f in d.findings] == ["pytorch/nccl-communicator-aborted"] and d.unclassified == []
    keyerror = diagnose_text(
        log.replace("RuntimeError: NCCL communicator was aborted on rank 3.", "KeyError: 'b'"), canon_index
    )
    assert keyerror.findings == [] and [u.exception for u in keyerror.unclassified] == ["KeyError"]


def test_ai_generated_entry_never_ranks_above_a_grounded_entry_it_is_linked_to() -> None:
    ai = make_entry("t/ai", r"collective timed out", "allreduce collective timed out", verification="ai_generated")
    grounded = make_entry(
        "t/grounded",
        r"allreduce",
        "allreduce collective timed out",
        verification="community",
        related=[{"id": "t/ai", "type": "same-as"}],
    )
    unlinked = make_entry("t/unlinked", r"allreduce", "allreduce collective timed out", verification="community")
    line = "allreduce collective timed out\n"
    assert [f.id for f in diagnose_text(line, index_of(ai, grounded)).findings] == ["t/grounded", "t/ai"]
    assert [f.id for f in diagnose_text(line, index_of(ai, unlinked)).findings] == ["t/ai", "t/unlinked"]
    assert [f.verification for f in diagnose_text(line, index_of(ai, grounded)).findings] == [
        "community",
        "ai_generated",
    ]


def test_real_canon_headline_error_shows_the_grounded_entry_first(canon_index) -> None:
    line = (
        "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=2511984, OpType=ALLREDUCE, Timeout(ms)=1800000) ran "
        "for 1809553 milliseconds before timing out."
    )
    ids = [f.id for f in diagnose_text(line, canon_index).findings]
    assert ids.index("pytorch/nccl-watchdog-timeout-legacy") < ids.index("pytorch/nccl-timeout-allreduce"), ids


def test_sites_named_by_url_host() -> None:
    assert sites_named("429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/x") == {
        "huggingface.co"
    }
    assert sites_named("Client error '429 Too Many Requests' for url 'https://api.openai.com/v1/chat'") == {
        "openai.com"
    }
    assert sites_named("429 Too Many Requests") == frozenset()
    assert other_site("for url: https://api.github.com/repos/a/b", "for url: https://huggingface.co/x")
    assert not other_site("for url: https://cdn-lfs.huggingface.co/x", "for url: https://huggingface.co/x")
    assert not other_site("429 Too Many Requests", "for url: https://huggingface.co/x")


def test_lexical_stage_never_claims_an_entry_for_another_site() -> None:
    hub = make_entry(
        "t/hub-429",
        r"^pattern that the other line does not match$",
        "HTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/bert/resolve/main/config.json",
    )
    line = (
        "HTTPError: 429 Client Error: Too Many Requests for url: https://api.github.com/bert/resolve/main/config.json"
    )
    d = diagnose_text(line, index_of(hub))
    assert not d.matched and d.findings == []
    assert [c.id for c in d.nearest] == ["t/hub-429"], "offered as nearest, not claimed"
    same_site = diagnose_text(line.replace("api.github.com", "huggingface.co"), index_of(hub))
    assert [f.id for f in same_site.findings] == ["t/hub-429"]
    assert same_site.findings[0].score >= LEXICAL_THRESHOLD


def test_real_canon_gives_no_hub_entry_for_another_services_429(canon_index) -> None:
    line = (
        "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.github.com/repos/a/b"
    )
    d = diagnose_text(line, canon_index)
    assert not any(f.id.startswith("huggingface/") for f in d.findings)
    hub = line.replace("api.github.com/repos/a/b", "huggingface.co/api/models/a/b")
    assert "huggingface/hub-rate-limited-429" in [f.id for f in diagnose_text(hub, canon_index).findings]


# transformers#11728 and vllm#1054: cudaErrorOperatingSystem (304), which shares its words with cudaErrorNotSupported
# (801, `cuda/operation-not-supported`) but is another error
OS_CALL_LINE = "RuntimeError: CUDA error: OS call failed or operation not supported on this OS"


def test_a_pattern_outranks_a_lexical_claim_on_the_same_line(canon_index) -> None:
    d = diagnose_text(OS_CALL_LINE + "\n", canon_index)
    first = d.findings[0]
    assert (first.id, first.matched_by) == ("cuda/cuda-runtime-error-code", "pattern"), [f.id for f in d.findings]
    assert first.params.get("message") == "OS call failed or operation not supported on this OS"
    below = [f.id for f in d.findings[1:] if f.matched_by == "lexical"]
    assert below in ([], ["cuda/operation-not-supported"]), "a lexical claim on the line is listed below, if at all"


def test_a_lexical_claim_never_hides_a_familys_pattern_on_the_same_line() -> None:
    lexical = make_entry(
        "t/operation-not-supported",
        r"^never matches this pattern$",
        "RuntimeError: CUDA error: operation not supported on this device while sharing memory",
    )
    line = "RuntimeError: CUDA error: call failed or operation not supported on this device while sharing memory"
    d = diagnose_text(line + "\n", index_of(FAMILY, lexical))
    assert [(f.id, f.matched_by) for f in d.findings] == [
        ("t/cuda-error-family", "pattern"),
        ("t/operation-not-supported", "lexical"),
    ]


def test_a_line_cut_from_an_entrys_own_message_keeps_its_lexical_claim_above_the_family(canon_index) -> None:
    """Not a guess: a title cut inside the path of Ray's working_dir copy runs on in that entry's own message only
    (OpenRLHF#743's message), so the family's `cannot import name` match does not outrank it."""
    cut = (
        "ImportError: cannot import name 'Dataset' from 'datasets' "
        "(/tmp/ray/session_2024-08-02_01-48-35_552077_40933/runtime_resources/working_dir_fi"
    )
    d = diagnose_text(cut, canon_index)
    assert [(f.id, f.matched_by) for f in d.findings] == [("ray/working-dir-shadows-package", "lexical")]


# a launcher's wrapper printed after the cause it wraps: accelerate's simple_launcher lines of axolotl#1571 (the
# shape of axolotl#945), after an ImportError that the `cannot import name` family explains
LAUNCHED = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/workspace/axolotl/src/axolotl/cli/train.py", line 5, in <module>',
        "    from axolotl.train import train",
        "ImportError: cannot import name 'is_npu_available' from 'accelerate.utils' "
        "(/usr/local/lib/python3.10/dist-packages/accelerate/utils/__init__.py)",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/accelerate", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.10/dist-packages/accelerate/commands/launch.py", line 673, in simple_launcher',
        "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)",
        "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'axolotl.cli.train', "
        "'/content/test_axolotl.yaml']' returned non-zero exit status 1.",
    ]
)


def test_a_family_cause_ranks_before_a_generic_wrapper_around_it(canon_index) -> None:
    d = diagnose_text(LAUNCHED + "\n", canon_index)
    assert [f.id for f in d.findings][:2] == [
        "huggingface/ml-package-cannot-import-name",
        "huggingface/accelerate-launch-subprocess-failed",
    ]
    assert d.matched and d.findings[0].params.get("package") == "accelerate"


def test_a_wrapper_ranks_below_a_cause_of_any_tier() -> None:
    family = make_entry(
        "t/import-family",
        r"cannot import name '(?P<name>\w+)' from '(?P<package>accelerate|transformers)",
        "ImportError: cannot import name 'x' from 'transformers'",
        generic=True,
        family=True,
    )
    generic_wrapper = make_entry(
        "t/launcher-failed", r"CalledProcessError: Command", "CalledProcessError: Command", generic=True, role="wrapper"
    )
    specific_wrapper = make_entry("t/child-failed", r"ChildFailedError", "ChildFailedError", role="wrapper")
    log = "ImportError: cannot import name 'y' from 'transformers'\nChildFailedError\nCalledProcessError: Command\n"
    d = diagnose_text(log, index_of(family, generic_wrapper, specific_wrapper))
    assert [f.id for f in d.findings] == ["t/import-family", "t/child-failed", "t/launcher-failed"]
    alone = diagnose_text("CalledProcessError: Command\n", index_of(family, generic_wrapper))
    assert [f.id for f in alone.findings] == ["t/launcher-failed"] and alone.matched, "a wrapper alone still answers"


def test_nccls_own_cause_after_last_error_ranks_before_torchs_error_code_entry(canon_index) -> None:
    """torch's NCCL error-code entries are generic (a class of failures): the cause NCCL printed after `Last error:`
    names the failure (pytorch#115810's shape)."""
    log = "\n".join(
        [
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, "
            "internal error - please report this issue to the NCCL developers, NCCL version 2.18.1",
            "ncclInternalError: Internal check failed.",
            "Last error:",
            "Bootstrap : no socket interface found",
        ]
    )
    ids = [f.id for f in diagnose_text(log + "\n", canon_index).findings]
    assert ids[:2] == ["nccl/bootstrap-no-socket-interface", "pytorch/nccl-internal-error"], ids
