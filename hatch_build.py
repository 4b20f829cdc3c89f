"""Build hook: compile the per-node hot loops with Cython when the machine can.

The modules listed under ``[tool.hatch.build.targets.wheel.hooks.custom] modules`` in
pyproject.toml are plain Python; a ``.pxd`` beside one adds C types for its locals. When Cython
and a C compiler are both usable, each is compiled to an extension module that Python imports in
place of the ``.py`` (an extension wins over a source file of the same name). Otherwise, or with
``WARCCLEAN_PURE_PYTHON=1``, the wheel is pure Python and behaves identically, only slower: a
missing compiler must never make warcclean uninstallable.

A listed ``.pyx`` module exists only compiled (its importers fall back without it); C headers it
includes sit in its own folder, which is put on the compiler's include path.

Editable installs compile in place, next to the sources. ``pipeline/_build_info.json`` records
the SHA-256 of every source that was compiled, so `pipeline.compiled` can refuse to run an
extension built from an older version of its ``.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUILD_INFO = "pipeline/_build_info.json"
COMPILED = "pipeline/compiled.py"
# The logic must not depend on annotations being enforced: the .py runs uncompiled too, so
# Cython reads types from the .pxd files only.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "embedsignature": True}


class CompileHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        modules: list[str] = list(self.config.get("modules", []))
        editable = version == "editable"
        if editable:
            # Whatever happens next, an old in-place build must not outlive this install.
            (root / BUILD_INFO).unlink(missing_ok=True)
        if os.environ.get("WARCCLEAN_PURE_PYTHON") == "1":
            self.app.display_info("warcclean: WARCCLEAN_PURE_PYTHON=1, building pure Python")
            if editable:
                self._remove_inplace(root, modules)
            return
        try:
            built = self._compile(root, modules, inplace=editable)
        except Exception as exc:  # any toolchain failure: fall back, loudly
            self.app.display_warning(
                f"warcclean: compiling {', '.join(modules)} failed ({type(exc).__name__}: "
                f"{exc}); installing the pure-Python modules, which are slower"
            )
            if editable:
                self._remove_inplace(root, modules)
            return
        digest = _load_source_digest(root)
        info = {
            "compiler": "cython",
            "modules": {_module_name(src): digest(root / src) for src in modules},
        }
        # A regular wheel takes its record from the build directory, leaving a checkout's
        # in-place build (and its record) alone.
        info_path = root / BUILD_INFO if editable else self._work / "_build_info.json"
        info_path.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", "utf-8")
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if not editable:
            build_data["force_include"][str(info_path)] = BUILD_INFO
            for target, path in built.items():
                build_data["force_include"][str(path)] = target

    def _compile(self, root: Path, modules: list[str], *, inplace: bool) -> dict[str, Path]:
        """Compile ``modules``; returns wheel path -> built file (in place when ``inplace``)."""
        from Cython.Build import cythonize
        from setuptools import Distribution, Extension
        from setuptools.command.build_ext import build_ext

        # Kept until `finalize`: the wheel is written from the built files after this returns.
        work = self._work = Path(tempfile.mkdtemp(prefix="warcclean-build-"))
        cwd = Path.cwd()
        try:
            # setuptools resolves sources and in-place targets against the working directory.
            os.chdir(root)
            extensions = cythonize(
                [
                    Extension(_module_name(src), [src], include_dirs=[str(Path(src).parent)])
                    for src in modules
                ],
                compiler_directives=DIRECTIVES,
                build_dir=str(work / "c"),
                quiet=True,
            )
            cmd = build_ext(Distribution({"ext_modules": extensions}))
            cmd.build_temp = str(work / "temp")
            cmd.build_lib = str(work / "lib")
            cmd.inplace = inplace
            cmd.ensure_finalized()
            cmd.run()
        finally:
            os.chdir(cwd)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built: dict[str, Path] = {}
        for src in modules:
            rel = _stem(src) + suffix
            out = (root if inplace else work / "lib") / rel
            if not out.is_file():
                raise FileNotFoundError(f"the build did not produce {out}")
            built[rel] = out
        return built

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)

    @staticmethod
    def _remove_inplace(root: Path, modules: list[str]) -> None:
        # A stale in-place extension would shadow the source it was built from.
        for src in modules:
            path = root / _stem(src)
            for ext in path.parent.glob(path.name + ".*.so"):
                ext.unlink()
            for ext in path.parent.glob(path.name + ".*.pyd"):
                ext.unlink()


def _load_source_digest(root: Path) -> Callable[[Path], str]:
    # The digest `pipeline.compiled.check_fresh` compares with, from that very module (standard
    # library only, so it loads without warcclean's dependencies in the build environment).
    spec = importlib.util.spec_from_file_location("_warcclean_compiled", root / COMPILED)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {root / COMPILED}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.source_digest


def _stem(src: str) -> str:
    return src.removesuffix(".py").removesuffix(".pyx")


def _module_name(src: str) -> str:
    return _stem(src).replace("/", ".")
