"""The kept blocks short enough to be a notice or an appeal, which two guards read.

`pipeline.rules.script_notice` and `pipeline.rules.support_appeal` each search a page's short
kept blocks; listing them is most of either guard's cost on a page where neither finds anything,
so `pipeline.rules.sequence` lists them once for both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.types import Block


def short_kept(keep: np.ndarray, blocks: Sequence[Block], max_chars: int) -> list[tuple[int, str]]:
    """The index and text of every kept block of at most ``max_chars`` characters, in order."""
    return [
        (i, text) for i in np.flatnonzero(keep).tolist() if len(text := blocks[i].text) <= max_chars
    ]
