"""The import check: a version-skew claim on `cannot import name` is withdrawn only where the names index shows the
name misspelt or in another package, and the diagnosis then says what the index shows."""

from __future__ import annotations

from rootcause.adapters.atlas.names_held import names_loader
from rootcause.adapters.loading import load_index
from rootcause.core.atlas.names import PackageNames
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.import_names import unfounded_import

INDEX = {
    "peft": PackageNames(("0.16.0", "0.17.1"), {"symbol": {"LoraConfig": [[0, 1]], "get_peft_model": [[0, 1]]}}),
    "vllm": PackageNames(("0.32.0", "0.34.0"), {"symbol": {"set_default_torch_dtype": [[0, 1]]}}),
    "trl": PackageNames(("0.29.1", "1.16.0"), {"symbol": {"SFTTrainer": [[0, 1]], "SFTConfig": [[1, 1]]}}),
    "transformers": PackageNames(
        ("4.57.6", "5.25.0"), {"symbol": {"TrainingArguments": [[0, 1]], "cached_download": [[0, 0]]}}
    ),
    "pytorch-lightning": PackageNames(
        ("2.5.6",), {"symbol": {"Trainer": [[0, 0]]}, "module": {"pytorch_lightning.loggers": [[0, 0]]}}
    ),
}


def test_a_misspelt_name_is_named_with_what_the_package_defines() -> None:
    why = unfounded_import("peft", "Loraconfig", INDEX)
    assert why is not None and "'Loraconfig'" in why and "'LoraConfig'" in why and "spelling" in why
    assert "0.16.0 to 0.17.1" in why


def test_a_name_of_another_package_is_named_with_that_package() -> None:
    why = unfounded_import("trl", "TrainingArguments", INDEX)
    assert why is not None and "transformers 5.25.0" in why


def test_what_the_index_cannot_tell_keeps_the_claim() -> None:
    assert unfounded_import("peft", "LoraConfig", INDEX) is None  # defined: version skew stays possible
    assert unfounded_import("trl", "SFTConfig", INDEX) is None  # defined by a newer release only
    assert unfounded_import("trl", "prepare_model_for_int8_training", INDEX) is None  # nothing else explains it
    assert unfounded_import("apex", "amp", INDEX) is None  # a package the index does not hold
    # a private name later made public (sglang#403 imported vllm's older `_set_default_torch_dtype`): version skew
    assert unfounded_import("vllm", "_set_default_torch_dtype", INDEX) is None
    assert unfounded_import("vllm", "set_default_torch_Dtype", INDEX) is not None  # case: still a misspelling
    # defined by another package's older release only: removed there too, so no evidence it belongs elsewhere
    assert unfounded_import("trl", "cached_download", INDEX) is None
    assert unfounded_import("pytorch_lightning", "loggers", INDEX) is None  # a submodule is a name too
    assert unfounded_import("pytorch_lightning.callbacks", "Trainer", INDEX) is None


def test_the_diagnosis_withdraws_the_claim_and_says_the_fact() -> None:
    index = load_index()
    line = (
        "ImportError: cannot import name 'Loraconfig' from 'peft' (/usr/lib/python3.10/site-packages/peft/__init__.py)"
    )
    d = diagnose_text(line, index, names=INDEX)
    assert not d.matched and not d.findings
    assert d.abstain_reason is not None and "'LoraConfig'" in d.abstain_reason
    same = diagnose_text(line.replace("Loraconfig", "LoraConfig"), index, names=INDEX)
    assert [f.id for f in same.findings] == ["huggingface/ml-package-cannot-import-name"]
    assert [f.id for f in diagnose_text(line, index).findings] == ["huggingface/ml-package-cannot-import-name"]


def test_the_shipped_index_is_loaded_only_when_a_claim_needs_it() -> None:
    index = load_index()
    calls = []
    loader = names_loader()
    assert loader is not None

    def counting():  # type: ignore[no-untyped-def]
        calls.append(1)
        return loader()

    diagnose_text("RuntimeError: CUDA error: out of memory", index, names=counting)
    assert calls == []
    d = diagnose_text("ImportError: cannot import name 'TrainingArguments' from 'trl'", index, names=counting)
    assert calls == [1] and not d.matched and "transformers" in (d.abstain_reason or "")


def test_a_missing_attribute_of_a_module_is_checked_as_an_import_is() -> None:
    """`module 'X' has no attribute 'Y'` is the same version-skew family claim as `cannot import name` (famA:
    the attribute family's misspelt and misplaced names kept the claim)."""
    index = load_index()
    line = "AttributeError: module 'trl' has no attribute 'TrainingArguments'"
    d = diagnose_text(line, index, names=INDEX)
    assert not d.matched and not d.findings
    assert d.abstain_reason is not None and "transformers 5.25.0" in d.abstain_reason
    kept = diagnose_text("AttributeError: module 'trl' has no attribute 'SFTConfig'", index, names=INDEX)
    assert [f.id for f in kept.findings] == ["huggingface/ml-package-module-missing-attribute"]
