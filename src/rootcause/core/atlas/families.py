"""The first checks for a located message, chosen by the template's package, kind and exception.

A located message has no reviewed entry, so there is no root cause to give; what the template says
about where it comes from still points at a family of causes, and each family has a few first checks.
"""

from __future__ import annotations

VERSION_SKEW = "version-skew"
ABI = "abi"
NATIVE_CRASH = "native-crash"
CONFIGURATION = "configuration"

CHECKS: dict[str, tuple[list[str], list[str]]] = {
    VERSION_SKEW: (
        [
            "Compare the installed version of the package with the releases that print this message (first..last).",
            "Check that the packages which call each other were released together (e.g. transformers with "
            "accelerate/peft, torch with torchvision/torchaudio); pin them to a matching set.",
            "Read the package's changelog between your version and the one the code you run was written for.",
        ],
        [
            "对比已安装的包版本与打印此消息的版本区间(first..last)。",
            "检查相互调用的包是否为配套发布的版本(如 transformers 与 accelerate/peft,torch 与 "
            "torchvision/torchaudio),并固定到一组匹配的版本。",
            "阅读该包在你的版本与代码所针对版本之间的更新日志。",
        ],
    ),
    ABI: (
        [
            "A compiled extension was built against another version of torch, CUDA or Python than the one loaded: "
            "reinstall or rebuild it for the installed torch.",
            "Check that only one copy of torch and of the CUDA libraries is on the path (pip list, ldd on the .so).",
        ],
        [
            "某个编译扩展是针对另一版本的 torch、CUDA 或 Python 构建的:请针对当前安装的 torch 重新安装或重新编译它。",
            "确认路径上只有一份 torch 和 CUDA 库(pip list,对 .so 运行 ldd)。",
        ],
    ),
    NATIVE_CRASH: (
        [
            "Rerun with CUDA_LAUNCH_BLOCKING=1 (and NCCL_DEBUG=INFO for collectives) to find the operation that "
            "failed first; later errors are often its consequence.",
            "Check the driver, CUDA runtime and library versions against each other (nvidia-smi, torch.version.cuda).",
        ],
        [
            "设置 CUDA_LAUNCH_BLOCKING=1(集合通信再加 NCCL_DEBUG=INFO)重新运行,找出最先失败的操作;"
            "之后的报错常常只是它的后果。",
            "核对驱动、CUDA 运行时与各库的版本是否相互匹配(nvidia-smi,torch.version.cuda)。",
        ],
    ),
    CONFIGURATION: (
        [
            "The message rejects a value: compare the arguments and configuration files you pass with what it "
            "names, at the line shown.",
            "Check that the configuration was written for the installed version (options are renamed between "
            "releases).",
        ],
        [
            "该消息拒绝了某个取值:对照所示代码行,核对你传入的参数和配置文件。",
            "确认配置是为已安装的版本编写的(选项在不同版本间可能改名)。",
        ],
    ),
}

_SKEW_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}
_SKEW_WARNINGS = {"FutureWarning", "DeprecationWarning", "PendingDeprecationWarning"}
_CONFIG_EXCEPTIONS = {"ValueError", "KeyError"}
_ABI_WORDS = ("undefined symbol", "ABI", "version `GLIBC", "incompatible with", "was compiled against")


def family_of(package: str, kind: str, exception: str, message: str) -> str | None:
    """The family of causes a located template points at, or None."""
    exc = exception.rsplit(".", 1)[-1]
    if any(w in message for w in _ABI_WORDS):
        return ABI
    if kind == "native":
        return NATIVE_CRASH
    if kind == "raise" and exc in _SKEW_EXCEPTIONS:
        return VERSION_SKEW
    if kind == "raise" and exc == "TypeError" and "keyword argument" in message:
        return VERSION_SKEW
    if kind == "warning" and exc in _SKEW_WARNINGS:
        return VERSION_SKEW
    if kind == "raise" and exc in _CONFIG_EXCEPTIONS:
        return CONFIGURATION
    if package == "nccl" or (kind == "raise" and "CUDA" in message):
        return NATIVE_CRASH
    return None


def first_checks(package: str, kind: str, exception: str, message: str) -> tuple[str | None, list[str], list[str]]:
    family = family_of(package, kind, exception, message)
    if family is None:
        return None, [], []
    en, zh = CHECKS[family]
    return family, list(en), list(zh)
