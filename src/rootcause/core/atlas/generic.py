"""Templates that only repeat a Python built-in message (or wording every library copies), and so would locate any
library's line.

Library code re-raises CPython's own wording (`f"'{type(self).__name__}' object has no attribute '{name}'"` in
a `__getattr__`, `f"module {__name__!r} has no attribute {name!r}"`): such a template matches every
AttributeError of every package. A template takes no part in the located tier when, its placeholders and
these built-in phrases taken out, fewer than `MIN_OWN` letters and digits of its own remain.
"""

from __future__ import annotations

import re

MIN_OWN = 12
# CPython's wording of its built-in exceptions (Objects/, Python/ceval.c, Modules/), as the fragments that stay
# the same whatever the names in them
BUILTIN_PHRASES = (
    "object has no attribute",
    "has no attribute",
    "did you mean",
    "got an unexpected keyword argument",
    "got multiple values for argument",
    "got multiple values for keyword argument",
    "required positional argument",
    "required positional arguments",
    "required keyword-only argument",
    "positional argument but",
    "positional arguments but",
    "were given",
    "was given",
    "object is not subscriptable",
    "object is not callable",
    "object is not iterable",
    "object is not an iterator",
    "object does not support item assignment",
    "object does not support item deletion",
    "object cannot be interpreted as an integer",
    "has no len()",
    "object of type",
    "no module named",
    "cannot import name",
    "(unknown location)",
    "index out of range",
    "list index out of range",
    "invalid literal for int() with base",
    "could not convert string to float",
    "unsupported operand type(s) for",
    "not supported between instances of",
    "not enough values to unpack",
    "too many values to unpack",
    "expected",
    "division by zero",
    "unhashable type",
    "can only concatenate",
    "must be str, not",
    "must be real number, not",
    "must be an integer",
    "is not defined",
    "referenced before assignment",
    "no such file or directory",
    "function not implemented",  # the C library's text for ENOSYS (`[Errno 38] Function not implemented: '...'`)
    "permission denied",
    "file exists",
    "is a directory",
    "not a directory",
    "maximum recursion depth exceeded",
    "dictionary changed size during iteration",
    "argument of type",
    "is not iterable",
    "keyerror",
    "attributeerror",
    "arg is an empty sequence",
    "got an unexpected keyword argument '",
    # the import system's own messages (Lib/importlib/_bootstrap.py), which torch.package's importer copies word
    # for word: a script run by path inside any package prints them
    "attempted relative import with no known parent package",
    "attempted relative import beyond top-level package",
    "from partially initialized module",
    "(most likely due to a circular import)",
    # argparse's own messages (Lib/argparse.py, printed as `{prog}: error: {message}` by any script's parser), which
    # SGLang's ServerArgs copies (`error: unrecognized arguments: ...`): kohya-ss/sd-scripts#790's own parser was
    # located to it
    "unrecognized arguments",
    "the following arguments are required",
    "invalid choice",
    "expected one argument",
    "ambiguous option",
    "not allowed with argument",
    # deprecation wording that many packages print word for word around their own names (vLLM's
    # `{name} is deprecated and will be removed in {version}. {replacement}` located transformers'
    # `tokenizer` deprecation): the names are the placeholders, so the template says nothing of its own
    "is deprecated and will be removed in",
    # the Rust standard library's panics, linked into every Rust extension (safetensors, tokenizers)
    "called `result::unwrap()` on an `err` value",
    "called `option::unwrap()` on a `none` value",
    "panicked at",
)
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%\([^)]*\)[a-zA-Z]")
_PHRASES = re.compile("|".join(re.escape(p) for p in sorted(BUILTIN_PHRASES, key=len, reverse=True)))
_OWN = re.compile(r"[A-Za-z0-9]")


def only_builtin_wording(message: str) -> bool:
    """True when the message says nothing of its own beyond a built-in phrase and its placeholders."""
    lowered = PLACEHOLDER.sub(" ", message).lower()
    fragment = " ".join(lowered.split()).strip(" '\"`:.,()")
    if any(fragment in phrase for phrase in BUILTIN_PHRASES):
        return True  # a piece of a built-in phrase (a native string cut at its first letter)
    return len(_OWN.findall(_PHRASES.sub(" ", lowered))) < MIN_OWN
