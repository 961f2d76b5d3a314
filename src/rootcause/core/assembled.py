"""Models of a diagnosis built from values already of their fields' types, without validating them again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_FIELDS: dict[type[BaseModel], tuple[tuple[str, ...], frozenset[str]]] = {}  # in order, and as a set


def assembled(cls: type[M], *, set_fields: Iterable[str] | None = None, **values: Any) -> M:
    """A model of the diagnosis built from every one of its fields, each already of the field's type, without
    validating them: what validation would build from the same values (the engine builds them from validated
    entries and its own counts), and how a held diagnosis builds its findings: validating them was about a tenth of a
    held call whose caches other work had left cold (tests/test_api_held_work.py holds the two equal).
    ``set_fields``: the fields a caller set, where it passes others at their defaults (``model_fields_set``; all of
    them when not given), since validation would leave the others unset."""
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = (tuple(cls.model_fields), frozenset(cls.model_fields))
    names, name_set = known
    if values.keys() != name_set:
        missing, unknown = sorted(name_set - values.keys()), sorted(values.keys() - name_set)
        raise TypeError(f"{cls.__name__}: every field and no other is needed (missing {missing}, unknown {unknown})")
    model = cls.__new__(cls)
    # in the fields' order, as validation stores them: the JSON's keys follow it
    object.__setattr__(model, "__dict__", {name: values[name] for name in names})
    object.__setattr__(model, "__pydantic_fields_set__", set(values if set_fields is None else set_fields))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model
