"""Stopword lists by ISO 639 code, loaded once per process.

The files are ``stoplists/<code>.txt`` (see ``stoplists/README.md`` for sources and licences).
An installed wheel carries them as ``pipeline/_stoplists/`` (pyproject force-include), which is
what Dask workers see; a source or editable checkout reads ``<repo>/stoplists/`` instead.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from importlib.resources.abc import Traversable
from pathlib import Path

_PACKAGED = "_stoplists"
_CHECKOUT = Path(__file__).resolve().parents[2] / "stoplists"
# Codes are file stems, so anything else (paths, "..", empty) must never reach the file system.
_CODE = re.compile(r"[a-z]{2,3}")


class StoplistDataMissing(FileNotFoundError):
    """Neither the packaged nor the checkout stoplist folder exists or holds any list."""


def _has_lists(folder: Traversable) -> bool:
    return folder.is_dir() and any(p.name.endswith(".txt") for p in folder.iterdir())


def _packaged_dir() -> Traversable:
    return importlib.resources.files("pipeline") / _PACKAGED


def _checkout_dir() -> Path:
    return _CHECKOUT


@functools.cache
def _data_dir() -> Traversable:
    """The wheel's copy first: an installed worker must not pick up a stray checkout's files."""
    for folder in (_packaged_dir(), _checkout_dir()):
        if _has_lists(folder):
            return folder
    raise StoplistDataMissing(
        f"no stoplist files found: looked in the installed package ({_packaged_dir()}) and in "
        f"the source checkout ({_checkout_dir()}); reinstall warcclean, or in a checkout run "
        "stoplists/build_stoplists.py"
    )


def clear_cache() -> None:
    """Forget loaded lists and the data folder (tests; a process that swaps the data)."""
    for cached in (_data_dir, available_languages, stoplist):
        cached.cache_clear()


@functools.cache
def available_languages() -> frozenset[str]:
    """Codes that have a stoplist, e.g. ``{"en", "de", "zh", ...}``."""
    return frozenset(
        p.name[: -len(".txt")] for p in _data_dir().iterdir() if p.name.endswith(".txt")
    )


@functools.cache
def stoplist(code: str) -> frozenset[str] | None:
    """The stoplist for ``code``, or None when there is none (language-independent mode).

    ``code`` must already be normalised (`pipeline.lang.langid.normalize_code`): ``"und"``, region
    subtags or unknown codes give None. The same frozenset object is returned on every call in a
    process, so callers may cache derived structures keyed on it.
    """
    if not _CODE.fullmatch(code) or code not in available_languages():
        return None
    text = (_data_dir() / f"{code}.txt").read_text(encoding="utf-8")
    # split("\n"), not splitlines(): a word may legitimately contain U+2028 or U+0085.
    return frozenset(w for w in text.split("\n") if w)
