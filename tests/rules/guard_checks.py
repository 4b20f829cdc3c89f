"""What every guard that only drops kept blocks of one kind must do, checked the same way."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from pipeline.types import Block


def assert_drops_exactly(
    keep: np.ndarray,
    out: np.ndarray,
    notes: tuple[str, ...],
    blocks: Sequence[Block],
    kind: Collection[str],
) -> None:
    """``out`` is ``keep`` without exactly its blocks whose text is in ``kind``, and the guard
    said so in ``notes`` when, and only when, it dropped any."""
    assert not (out & ~keep).any()
    dropped = keep & ~out
    kept = np.flatnonzero(keep)
    assert [blocks[i].text in kind for i in kept] == [bool(dropped[i]) for i in kept]
    assert bool(notes) == bool(dropped.any())
