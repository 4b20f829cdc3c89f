"""Refuse a warcclean wheel that lacks a compiled module: the image's build stage runs this.

    python docker/check_wheel.py WHEEL [--source pipeline/compiled.py]

The modules that must be compiled are read from ``COMPILABLE`` in `pipeline/compiled.py` (parsed,
not imported: the build stage has no runtime dependencies installed), so the list has one home
and a module moved or added there is checked here too. Exits 1 naming every missing module.
"""

from __future__ import annotations

import argparse
import ast
import sys
import zipfile
from pathlib import Path

DEFAULT_SOURCE = Path(__file__).resolve().parent.parent / "pipeline" / "compiled.py"


def compilable(source: Path) -> tuple[str, ...]:
    """The dotted module names assigned to ``COMPILABLE`` in ``source``."""
    for node in ast.parse(source.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "COMPILABLE" for target in node.targets
        ):
            names = ast.literal_eval(node.value)
            if names and all(isinstance(name, str) for name in names):
                return tuple(names)
    raise ValueError(f"{source}: no COMPILABLE tuple of module names")


def missing_extensions(wheel: Path, modules: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that have no extension module (.so or .pyd) in ``wheel``."""
    names = zipfile.ZipFile(wheel).namelist()
    missing = []
    for module in modules:
        stem = module.replace(".", "/") + "."
        if not any(n.startswith(stem) and n.endswith((".so", ".pyd")) for n in names):
            missing.append(module)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    args = parser.parse_args(argv)
    missing = missing_extensions(args.wheel, compilable(args.source))
    if missing:
        print(f"{args.wheel.name}: not compiled: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
