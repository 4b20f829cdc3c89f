"""Shared fixtures. ``../shared`` exists beside the repository on developer machines and in CI
only; tests that read it skip with a reason elsewhere, and the core suite never needs it.

CI (`.ci/run`) sets ``WARCCLEAN_REQUIRE_SHARED=1`` and ``WARCCLEAN_REQUIRE_BROWSER=1``: there a
missing ``../shared`` stops the session before any test runs, and a test skipped for want of
``../shared`` or of a headless Chromium fails instead, so CI cannot go green without them.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from distributed import Client

# HYPOTHESIS_PROFILE=release runs the long pre-release fuzzing campaign (see FUZZING.md).
settings.register_profile(
    "release",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "5000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# HYPOTHESIS_PROFILE=ci (.ci/run): the default budgets, drawn the same way on every run of the
# same code, so that CI's verdict on a commit is the one a local run of .ci/run gave; finding new
# inputs is the release campaign's job, whose failures are kept as explicit examples.
# No deadline and no too-slow health check either: speed is measured in bench/, never by a timed
# test on a shared machine.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The suite's processes (and the Dask workers and sandbox children they start) share one
# language-profile cache of their own, never the user's (pipeline/lang/cache.py).
if "WARCCLEAN_CACHE_DIR" not in os.environ:
    os.environ["WARCCLEAN_CACHE_DIR"] = tempfile.mkdtemp(prefix="warcclean-test-cache-")
    atexit.register(shutil.rmtree, os.environ["WARCCLEAN_CACHE_DIR"], ignore_errors=True)

# No Dask profiler in the suite's clusters, most of them threads of this process: its
# sys._current_frames() can deadlock CPython 3.11 for good (python/cpython#106883), which
# stopped a CI run in a job's worker thread. The job turns it off in the clusters it starts
# (tests/test_job_cluster.py); this covers the tests' own, and the worker processes they start
# inherit it. Dask reads the environment when it is imported.
os.environ["DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"] = "False"
if "dask" in sys.modules:
    sys.modules["dask"].config.refresh()

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"{path} is absent: ../shared is only beside the repository in development and CI"
        )
    return path


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A Dask client on a one-thread cluster in this process, shared by a module's tests."""
    # Imported here: distributed sets up its loggers on import, and imported with this file
    # (before pytest captures output) they write to a stream closed at exit, which printed
    # dozens of "Logging error" tracebacks after every run.
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="session")
def wcxb_dir() -> Path:
    return _shared_path("data", "wcxb-dev")


@pytest.fixture(scope="session")
def multilingual_dir() -> Path:
    return _shared_path("data", "multilingual-dev")


@pytest.fixture(scope="session")
def daniel_dir() -> Path:
    return _shared_path("data", "daniel")


@pytest.fixture(scope="session")
def magic_html_dir() -> Path:
    return _shared_path("data", "magic-html")


@pytest.fixture(scope="session")
def real_warcs_dir() -> Path:
    return _shared_path("warcs", "real")


# What each requirement's skips say: the fixtures' reason above, the `skipif` reasons of tests
# that look for ../shared themselves, and the browser tests' "no headless Chromium installed".
_REQUIREMENTS = {
    "WARCCLEAN_REQUIRE_SHARED": re.compile(r"\.\./shared|/shared(?:/|\b)"),
    "WARCCLEAN_REQUIRE_BROWSER": re.compile(r"Chromium|chromium"),
}


def _required(name: str) -> bool:
    return os.environ.get(name) == "1"


def pytest_sessionstart(session: pytest.Session) -> None:
    if _required("WARCCLEAN_REQUIRE_SHARED") and not SHARED.is_dir():
        pytest.exit(
            f"WARCCLEAN_REQUIRE_SHARED=1 but {SHARED} is missing: CI needs the development data "
            "beside the repository (unset the variable to run without it)",
            returncode=3,
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    for name, pattern in _REQUIREMENTS.items():
        if _required(name) and pattern.search(reason):
            report.outcome = "failed"
            report.longrepr = f"{name}=1 turns this skip into a failure: {reason}"
            return
