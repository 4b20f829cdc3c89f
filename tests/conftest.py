"""Shared fixtures. ``../shared`` exists beside the repository on developer machines and in CI
only; tests that read it skip with a reason elsewhere, and the core suite never needs it."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# HYPOTHESIS_PROFILE=release runs the long pre-release fuzzing campaign (see FUZZING.md).
settings.register_profile(
    "release",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "5000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The suite's processes (and the Dask workers and sandbox children they start) share one
# language-profile cache of their own, never the user's (pipeline/lang/cache.py).
if "WARCCLEAN_CACHE_DIR" not in os.environ:
    os.environ["WARCCLEAN_CACHE_DIR"] = tempfile.mkdtemp(prefix="warcclean-test-cache-")
    atexit.register(shutil.rmtree, os.environ["WARCCLEAN_CACHE_DIR"], ignore_errors=True)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"{path} is absent: ../shared is only beside the repository in development and CI"
        )
    return path


@pytest.fixture(scope="session")
def wcxb_dir() -> Path:
    return _shared_path("data", "wcxb-dev")


@pytest.fixture(scope="session")
def multilingual_dir() -> Path:
    return _shared_path("data", "multilingual-dev")


@pytest.fixture(scope="session")
def real_warcs_dir() -> Path:
    return _shared_path("warcs", "real")
