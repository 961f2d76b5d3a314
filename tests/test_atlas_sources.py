"""source_url: a template's line at the release's tag, for the repositories whose tag schemes were checked."""

from __future__ import annotations

from rootcause.adapters.atlas.sources import source_url


def test_wheel_module_gets_the_repository_prefix() -> None:
    url = source_url("diffusers", "0.31.0", "diffusers/utils/import_utils.py", 12, sdist=False)
    assert url == "https://github.com/huggingface/diffusers/blob/v0.31.0/src/diffusers/utils/import_utils.py#L12"


def test_sdist_path_is_already_a_repository_path() -> None:
    url = source_url("diffusers", "0.20.2", "src/diffusers/pipelines/pipeline_utils.py", 3, sdist=True)
    assert url == "https://github.com/huggingface/diffusers/blob/v0.20.2/src/diffusers/pipelines/pipeline_utils.py#L3"


def test_transformer_engine_tags_drop_post_and_trailing_zero() -> None:
    module = "transformer_engine/pytorch/module/base.py"
    assert "/blob/v2.18/" in source_url("transformer-engine", "2.18.0", module, 1, sdist=False)
    assert "/blob/v2.6/" in source_url("transformer-engine", "2.6.0.post1", module, 1, sdist=False)
    assert "/blob/v2.14.1/" in source_url("transformer-engine", "2.14.1", module, 1, sdist=False)


def test_megatron_core_tags_and_unlisted_packages() -> None:
    url = source_url("megatron-core", "0.12.3", "megatron/core/parallel_state.py", 7, sdist=False)
    assert url == "https://github.com/NVIDIA/Megatron-LM/blob/core_v0.12.3/megatron/core/parallel_state.py#L7"
    assert source_url("unsloth", "2025.3.19", "unsloth/models/llama.py", 1, sdist=False) == ""
    assert source_url("torch-xla", "2.9.0", "torch_xla/_XLAC.so", 0, sdist=False) == ""
