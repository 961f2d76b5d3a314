"""A small atlas for tests: hand-listed templates whose messages are copied from the libraries' sources.

Sources (read at the release tags named in each `source_url`):
- transformers `modeling_utils.py` (`PreTrainedModel.from_pretrained`): ValueError "If passing a string for
  `device_map`, please choose 'auto', 'balanced', 'balanced_low_0' or 'sequential'." (a message no canon entry claims:
  the located tier's tests need one; the Accelerate ImportError this fixture used first now has its entry);
- transformers `models/auto/auto_factory.py` (`_BaseAutoModelClass.from_config`): ValueError f"Unrecognized
  configuration class {config.__class__} for this kind of AutoModel: {cls.__name__}.";
- transformers `quantizers/quantizer_bnb_8bit.py` (`validate_environment`): ImportError f"Using `bitsandbytes` 8-bit
  quantization requires accelerate: `pip install 'accelerate>={ACCELERATE_MIN_VERSION}'`";
- torch `distributed/distributed_c10d.py` (`_get_default_group`): ValueError "Default process group has not been
  initialized, please make sure to call init_process_group.";
- torch `cuda/amp/grad_scaler.py` (`GradScaler.__init__`): FutureWarning "`torch.cuda.amp.GradScaler(args...)` is
  deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.";
- transformers `tokenization_utils_base.py` (`PreTrainedTokenizerBase.pad`): logger.warning_advice f"You're using a
  {self.__class__.__name__} tokenizer. Please note that with a fast tokenizer, using the `__call__` method is faster
  than using a method to encode the text followed by a call to the `pad` method to get a padded encoding.";
- libtorch (TORCH_CHECK of the device check): "Expected all tensors to be on the same device, but found at least
  two devices, ".

The messages are copied exactly; the module lines, source URLs and release intervals are the fixture's own, for
testing how they travel and the interval logic. They are not claims about the libraries (the real atlas reads
them from the released artifacts).
"""

from __future__ import annotations

from pathlib import Path

from rootcause.adapters.atlas.store import load_templates, write_atlas
from rootcause.core.atlas.locate import AtlasIndex
from rootcause.core.atlas.model import AtlasManifest, ReleaseInterval, Template, TemplateKind

P = r"(?P<p{}>[^\n]{{0,200}}?)"


def _t(*fields: object) -> Template:
    """package, module, function, line, exception, kind, message, pattern, literal, releases, source_url."""
    package, module, function, line, exception, kind, message, pattern, literal, releases, url = fields
    assert isinstance(releases, list)
    return Template.model_validate(
        dict(
            package=package,
            module=module,
            function=function,
            line=line,
            exception=exception,
            kind=kind,
            message=message,
            pattern=pattern,
            literal=literal,
            releases=tuple(ReleaseInterval(first=a, last=b) for a, b in releases),
            source_url=url,
        )
    )


TF = "https://github.com/huggingface/transformers/blob/v4.46.3/src/transformers/"
TORCH = "https://github.com/pytorch/pytorch/blob/v2.5.1/torch/"

TEMPLATES = [
    _t(
        "transformers",
        "transformers/modeling_utils.py",
        "PreTrainedModel.from_pretrained",
        3600,
        "ValueError",
        TemplateKind.RAISE,
        "If passing a string for `device_map`, please choose 'auto', 'balanced', 'balanced_low_0' or 'sequential'.",
        r"If passing a string for `device_map`, please choose 'auto', 'balanced', 'balanced_low_0' or 'sequential'\.",
        "If passing a string for `device_map`, please choose 'auto', 'balanced', 'balanced_low_0' or 'sequential'.",
        [("4.20.0", "4.40.2")],
        TF + "modeling_utils.py#L3600",
    ),
    _t(
        "transformers",
        "transformers/models/auto/auto_factory.py",
        "_BaseAutoModelClass.from_config",
        440,
        "ValueError",
        TemplateKind.RAISE,
        "Unrecognized configuration class {config.__class__} for this kind of AutoModel: {cls.__name__}.",
        r"Unrecognized configuration class "
        + P.format(0)
        + r" for this kind of AutoModel: "
        + P.format(1)
        + r"(?:\.|$)",
        " for this kind of AutoModel: ",
        [("4.10.0", "4.46.3")],
        TF + "models/auto/auto_factory.py#L440",
    ),
    _t(
        "transformers",
        "transformers/quantizers/quantizer_bnb_8bit.py",
        "Bnb8BitHfQuantizer.validate_environment",
        60,
        "ImportError",
        TemplateKind.RAISE,
        "Using `bitsandbytes` 8-bit quantization requires accelerate: `pip install 'accelerate>={ACCELERATE_MIN_VERSION}'`",
        r"Using `bitsandbytes` 8-bit quantization requires accelerate: `pip install 'accelerate>="
        + P.format(0)
        + r"(?:'`|$)",
        "Using `bitsandbytes` 8-bit quantization requires accelerate: `pip install 'accelerate>=",
        [("4.38.0", "4.46.3")],
        TF + "quantizers/quantizer_bnb_8bit.py#L60",
    ),
    _t(
        "torch",
        "torch/distributed/distributed_c10d.py",
        "_get_default_group",
        1150,
        "ValueError",
        TemplateKind.RAISE,
        "Default process group has not been initialized, please make sure to call init_process_group.",
        r"Default process group has not been initialized, please make sure to call init_process_group",
        "Default process group has not been initialized, please make sure to call init_process_group.",
        [("2.2.2", "2.5.1")],
        TORCH + "distributed/distributed_c10d.py#L1150",
    ),
    _t(
        "torch",
        "torch/cuda/amp/grad_scaler.py",
        "GradScaler.__init__",
        30,
        "FutureWarning",
        TemplateKind.WARNING,
        "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
        r"`torch\.cuda\.amp\.GradScaler\(args\.\.\.\)` is deprecated\. Please use `torch\.amp\.GradScaler\('cuda', "
        r"args\.\.\.\)` instead\.",
        "` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
        [("2.4.1", "2.5.1")],
        TORCH + "cuda/amp/grad_scaler.py#L30",
    ),
    _t(
        "torch",
        "torch/lib/libtorch_cpu.so",
        "",
        0,
        "",
        TemplateKind.NATIVE,
        "Expected all tensors to be on the same device, but found at least two devices, ",
        r"Expected all tensors to be on the same device, but found at least two devices, " + P.format(0) + "(?:!|$)",
        "Expected all tensors to be on the same device, but found at least two devices, ",
        [("1.9.1", "2.5.1")],
        "",
    ),
]

TEMPLATES.append(
    _t(
        "transformers",
        "transformers/tokenization_utils_base.py",
        "PreTrainedTokenizerBase.pad",
        3300,
        "warning",
        TemplateKind.LOG,
        "You're using a {self.__class__.__name__} tokenizer. Please note that with a fast tokenizer, using the "
        "`__call__` method is faster than using a method to encode the text followed by a call to the `pad` method "
        "to get a padded encoding.",
        r"You're using a " + P.format(0) + r" tokenizer\. Please note that with a fast tokenizer, using the "
        r"`__call__` method is faster than using a method to encode the text followed by a call to the `pad` "
        r"method to get a padded encoding\.",
        " tokenizer. Please note that with a fast tokenizer, using the `__call__` method is faster than using a "
        "method to encode the text followed by a call to the `pad` method to get a padded encoding.",
        [("4.10.0", "4.46.3")],
        TF + "tokenization_utils_base.py#L3300",
    )
)

MANIFEST = AtlasManifest(packages={"torch": ["1.9.1", "2.5.1"], "transformers": ["4.10.0", "4.46.3"]})


def write_fixture_atlas(path: Path) -> Path:
    write_atlas(path, MANIFEST, TEMPLATES)
    return path


def fixture_index(tmp: Path) -> AtlasIndex:
    """The fixture written to an atlas file and read back, as the CLI reads the shipped one."""
    return AtlasIndex.from_templates(load_templates(write_fixture_atlas(tmp / "atlas.sqlite")))
