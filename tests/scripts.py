"""The repository's scripts (bench/, jobs/, stoplists/) as modules: tests load them by path,
since no installed package holds them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """The script at ``path`` as the module ``name`` (its file's stem by default), run once and
    reused: it is put in ``sys.modules`` before it runs, because dataclasses look their module
    up there while a class body runs, and because scripts import each other by name (bench's
    and jobs' own ``sys.path`` entries)."""
    name = name or path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__ or "").resolve() == path.resolve():
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
