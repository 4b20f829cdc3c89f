"""BTE, Body Text Extraction (Finn, Kushmerick & Smyth 2001), as a block cleaner.

The page body (scripts, styles and comments already removed by segmentation) is a sequence of
tokens (+1 each) and tags (-1 each). The main content is the one contiguous stretch that
maximises tokens minus tags inside it. The original searched all O(n^2) stretches; Baroni et al.'s
variant for CleanEval finds the same stretch in linear time, which is Kadane's maximum-subarray
problem. We run it over the run-length encoded sequence that `pipeline.segment` records in
`Block.runs` (positive = that many tokens, negative = that many tags): a maximal stretch never
starts or ends inside a run (cutting a token run short or taking part of a tag run only lowers
the score), so the answer over runs is the answer over single items.

Blocks are then labelled by where their tokens fall: a block is good when most of its tokens lie
inside the stretch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pipeline.cleaners import register
from pipeline.types import Block, LabeledBlock, Verdict


def max_stretch(runs: Sequence[float]) -> tuple[int, int, float]:
    """The contiguous stretch of ``runs`` with the largest sum: ``(start, end, score)``.

    ``end`` is exclusive. Ties are broken deterministically: among all stretches with the maximal
    sum, the one with the smallest ``start`` and, for that start, the smallest ``end`` (the
    earliest and shortest: zero-sum runs at its edges are left out). When no stretch has a positive
    sum (no tokens at all) the result is the empty stretch ``(0, 0, 0)``.

    Works on prefix sums: the best stretch ending at ``j`` starts at the earliest minimum of the
    prefix sums before ``j``. That minimum's position never moves backwards as ``j`` grows, so the
    first ``j`` that reaches the best score also has the earliest start.
    """
    best_score: float = 0
    best_start = best_end = 0
    prefix: float = 0
    min_prefix: float = 0
    min_at = 0
    for j, value in enumerate(runs):
        prefix += value
        score = prefix - min_prefix
        if score > best_score:
            best_score, best_start, best_end = score, min_at, j + 1
        if prefix < min_prefix:
            min_prefix, min_at = prefix, j + 1
    return best_start, best_end, best_score


def _block_runs(block: Block) -> tuple[int, ...]:
    if block.runs is not None:
        return block.runs
    # A block segmented without runs still has its words; treating them as one token run keeps
    # the block in the sequence (its tags are unknown, so none are charged).
    return (block.n_words,) if block.n_words else ()


@register("bte")
class BteCleaner:
    """Labels as good the blocks whose tokens lie mostly inside BTE's maximal stretch.

    ``tag_weight`` is what one tag costs against one token (1.0 in the paper); ``min_fraction``
    is the share of a block's tokens that must lie inside the stretch for the block to be good
    (0.5: a strict majority). The stoplist is not used: BTE is language independent.
    """

    name: ClassVar[str] = "bte"
    # Asks `clean_html` to have segmentation record the token/tag runs this cleaner reads.
    needs_runs: ClassVar[bool] = True

    def __init__(self, tag_weight: float = 1.0, min_fraction: float = 0.5) -> None:
        tag_weight = float(tag_weight)
        min_fraction = float(min_fraction)
        if not tag_weight >= 0:
            raise ValueError(f"tag_weight must be >= 0, got {tag_weight}")
        if not 0 <= min_fraction < 1:
            raise ValueError(f"min_fraction must be in [0, 1), got {min_fraction}")
        self.tag_weight = tag_weight
        self.min_fraction = min_fraction

    def params(self) -> dict[str, Any]:
        # Only what differs from the paper's BTE is reported, so plain BTE records no params.
        out: dict[str, Any] = {}
        if self.tag_weight != 1.0:
            out["tag_weight"] = self.tag_weight
        if self.min_fraction != 0.5:
            out["min_fraction"] = self.min_fraction
        return out

    def label(
        self, blocks: Sequence[Block], stoplist: frozenset[str] | None
    ) -> list[LabeledBlock]:
        del stoplist
        if blocks and all(b.runs is None for b in blocks):
            raise ValueError("BTE needs blocks segmented with record_runs=True")
        per_block = [_block_runs(b) for b in blocks]
        weight = self.tag_weight
        sequence: list[float] = []
        for runs in per_block:
            sequence.extend(r if r > 0 else r * weight for r in runs)
        start, end, _ = max_stretch(sequence)

        labeled: list[LabeledBlock] = []
        offset = 0
        for block, runs in zip(blocks, per_block):
            tokens = inside = 0
            for i, r in enumerate(runs, offset):
                if r > 0:
                    tokens += r
                    if start <= i < end:
                        inside += r
            offset += len(runs)
            fraction = inside / tokens if tokens else 0.0
            good = tokens > 0 and fraction > self.min_fraction
            labeled.append(
                LabeledBlock(block, Verdict.GOOD if good else Verdict.BAD, None, fraction)
            )
        return labeled
