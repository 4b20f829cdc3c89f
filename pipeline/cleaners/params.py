"""The ``--param K=V`` text of the command line, checked against the cleaner's parameters
(their names and types, `pipeline.cleaners.registry.parameters`).

Every command that takes ``--param`` (``warcclean run``, ``clean``, ``eval``, ``show``) parses it
here, so a parameter the cleaner does not take is an error naming the ones it does, and a value
is JSON (``70``, ``0.5``, ``true``, ``null``, ``[1, 2]``) of the parameter's type, never silently
something else. A parameter that takes text also takes it bare (``variant=paper``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable
from typing import Any

from pipeline.cleaners.registry import (
    annotation,
    check_names,
    cleaner_class,
    make_cleaner,
    parameters,
)

# What ``--help`` says of ``--param``, for every command that takes it.
PARAM_HELP = (
    "Cleaner parameter, repeatable; the value is JSON (70, 0.5, true, null), or bare text for a "
    "parameter that takes text. An unknown name lists the cleaner's parameters."
)
# The annotation words the checks understand; a parameter annotated otherwise takes any JSON.
_TYPES: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "None": (type(None),),
}

_JSON_NAMES = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    type(None): "null",
    list: "a list",
    dict: "an object",
}


def _kinds(param: inspect.Parameter) -> tuple[type, ...] | None:
    words = [w.strip() for w in annotation(param).split("|")]
    if not all(w in _TYPES for w in words):
        return None
    return tuple(t for w in words for t in _TYPES[w])


def _fits(value: Any, kinds: tuple[type, ...]) -> bool:
    # JSON's true is a Python int too: a bool fits only where bool is asked for, and a number
    # only where a number is.
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def parse_value(name: str, key: str, raw: str) -> Any:
    """The value of ``--param key=raw`` for cleaner ``name``: JSON of the parameter's type, or
    bare text for a parameter that takes text. Raises `ValueError` saying what was expected."""
    params = parameters(name)
    param = None if params is None else params.get(key)
    kinds = None if param is None else _kinds(param)
    takes_text = kinds is None or str in kinds
    try:
        value = json.loads(raw)
    except ValueError:
        if takes_text:
            return raw
        expected = annotation(param) if param is not None else "JSON"
        raise ValueError(
            f"{key}={raw}: not valid JSON; {key} takes {expected}"
            + (" (true or false)" if kinds == (bool,) else "")
        ) from None
    if kinds is None or _fits(value, kinds):
        return value
    if takes_text:
        return raw  # model=2024 names a file called "2024"
    assert param is not None
    given = _JSON_NAMES.get(type(value), type(value).__name__)
    raise ValueError(f"{key}={raw}: {key} takes {annotation(param)}, not {given}")


def parse_params(name: str, items: Iterable[str]) -> dict[str, Any]:
    """``["length_low=50", "no_headings=true"]`` for cleaner ``name`` -> its keyword arguments.

    Raises `ValueError` for text that is not ``KEY=VALUE`` or a value that is not of the
    parameter's type, and `TypeError` for a parameter the cleaner does not take (naming those
    it does); an unknown cleaner raises `ValueError` naming the known ones.
    """
    pairs: list[tuple[str, str]] = []
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        pairs.append((key, raw))
    check_names(name, [k for k, _ in pairs])
    return {key: parse_value(name, key, raw) for key, raw in pairs}


class OptionError(ValueError):
    """A ``--cleaner``/``--param`` a command cannot use; ``option`` names which."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def cleaner_options(name: str, items: Iterable[str]) -> dict[str, Any]:
    """``--cleaner name --param K=V...`` checked as a command must before any work: the cleaner
    exists, takes these parameters and these values, and can be built with them (a model file
    that does not load, a value out of range). Raises `OptionError`."""
    try:
        cleaner_class(name)
    except ValueError as exc:
        raise OptionError("--cleaner", str(exc)) from None
    try:
        params = parse_params(name, items)
        make_cleaner(name, **params)
    except (TypeError, ValueError, OSError) as exc:
        raise OptionError("--param", str(exc)) from None
    return params
