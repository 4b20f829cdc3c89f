"""The wheel a user installs: compiled where a C compiler is, pure Python on request or without.

Builds real wheels from this checkout with pip (as `pip install .` does), so the build hook's
non-editable path is exercised too; the editable path is what the test run itself stands on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.jobhelpers import REPO

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
IN_PLACE_RECORD = REPO / "pipeline" / "_build_info.json"


def _build_wheel(out: Path, **env: str) -> zipfile.ZipFile:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "--wheel-dir",
            str(out),
            str(REPO),
        ],
        check=True,
        env={**os.environ, **env},
        capture_output=True,
    )
    (wheel,) = out.glob("warcclean-*.whl")
    return zipfile.ZipFile(wheel)


def _check_wheel(wheel: Path) -> subprocess.CompletedProcess[str]:
    script = REPO / "docker" / "check_wheel.py"
    return subprocess.run(
        [sys.executable, str(script), str(wheel)], capture_output=True, text=True, check=False
    )


def _has_compiler() -> bool:
    return any(shutil.which(cc) for cc in ("cc", "gcc", "clang"))


def test_wheel_is_compiled_where_a_compiler_is(tmp_path: Path) -> None:
    if not _has_compiler():
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("no C compiler but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("no C compiler on this machine")
    record_before = IN_PLACE_RECORD.read_bytes() if IN_PLACE_RECORD.exists() else None
    wheel = _build_wheel(tmp_path)
    names = wheel.namelist()
    for module in (
        "html/walk",
        "learned/treewalk",
        "learned/features",
        "learned/stacked",
        "learned/netwalk",
        "site/keys",
    ):
        assert [n for n in names if n.startswith(f"pipeline/{module}.") and n.endswith(".so")]
        # The source ships too: the freshness check reads it.
        assert f"pipeline/{module}.py" in names
    # The C walk over lexbor's nodes exists only compiled; its source and layout header ship.
    assert [n for n in names if n.startswith("pipeline/html/lexbor_walk.") and n.endswith(".so")]
    assert {"pipeline/html/lexbor_walk.pyx", "pipeline/html/lexbor_layout.h"} <= set(names)
    assert "pipeline/_build_info.json" in names
    assert any(n.startswith("pipeline/_stoplists/") for n in names)
    # A platform wheel, not "py3-none-any": it holds a CPython extension.
    assert "-none-any" not in Path(wheel.filename or "").name
    # Building a wheel leaves the checkout's own in-place build record alone.
    after = IN_PLACE_RECORD.read_bytes() if IN_PLACE_RECORD.exists() else None
    assert after == record_before
    # The Docker image's build stage accepts this wheel.
    check = _check_wheel(Path(wheel.filename or ""))
    assert check.returncode == 0, check.stderr


def test_pure_python_wheel_on_request(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path, WARCCLEAN_PURE_PYTHON="1")
    names = wheel.namelist()
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert "pipeline/_build_info.json" not in names
    assert "pipeline/html/segment.py" in names
    assert Path(wheel.filename or "").name.endswith("-py3-none-any.whl")
    # The Docker image's build stage refuses it, naming every module compiled.COMPILABLE lists.
    from pipeline.compiled import COMPILABLE

    check = _check_wheel(Path(wheel.filename or ""))
    assert check.returncode == 1
    assert "not compiled: " + ", ".join(COMPILABLE) in check.stderr
