"""Shared fixtures. ``../shared`` exists beside the repository on developer machines and in CI
only; tests that read it skip with a reason elsewhere, and the core suite never needs it."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is only beside the repository in development and CI")
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
