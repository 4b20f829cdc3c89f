"""Which modules run compiled, and a guard against running a stale compiled module.

The build (hatch_build.py) compiles a few hot modules with Cython when it can. Python then
imports the extension in place of the ``.py``; in an editable checkout the extension sits next
to the source, so after an edit of the source the old extension would silently keep running.
Each compiled module therefore calls `check_fresh` at import, which compares its source with the
SHA-256 recorded at build time in ``_build_info.json``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_INFO = PACKAGE_DIR / "_build_info.json"
# Modules the build may compile (kept in step with pyproject.toml's hook configuration).
# `pipeline.html.lexbor_walk` and `pipeline.html.markup_scan` have no Python source (a .pyx):
# they exist only where the build compiled.
COMPILABLE = (
    "pipeline.html.walk",
    "pipeline.html.lexbor_walk",
    "pipeline.html.markup_scan",
    "pipeline.html.structure",
    "pipeline.render.blocks",
    "pipeline.render.table_units",
    "pipeline.rules.comments",
    "pipeline.learned.treewalk",
    "pipeline.learned.features",
    "pipeline.learned.stacked",
    "pipeline.learned.netwalk",
    "pipeline.site.keys",
    "pipeline.site.utf8_hash",
)


class StaleBuildError(ImportError):
    """A compiled module was built from a different version of its source file."""


@functools.lru_cache(maxsize=1)
def _recorded() -> dict[str, str]:
    try:
        info = json.loads(BUILD_INFO.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    modules = info.get("modules", {})
    return {str(k): str(v) for k, v in modules.items()}


def is_compiled_file(path: str | None) -> bool:
    return path is not None and not path.endswith((".py", ".pyc"))


def source_digest(source: Path) -> str:
    """The SHA-256 a build records for a compiled module's source: of the file, and for a
    ``.pyx`` also of the C headers beside it (lexbor_walk.pyx's struct layout lives in one).
    hatch_build.py loads this module by path to compute the same digest at build time."""
    digest = hashlib.sha256(source.read_bytes())
    if source.suffix == ".pyx":
        for header in sorted(source.parent.glob("*.h")):
            digest.update(header.read_bytes())
    return digest.hexdigest()


def check_fresh(module: str, file: str | None) -> None:
    """Raise `StaleBuildError` when ``file`` (a module's ``__file__``) is a compiled extension
    whose source has changed since it was built. Pure-Python modules always pass."""
    if not is_compiled_file(file):
        return
    assert file is not None
    extension = Path(file)
    stem = module.rpartition(".")[2]
    source = extension.parent / (stem + ".py")
    if not source.exists():
        source = extension.parent / (stem + ".pyx")  # a compiled-only module
    if not source.exists():
        return  # an install without sources cannot drift from them
    digest = source_digest(source)
    if _recorded().get(module) != digest:
        raise StaleBuildError(
            f"{source}{' (or a C header beside it)' if source.suffix == '.pyx' else ''} has "
            f"changed since {extension.name} was compiled from it; rebuild with "
            f"`pip install -e .` in the checkout (or delete {extension} to run the source)"
        )


def load_source(module: str) -> ModuleType:
    """A fresh, uncompiled copy of ``module`` (e.g. ``"pipeline.html.walk"``) loaded from its
    ``.py`` under a private name, to run side by side with the compiled one (tests, bench)."""
    source = PACKAGE_DIR.parent.joinpath(*module.split(".")).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(f"_source_{module.replace('.', '_')}", source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {source}")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def compiled_modules() -> dict[str, bool]:
    """For each module the build may compile: whether it is loaded from a compiled extension."""
    out: dict[str, bool] = {}
    for name in COMPILABLE:
        spec = importlib.util.find_spec(name)
        out[name] = spec is not None and is_compiled_file(spec.origin)
    return out


# Variables of a worker's environment that this package's children do not inherit. Dask's nanny
# sets MALLOC_TRIM_THRESHOLD_=65536 for its workers (``distributed.nanny.pre-spawn-environ``) so
# that the memory a worker frees shows at once in the RSS its memory monitor reads. In the child
# that cleans the pages, it hands each page's memory back to the kernel and faults it in again
# for the next page: 19 times the page faults, 1.4 ms of CPU per page, a fifth of a page's cost
# (bench/overhead.py). The nanny's monitor measures the worker process, not the children, and a
# child's address space has its own cap (`Limits.isolate_memory_bytes`), so children run with
# glibc's adaptive default, as `process_warc` does in any other process.
CHILD_ENV_DROPPED = ("MALLOC_TRIM_THRESHOLD_",)


def child_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child process of this package (`pipeline.supervise`'s cleaner,
    `pipeline.sandbox`'s parser) starts with: ``environ`` (default `os.environ`) with this
    `pipeline` first on ``PYTHONPATH`` and without `CHILD_ENV_DROPPED`."""
    env = dict(os.environ if environ is None else environ)
    for name in CHILD_ENV_DROPPED:
        env.pop(name, None)
    root = str(PACKAGE_DIR.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return env


def child_command(module: str) -> list[str]:
    """The command that runs ``module`` (``python -m``) in a child process that imports the
    same `pipeline` as this one (started with `child_env`).

    ``-m`` puts the working directory first on the child's ``sys.path``, ahead of
    ``PYTHONPATH``: a job started in a source checkout beside a regular install would clean its
    pages with the checkout's package, uncompiled, or of another version than the worker's.
    Python 3.11's ``-P`` leaves the working directory out; on 3.10 the child is started as before.
    """
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe_path, "-m", module]
