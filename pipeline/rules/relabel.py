"""The last step of the rules that relabel what the model kept on the labelled blocks (reader
comments, forum signatures, product recommendations): the blocks they found get their new label,
unless too little of the page would stay kept, since a page that is all comments, or all
signatures, is what it is."""

from __future__ import annotations

from collections.abc import Sequence, Set

from pipeline.types import LabeledBlock, Verdict

# Kept characters that must be left besides the blocks relabelled.
MIN_LEFT_CHARS = 200


def relabel_kept(
    labeled: Sequence[LabeledBlock], hit: Set[int], verdict: Verdict
) -> list[LabeledBlock] | None:
    """``labeled`` with the blocks at the indexes ``hit`` (kept blocks) labelled ``verdict``;
    None when ``hit`` is empty or the other kept blocks hold less than `MIN_LEFT_CHARS`."""
    if not hit:
        return None
    good = Verdict.GOOD
    left = sum(
        lb.block.n_chars for i, lb in enumerate(labeled) if lb.verdict is good and i not in hit
    )
    if left < MIN_LEFT_CHARS:
        return None
    return [lb._replace(verdict=verdict) if i in hit else lb for i, lb in enumerate(labeled)]
