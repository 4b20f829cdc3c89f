"""Fixtures shared by the page rules' tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model_builders import stump


@pytest.fixture
def keep_long(tmp_path: Path) -> str:
    """A model that keeps every block longer than about 20 characters, to show a guard acting on
    the cleaner's own answer."""
    model = tmp_path / "keep-long.json"
    model.write_text(json.dumps({**stump(3.0, short=-2.0, long=2.0), "fallback_ratio": 0.0}))
    return str(model)
