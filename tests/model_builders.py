"""Model files small enough to reason about by hand, for the learned cleaner's tests."""

from __future__ import annotations

from pipeline.learned.columns import FEATURE_NAMES
from pipeline.learned.model import FORMAT

LOG_CHARS = FEATURE_NAMES.index("log_chars")


def stump(threshold: float = 3.0, short: float = -2.0, long: float = 2.0) -> dict:
    """One tree: log_chars <= threshold -> ``short`` (boilerplate by default), else ``long``
    (content); a block's probability is the logistic of its leaf."""
    return {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "threshold": 0.5,
        "fallback_ratio": 0.5,
        "model": {
            "kind": "trees",
            "baseline": 0.0,
            "depth": 1,
            "feature": [[LOG_CHARS, 0, 0]],
            "threshold": [[threshold, 0.0, 0.0]],
            "left": [[1, 1, 2]],
            "right": [[2, 1, 2]],
            "value": [[0.0, short, long]],
        },
        "metadata": {},
    }
