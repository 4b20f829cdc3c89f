"""Arrays built once per machine, kept on disk and memory-mapped by every later process.

The language profiles take about half a second of CPU to build from langdetect's JSON files, in
every worker process, every sandbox child and every command; read back from ``.npy`` files they
take a few milliseconds, and the mapped pages are shared by all processes on the machine instead
of each holding its own copy.

An entry is a directory ``<name>-<digest>`` holding one ``.npy`` file per array and
``meta.json``; the digest is of everything the arrays were built from, so a changed input is a
different entry and never a stale one. Entries are written to a temporary directory and renamed
into place, so a reader sees a whole entry or none, and processes racing to write the same one
are harmless. Anything that goes wrong (no writable directory, a damaged entry) means the caller
builds the arrays itself, as it would without a cache.

Where: ``$WARCCLEAN_CACHE_DIR``, else ``$XDG_CACHE_HOME/warcclean``, else
``~/.cache/warcclean``. ``WARCCLEAN_CACHE_DIR=off`` turns the cache off.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ENV = "WARCCLEAN_CACHE_DIR"
OFF = frozenset({"off", "none", "0", "false"})


def cache_dir() -> Path | None:
    """The cache's directory (not necessarily existing yet), or None when it is turned off."""
    configured = os.environ.get(ENV)
    if configured is not None:
        return (
            None
            if configured.strip().lower() in OFF or not configured.strip()
            else Path(configured).expanduser()
        )
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "warcclean"


def load(name: str, digest: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """The arrays (memory-mapped, read-only) and metadata of an entry; None if there is none."""
    root = cache_dir()
    if root is None:
        return None
    entry = root / f"{name}-{digest}"
    try:
        meta = json.loads((entry / "meta.json").read_text(encoding="utf-8"))
        arrays = {
            key: np.load(entry / f"{key}.npy", mmap_mode="r", allow_pickle=False)
            for key in meta["arrays"]
        }
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return arrays, meta


def save(name: str, digest: str, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> bool:
    """Write an entry; True if it is in place afterwards (written here or by a racing process)."""
    root = cache_dir()
    if root is None:
        return False
    entry = root / f"{name}-{digest}"
    if entry.is_dir():
        return True
    tmp: str | None = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=root)
        for key, array in arrays.items():
            np.save(os.path.join(tmp, f"{key}.npy"), np.ascontiguousarray(array))
        # meta.json last: `load` needs it, so a partly written directory is never read as whole
        Path(tmp, "meta.json").write_text(
            json.dumps({**meta, "arrays": sorted(arrays)}), encoding="utf-8"
        )
        os.chmod(tmp, 0o755)  # mkdtemp's 0700 would hide the entry from other users' processes
        os.rename(tmp, entry)
        tmp = None
    except OSError:
        pass  # read-only home, full disk, or another process renamed its copy in first
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return entry.is_dir()
