"""The located tier: lines no entry claims, located in the message atlas (a fixture of real messages)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from atlas_support import TEMPLATES, fixture_index, write_fixture_atlas
from testkit import run_cli

from rootcause.adapters.loading import load_index
from rootcause.core.atlas import locate as locate_module
from rootcause.core.atlas.extract import build_pattern, printf_parts
from rootcause.core.atlas.locate import MAX_LINES, MAX_LOCATED, AtlasIndex, continues
from rootcause.core.atlas.model import Template, TemplateKind
from rootcause.core.atlas.versions import has_it
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.render.diagnosis_html import render_diagnosis_html
from rootcause.core.render.diagnosis_view import diagnosis_markdown

DEVICE_MAP = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 12, in <module>\n'
    '    model = AutoModelForCausalLM.from_pretrained(name, device_map="gpu")\n'
    "ValueError: If passing a string for `device_map`, please choose 'auto', 'balanced', 'balanced_low_0' or 'sequential'.\n"
)
BNB = "ImportError: Using `bitsandbytes` 8-bit quantization requires accelerate: `pip install 'accelerate>=0.26.0'`\n"


@pytest.fixture(scope="module")
def atlas(tmp_path_factory: pytest.TempPathFactory) -> AtlasIndex:
    return fixture_index(tmp_path_factory.mktemp("atlas"))


@pytest.fixture(scope="module")
def index():
    return load_index()


def test_an_unclaimed_line_is_located_with_its_release_facts(index, atlas: AtlasIndex) -> None:
    d = diagnose_text(DEVICE_MAP, index, atlas=atlas)
    assert not d.matched  # located is not a known error
    [item] = d.located
    template = TEMPLATES[0]
    assert (item.package, item.module, item.function) == (template.package, template.module, template.function)
    assert (item.kind, item.exception, item.module_line) == ("raise", "ValueError", template.line)
    assert (item.first, item.last) == (template.releases[0].first, template.releases[-1].last)
    assert item.source_url == template.source_url
    assert item.line == 4 and item.text.startswith("ValueError: If passing a string for `device_map`")
    assert (
        item.family == "configuration"
    )  # a ValueError: the message rejects a value and item.checks and item.checks_zh
    assert item.installed_has_it is None


def test_parameters_are_captured(atlas: AtlasIndex) -> None:
    [item] = atlas.locate([("<t>", 1, BNB, BNB.strip())])  # (a canon entry claims this line in a diagnosis)
    assert item.params == {"p0": "0.26.0"} and item.package == "transformers"
    [cut] = atlas.locate([("<t>", 1, BNB, BNB[:100])])  # a paste cut inside the parameter still matches
    assert cut.module == TEMPLATES[2].module


@pytest.mark.parametrize(
    ("version", "expected"), [("4.30.0", True), ("4.40.2", True), ("4.50.0", False), ("4.40.0+local", True)]
)
def test_installed_has_it_follows_the_intervals(index, atlas: AtlasIndex, version: str, expected: bool) -> None:
    [item] = diagnose_text(DEVICE_MAP, index, {"transformers": version}, atlas=atlas).located
    assert item.installed == version and item.installed_has_it is expected


def test_version_checks_of_intervals() -> None:
    intervals = [("2.0.1", "2.1.2"), ("2.3.1", "2.5.1")]
    assert has_it(intervals, "2.4.0") is True
    assert has_it(intervals, "2.2.1") is False
    assert has_it(intervals, "2.1.3") is None  # a patch of a bounding minor release the atlas did not read
    assert has_it(intervals, "not a version") is None
    assert has_it(intervals, "1.13.1") is False


def test_a_line_a_canon_entry_claims_is_not_repeated(index, atlas: AtlasIndex) -> None:
    text = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )
    d = diagnose_text(text, index, atlas=atlas)
    assert d.findings and d.located == []


def test_another_exception_class_than_the_templates_is_not_located(index, atlas: AtlasIndex) -> None:
    text = DEVICE_MAP.replace("ValueError:", "KeyError:")
    assert diagnose_text(text, index, atlas=atlas).located == []


def test_work_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"Default process group number {n} has not been initialized" for n in range(5000)]
    atlas = AtlasIndex.from_templates(
        [TEMPLATES[3].model_copy(update={"pattern": t, "literal": t}) for t in texts[: 2 * MAX_LOCATED]]
    )
    lines = [("<t>", n, f"ValueError: {t}", f"ValueError: {t}") for n, t in enumerate(texts, 1)]
    assert len(atlas.locate(lines)) == MAX_LOCATED
    calls = []
    original = AtlasIndex.match_line
    monkeypatch.setattr(AtlasIndex, "match_line", lambda self, text, *_: calls.append(text))
    atlas.locate(lines)
    assert len(calls) == MAX_LINES
    monkeypatch.setattr(AtlasIndex, "match_line", original)


def test_without_hyperscan_the_word_prefilter_locates_the_same(monkeypatch: pytest.MonkeyPatch, index) -> None:
    monkeypatch.setattr(locate_module, "hyperscan", None)
    plain = AtlasIndex.from_templates(TEMPLATES)
    assert plain.hs_db is None
    [item] = diagnose_text(DEVICE_MAP, index, atlas=plain).located
    assert item.package == "transformers"
    [item] = plain.locate([("<t>", 1, BNB, BNB.strip())])
    assert item.params == {"p0": "0.26.0"}


def test_the_cached_payload_gives_the_same_index(atlas: AtlasIndex, index) -> None:
    again = AtlasIndex.from_payload(atlas.payload())
    assert (
        diagnose_text(DEVICE_MAP, index, atlas=again).located == diagnose_text(DEVICE_MAP, index, atlas=atlas).located
    )


def test_renderers_show_a_known_message_with_no_reviewed_entry(index, atlas: AtlasIndex) -> None:
    d = diagnose_text(DEVICE_MAP, index, atlas=atlas)
    md = diagnosis_markdown(d)
    assert "## Known message, no reviewed entry" in md and "transformers 4.20.0–4.40.2" in md and ".py:3600" in md
    html = render_diagnosis_html(d)
    assert "Known message, no reviewed entry" in html and 'lang="zh"' in html and TEMPLATES[0].source_url in html


def test_cli_exits_1_when_only_located_answers_and_flags_turn_it_off(tmp_path: Path) -> None:
    path = write_fixture_atlas(tmp_path / "atlas.sqlite")
    result = run_cli("diagnose", "-f", "json", "--atlas", str(path), "--env", "transformers==4.50.0", stdin=DEVICE_MAP)
    assert result.returncode == 1, result.stderr
    [item] = json.loads(result.stdout)["located"]
    assert item["package"] == "transformers" and item["installed_has_it"] is False
    text = run_cli("diagnose", "--atlas", str(path), stdin=DEVICE_MAP)
    assert text.returncode == 1 and "Known message, no reviewed entry" in text.stdout
    by_env = run_cli("diagnose", "-f", "json", stdin=DEVICE_MAP, env={"ROOTCAUSE_ATLAS": str(path)})
    assert len(json.loads(by_env.stdout)["located"]) == 1
    off = run_cli("diagnose", "-f", "json", "--no-atlas", stdin=DEVICE_MAP, env={"ROOTCAUSE_ATLAS": str(path)})
    assert json.loads(off.stdout)["located"] == []


def test_a_missing_atlas_file_is_a_one_line_usage_error(tmp_path: Path) -> None:
    result = run_cli("diagnose", "--atlas", str(tmp_path / "nope.sqlite"), stdin=DEVICE_MAP)
    assert result.returncode == 2
    assert (
        "--atlas" in result.stderr and "nope.sqlite" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    )


def test_the_atlas_is_cached_on_disk_and_a_damaged_cache_is_rebuilt(tmp_path: Path, index, monkeypatch) -> None:
    from rootcause.adapters.atlas import held
    from rootcause.adapters.atlas.held import forget_atlas, load_atlas

    monkeypatch.setenv("ROOTCAUSE_CACHE_DIR", str(tmp_path / "cache"))
    path = write_fixture_atlas(tmp_path / "atlas.sqlite")
    first = diagnose_text(DEVICE_MAP, index, atlas=load_atlas(path)).located
    [folder] = (tmp_path / "cache").glob("atlas-index-*")
    assert (folder / "rows.bin").is_file() and (folder / "index.pickle").is_file()
    forget_atlas()

    def unread(path: Path) -> list:
        raise AssertionError("the atlas file was read again: the cache was not used")

    with monkeypatch.context() as m:
        m.setattr(held, "load_templates", unread)
        assert diagnose_text(DEVICE_MAP, index, atlas=load_atlas(path)).located == first  # from the cache
    (folder / "index.pickle").write_bytes(b"not a pickle")
    forget_atlas()
    assert diagnose_text(DEVICE_MAP, index, atlas=load_atlas(path)).located == first  # rebuilt
    forget_atlas()


PAD_ADVICE = (
    "  warnings.warn(\n"
    "You're using a LlamaTokenizerFast tokenizer. Please note that with a fast tokenizer, using the `__call__` method"
    " is faster than using a method to encode the text followed by a call to the `pad` method to get a padded "
    "encoding.\n"
    "    collated = collator(batch)\n"
)


def test_a_log_line_of_a_small_paste_is_located(index, atlas: AtlasIndex) -> None:
    [item] = diagnose_text(PAD_ADVICE, index, atlas=atlas).located
    assert (item.package, item.kind, item.exception, item.line) == ("transformers", "log", "warning", 2)
    assert item.params == {"p0": "LlamaTokenizerFast"} and item.family is None


def test_a_source_line_echoed_in_a_traceback_is_not_located(index, atlas: AtlasIndex) -> None:
    # the frame's source line holds the message's text, but the library whose line it is did not print it
    message = DEVICE_MAP.splitlines()[-1].split(": ", 1)[1]
    echo = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/transformers/modeling_utils.py", line 9, in from_pretrained\n'
        f'    raise ImportError("{message}")\n'
        "KeyboardInterrupt\n"
    )
    assert diagnose_text(echo, index, atlas=atlas).located == []
    [item] = diagnose_text(DEVICE_MAP, index, atlas=atlas).located  # the raised line itself still is
    assert item.line == 4


def test_a_large_input_is_read_by_its_error_looking_lines_only(index, atlas: AtlasIndex) -> None:
    from rootcause.core.atlas.lines import SMALL_INPUT

    filler = "step 12 loss 0.25 lr 0.0001 tokens per second 9000\n" * (SMALL_INPUT // 50 + 1)
    assert diagnose_text(filler + PAD_ADVICE, index, atlas=atlas).located == []  # a log line: not error-looking
    [item] = diagnose_text(filler + DEVICE_MAP, index, atlas=atlas).located
    assert item.package == "transformers"


def test_the_small_input_tap_holds_a_bounded_amount() -> None:
    from rootcause.core.atlas.lines import SMALL_INPUT, SmallInputTap

    tap = SmallInputTap()
    assert sum(len(c) for c in tap.wrap("big", [b"x" * (SMALL_INPUT // 2)] * 3)) == 3 * (SMALL_INPUT // 2)
    assert tap.held == {} and tap.message_lines("big") == []
    list(tap.wrap("small", [PAD_ADVICE.encode()]))
    assert [n for n, _, _ in tap.message_lines("small")] == [2]  # the code echoes are left out


def test_one_item_per_template_with_its_count(atlas: AtlasIndex) -> None:
    lines = [
        (f"ValueError: Unrecognized configuration class C{n} for this kind of AutoModel: AutoModelForCausalLM.")
        for n in range(3)
    ]
    [item] = atlas.locate([("<t>", n, line, line) for n, line in enumerate(lines, 1)])
    assert (item.line, item.count, item.params["p0"]) == (1, 3, "C0")


def test_templates_logged_at_info_level_take_no_part() -> None:
    quiet = TEMPLATES[3].model_copy(update={"kind": TemplateKind.LOG, "exception": "INFO"})
    line = "Default process group has not been initialized, please make sure to call init_process_group."
    assert AtlasIndex.from_templates([quiet]).locate([("<t>", 1, line, line)]) == []
    loud = quiet.model_copy(update={"exception": "WARN"})
    assert len(AtlasIndex.from_templates([loud]).locate([("<t>", 1, line, line)])) == 1


@pytest.mark.parametrize(
    ("exception", "message", "pattern", "line"),
    [
        # peft's ModulesToSaveWrapper.__getattr__ re-raises CPython's message: it would locate every AttributeError
        (
            "AttributeError",
            "'{type(self).__name__}' object has no attribute '{name}'",
            r"'(?P<p0>.{0,200}?)' object has no attribute '(?P<p1>.{0,200}?)'",
            "AttributeError: 'LLMEngine' object has no attribute 'model_executor'",
        ),
        # torch.package's importer copies the import system's message (lmdeploy#843 ran a module of its own by path)
        (
            "ImportError",
            "attempted relative import with no known parent package",
            "attempted relative import with no known parent package",
            "10.29.253.123: ImportError: attempted relative import with no known parent package",
        ),
        # SGLang's ServerArgs copies argparse's message; kohya-ss/sd-scripts#790's own parser printed it
        (
            "SystemExit",
            "error: unrecognized arguments: {' '.join(remaining)}",
            r"error: unrecognized arguments: (?P<p0>.{0,200}?)",
            "sdxl_train_network.py: error: unrecognized arguments: the white queen --save_model_as=safetensors",
        ),
        # bitsandbytes' `Function not implemented: {func_name}` is the C library's ENOSYS text after a name
        (
            "RuntimeError",
            "Function not implemented: {func_name}",
            r"Function not implemented: (?P<p0>.{0,200}?)",
            "ERROR: Could not install packages due to an OSError: [Errno 38] Function not implemented: '/usr/lib/x.so'",
        ),
    ],
)
def test_a_template_that_only_repeats_python_s_own_wording_takes_no_part(
    exception: str, message: str, pattern: str, line: str
) -> None:
    literal = max(re.split(r"\(\?P<\w+>[^)]*\)", pattern), key=len)
    template = TEMPLATES[0].model_copy(
        update={"exception": exception, "message": message, "pattern": pattern, "literal": literal}
    )
    assert AtlasIndex.from_templates([template]).locate([("<t>", 1, line, line)]) == []


def test_of_two_packages_printing_the_same_string_the_installed_then_the_lower_layer_is_named() -> None:
    torch_one = TEMPLATES[5]
    vllm_one = torch_one.model_copy(update={"package": "vllm", "module": "vllm/_C.abi3.so"})
    line = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )
    atlas = AtlasIndex.from_templates([vllm_one, torch_one])
    [item] = atlas.locate([("<t>", 1, line, line)])
    assert (item.package, item.also) == ("torch", 1)
    [item] = atlas.locate([("<t>", 1, line, line)], {"vllm": "0.6.3"})
    assert item.package == "vllm"


def test_a_template_whose_module_the_line_names_is_preferred() -> None:
    # a warning's header names the file that printed it; the stack's order would name the lower layer
    torch_one = TEMPLATES[4]
    vllm_one = torch_one.model_copy(update={"package": "vllm", "module": "vllm/envs.py"})
    atlas = AtlasIndex.from_templates([torch_one, vllm_one])
    message = (
        "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
        "`torch.amp.GradScaler('cuda', args...)` instead."
    )
    for prefix, package in (
        ("", "torch"),
        ("/venv/lib/python3.10/site-packages/vllm/envs.py:91: ", "vllm"),
        ("C:\\venv\\Lib\\site-packages\\vllm\\envs.py:91: ", "vllm"),
        ("/venv/lib/python3.10/site-packages/vllm/other.py:91: ", "torch"),
    ):
        [item] = atlas.locate([("<t>", 1, prefix + message, prefix + message)])
        assert item.package == package, prefix


def test_the_service_and_the_python_api_locate_through_the_shared_diagnosis(tmp_path: Path, monkeypatch, index) -> None:
    import io

    import rootcause
    from rootcause.adapters.web.upload import Spooled, diagnose_spooled

    monkeypatch.setenv("ROOTCAUSE_ATLAS", str(write_fixture_atlas(tmp_path / "atlas.sqlite")))
    spooled = Spooled(env={"transformers": "4.30.0"}, inputs=[("<text>", io.BytesIO(DEVICE_MAP.encode()))])
    [item] = diagnose_spooled(spooled, index).located
    assert item.package == "transformers" and item.installed_has_it is True
    [item] = rootcause.diagnose(DEVICE_MAP).located
    assert item.module == TEMPLATES[0].module
    assert rootcause.diagnose(DEVICE_MAP, use_atlas=False).located == []
    monkeypatch.setenv("ROOTCAUSE_NO_ATLAS", "1")
    assert rootcause.diagnose(DEVICE_MAP).located == []


def test_the_mcp_view_lists_located_lines_when_nothing_matched(index, atlas: AtlasIndex) -> None:
    from rootcause.core.agent_view import diagnosis_view

    d = diagnose_text(DEVICE_MAP, index, atlas=atlas)
    text = diagnosis_view(d)
    assert "known messages, no reviewed entry" in text and "transformers/modeling_utils.py" in text
    [item] = json.loads(diagnosis_view(d, fmt="json"))["located"]
    assert (item["package"], item["first"], item["last"]) == ("transformers", "4.20.0", "4.40.2")


def test_a_line_that_goes_on_after_a_template_s_head_is_another_message() -> None:
    # accelerate's template: a required head (one long word) and an optional tail
    template = TEMPLATES[0].model_copy(
        update={
            "package": "accelerate",
            "exception": "ValueError",
            "message": "gradient_accumulation_steps cannot be set to 'auto' in the DeepSpeed config.",
            "pattern": r"gradient_accumulation_steps(?: cannot be set to 'auto' in the DeepSpeed config\.)?",
            "literal": "gradient_accumulation_steps",
        }
    )
    atlas = AtlasIndex.from_templates([template])
    for other in ("gradient_accumulation_steps: 64", "gradient_accumulation_steps must be positive, got 0"):
        assert atlas.locate([("<t>", 1, other, other)]) == [], other
    whole = "ValueError: gradient_accumulation_steps cannot be set to 'auto' in the DeepSpeed config."
    cut = "ValueError: gradient_accumulation_steps cannot be set to 'au"  # a paste cut in the optional tail
    assert len(atlas.locate([("<t>", 1, whole, whole)])) == 1
    # the tail's optional group fails as a whole, but the rest of the line is the template's text cut inside a word
    assert atlas.match_line(cut) is not None
    shorter = "ValueError: gradient_accumulation_steps cannot be set"  # ends at a word, no placeholder passed
    assert atlas.match_line(shorter) is None


def _printf_template(message: str, **update: object) -> Template:
    pattern, literal = build_pattern(printf_parts(message))
    fields = {"package": "torch", "kind": TemplateKind.WARNING, "exception": "UserWarning", "message": message}
    return TEMPLATES[0].model_copy(update={**fields, "pattern": pattern, "literal": literal, **update})


def test_a_paste_cut_inside_a_literal_after_a_placeholder_is_located() -> None:
    # torch/utils/cpp_extension.py; the pattern's last optional group holds `). Most likely ... problem.` whole
    template = _printf_template(
        "The detected CUDA version (%s) has a minor version mismatch with the version that was used to compile "
        "PyTorch (%s). Most likely this shouldn't be a problem."
    )
    atlas = AtlasIndex.from_templates([template])
    line = (
        "UserWarning: The detected CUDA version (11.5) has a minor version mismatch with the version that was used "
        "to compile PyTorch (11.7)."
    )
    [item] = atlas.locate([("<t>", 1, line, line)])
    assert item.package == "torch"
    assert atlas.match_line(line + " Any other words") is None  # goes on with another message
    assert atlas.match_line(line.replace("(11.7).", "(11.7) and more")) is None


def test_a_template_with_a_trailing_blank_matches_the_line_without_it() -> None:
    # torch/distributed/run.py logs torchrun's OMP note with a blank at its end; a paste's line has none
    message = (
        "Setting OMP_NUM_THREADS environment variable for each process to be %s in default, to avoid your system "
        "being overloaded, please further tune the variable for optimal performance in your application as needed. "
    )
    atlas = AtlasIndex.from_templates([_printf_template(message, kind=TemplateKind.LOG, exception="warning")])
    line = message.replace("%s", "1").rstrip()
    framed = "W0629 08:47:06.208000 3996 site-packages/torch/distributed/run.py:774] " + line
    [item] = atlas.locate([("<t>", 1, framed, line)])
    assert item.module == TEMPLATES[0].module and item.params == {}


def test_a_cut_holding_only_python_s_own_wording_is_not_located() -> None:
    # datasets' message starts with CPython's FileNotFoundError wording; a line cut after the path is CPython's
    template = _printf_template(
        "No such file or directory: '%s'. Expected to load a Dataset object, but got a DatasetDict.",
        package="datasets",
        kind=TemplateKind.RAISE,
        exception="FileNotFoundError",
    )
    atlas = AtlasIndex.from_templates([template])
    line = "FileNotFoundError: [Errno 2] No such file or directory: 'bert-vocab.txt'"
    assert atlas.match_line(line) is None
    longer = "FileNotFoundError: No such file or directory: '/data/x'. Expected to load a Dataset obj"
    assert atlas.match_line(longer) is not None


def test_continues_reads_the_line_against_the_template_s_pieces() -> None:
    template = "Found {n} chunks in {path}. Please delete them"
    assert continues("Found 3 chunks in /tmp/x. Please del", template) == len("Found  chunks in . Please del")
    assert continues("Found 3 chunks in /tmp/x. Please delete them", template) is not None
    assert continues("Found 3 chunks in /tmp/x. Please delete them now", template) is None
    assert continues("Found 3 chunks and more", template) is None
    assert continues('Found 3 chunks in /tmp/x. Please delete them"', template) is not None  # a closing quote
    assert continues("CUDA out of memory.", "CUDA out of memory. Tried to allocate %s") is None


def test_a_known_error_never_loads_the_atlas(index) -> None:
    """The located tier is for lines no reviewed entry explains; a diagnosis that found a known error does not
    pay for loading (and, the first time, indexing) the atlas, even when other lines are left unclaimed."""
    from rootcause.core.diagnosis import diagnose_text

    asked: list[int] = []

    def load() -> None:
        asked.append(1)

    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        "RuntimeError: the frobnicator exploded while reading the widget table\n"
    )
    d = diagnose_text(text, index, atlas=load)
    assert d.matched and asked == [] and d.located == []
    diagnose_text(text.splitlines()[1], index, atlas=load)
    assert asked == [1], "an unmatched line does ask for the atlas"


def test_of_two_packages_printing_the_same_string_one_whose_files_the_input_names_is_preferred(index) -> None:
    # diffusers' dynamic_modules_utils copies transformers' message; the traceback's frames are diffusers'
    message = "Could not locate the %s inside %s."
    transformers_one = _printf_template(message, package="transformers", kind=TemplateKind.LOG, exception="error")
    diffusers_one = transformers_one.model_copy(
        update={"package": "diffusers", "module": "diffusers/utils/dynamic_modules_utils.py"}
    )
    atlas = AtlasIndex.from_templates([transformers_one, diffusers_one])
    line = "Could not locate the pipeline.py inside lpw_stable_diffusion."
    [item] = atlas.locate([("<t>", 1, line, line)])
    assert item.package == "transformers"  # the stack's order: the lower layer
    [item] = atlas.locate([("<t>", 1, line, line)], mentioned=["diffusers"])
    assert (item.package, item.also) == ("diffusers", 1)
    paste = (
        line + "\nTraceback (most recent call last):\n"
        '  File "/home/u/.local/lib/python3.8/site-packages/diffusers/utils/dynamic_modules_utils.py", line 285, in '
        "get_cached_module_file\n    resolved_module_file = cached_download(\n"
    )
    [item] = diagnose_text(paste, index, atlas=atlas).located
    assert item.package == "diffusers"


def test_a_template_holding_only_common_deprecation_wording_takes_no_part() -> None:
    # vLLM's helper prints the names it is given; the same words are transformers' `deprecate_kwarg` message
    template = _printf_template("%s is deprecated and will be removed in %s. %s", package="vllm")
    line = (
        "FutureWarning: `tokenizer` is deprecated and will be removed in version 5.0.0 for `DPOTrainer.__init__`. "
        "Use `processing_class` instead."
    )
    assert AtlasIndex.from_templates([template]).locate([("<t>", 1, line, line)]) == []
    own = _printf_template("The `foo_bar` argument is deprecated and will be removed in v5. Use `baz` instead.")
    line = "FutureWarning: The `foo_bar` argument is deprecated and will be removed in v5. Use `baz` instead."
    assert len(AtlasIndex.from_templates([own]).locate([("<t>", 1, line, line)])) == 1


def test_reading_a_cut_paste_stops_after_its_step_bound_on_a_line_built_to_explode(monkeypatch) -> None:
    # twelve placeholders between single spaces against a long run of words: every split of the line is a way to
    # fill them, far more than any budget; the reading gives up after MAX_STEPS for each form of the line it tries
    from rootcause.core.atlas import cut

    calls = [0]
    walk = cut._walk

    def counted(*args: object) -> object:
        calls[0] += 1
        return walk(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cut, "_walk", counted)
    message = " ".join(f"{{p{n}}}" for n in range(12)) + " and then the end of the message"
    assert cut.continues("a " * 1000, message) is None
    assert 0 < calls[0] <= 2 * (cut.MAX_STEPS + 1)  # the line as read, and without its closing quotes
