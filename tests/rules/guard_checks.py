"""What every guard that only drops kept blocks of one kind must do, checked the same way."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from pipeline.html.segment import parse, segment
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


def dropped_by(
    guard: Callable[..., tuple[np.ndarray, tuple[str, ...]]],
    note: str,
    html: bytes,
    keep: Sequence[bool] | None = None,
) -> list[str]:
    """The texts a guard over the parsed page (``guard(keep, blocks, tree)``) drops when the
    model keeps ``keep`` (every block when None); it must say ``note`` when, and only when, it
    drops any."""
    tree: Any = parse(html)
    blocks = segment(tree)
    before = np.ones(len(blocks), dtype=bool) if keep is None else np.array(keep)
    after, notes = guard(before, blocks, tree)
    out = [b.text for b, k, a in zip(blocks, before, after, strict=True) if k and not a]
    assert (notes == (note,)) == bool(out)
    return out
