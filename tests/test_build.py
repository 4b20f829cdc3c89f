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

# The compiled wheel takes about 2 minutes of CPU to build; on a shared 2-core machine that has
# been 7 to over 10 minutes of wall time, charged to the first test that asks for it.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]
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


@pytest.fixture(scope="module")
def compiled_wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel `pip install .` builds here, compiled: built once for the tests below."""
    if not _has_compiler():
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("no C compiler but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("no C compiler on this machine")
    record_before = IN_PLACE_RECORD.read_bytes() if IN_PLACE_RECORD.exists() else None
    wheel = _build_wheel(tmp_path_factory.mktemp("wheel"))
    # Building a wheel leaves the checkout's own in-place build record alone.
    after = IN_PLACE_RECORD.read_bytes() if IN_PLACE_RECORD.exists() else None
    assert after == record_before
    return wheel


def test_wheel_is_compiled_where_a_compiler_is(compiled_wheel: zipfile.ZipFile) -> None:
    wheel = compiled_wheel
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


# What the installed wheel's environment borrows from this one: every distribution but
# warcclean's own (its editable install points back into the checkout).
_OWN = ("pipeline", "warcclean-", "_editable_impl_warcclean", "__editable__", "__pycache__")


def _fresh_environment(root: Path, wheel: Path) -> Path:
    """A new venv holding the wheel, its dependencies linked from this environment (installing
    them again would download or build them); the venv's python."""
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(_OWN):
            (site / entry.name).symlink_to(entry)
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return python


def test_the_installed_wheel_runs_the_job_outside_the_checkout(
    compiled_wheel: zipfile.ZipFile, tmp_path: Path
) -> None:
    """`pip install <wheel>` in a fresh venv, then `warcclean run` from another directory: the
    same rows as `dask submit jobs/clean_warcs.py` from the clone."""
    from tests.jobhelpers import DASK, rows

    python = _fresh_environment(tmp_path / "venv", Path(compiled_wheel.filename or ""))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DASK_DISTRIBUTED__WORKER__DAEMON"] = "False"
    # The package the installed command imports is the wheel's, compiled, not the checkout's.
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import pipeline, pipeline.compiled as c; print(pipeline.__file__); "
            "print(len(c.compiled_modules()))",
        ],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
        check=True,
    )
    where, compiled = probe.stdout.split()
    assert Path(where).is_relative_to(tmp_path / "venv") and int(compiled) > 0
    sample = REPO / "samples" / "sample.warc.gz"
    common = ["--output", "{out}", "--workers", "1", "--no-progress", "--no-html-report"]
    runs = {
        "installed": ([str(python.with_name("warcclean")), "run", str(sample)], elsewhere),
        "clone": ([DASK, "submit", "jobs/clean_warcs.py", "samples/sample.warc.gz"], REPO),
    }
    for name, (argv, cwd) in runs.items():
        out = tmp_path / f"out-{name}"
        args = [a.replace("{out}", str(out)) for a in common]
        proc = subprocess.run(
            [*argv, *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=540,
            check=False,
        )
        assert proc.returncode == 0, f"{name}: {proc.stdout}\n{proc.stderr}"
        assert (out / "_done").is_dir()
    installed, clone = rows(tmp_path / "out-installed"), rows(tmp_path / "out-clone")
    # The sample's pages but its empty one (a menu link alone, `fragments_dropped`: a rejection).
    assert len(installed) == 25
    assert installed == clone
