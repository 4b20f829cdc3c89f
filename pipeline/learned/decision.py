"""Which blocks of a page to keep, given the model's probability for each.

The shipped model keeps those at or above the threshold that maximises the page's expected F1
(`expected_f1_threshold`), so the amount kept follows how sure and how large the page's likely
content is; older model files and an explicit ``threshold=`` use one threshold for every page.
Training tunes its thresholds through the same `decide` (jobs/train_cleaner.py), so what was
measured there is what runs here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pipeline.rules.repeats import without_repeats


def decide(
    probs: np.ndarray,
    threshold: float | None,
    fallback_ratio: float = 0.0,
    texts: Sequence[str] | None = None,
    drop_repeats: bool = False,
    sizes: np.ndarray | None = None,
) -> np.ndarray:
    """Which blocks to keep: those at or above ``threshold``, or, when it is None, above the
    page's own `expected_f1_threshold` over the blocks' ``sizes`` (their characters). A page
    where none is falls back to its most likely block(s), those within ``fallback_ratio`` of the
    best probability: the training data's pages almost always have some main content, and an
    empty page is the worst answer the metric knows. With ``drop_repeats``, kept blocks that
    repeat an earlier kept one are then dropped (`pipeline.rules.repeats.without_repeats`), which
    needs the blocks' ``texts``. Training tunes the threshold through this same function
    (jobs/train_cleaner.py)."""
    if threshold is None:
        if sizes is None or len(sizes) != probs.size:
            raise ValueError("an expected-F1 threshold needs the sizes of the page's blocks")
        threshold = expected_f1_threshold(probs, sizes)
    keep = probs >= threshold
    if probs.size and not keep.any() and fallback_ratio > 0:
        best = probs.max()
        if best > 0:
            keep = probs >= best * fallback_ratio
    if drop_repeats:
        if texts is None or len(texts) != probs.size:
            raise ValueError("a model that drops repeats needs the texts of the page's blocks")
        keep = without_repeats(keep, texts)
    return keep


def expected_f1_threshold(probs: np.ndarray, sizes: np.ndarray) -> float:
    """The probability threshold that maximises the page's expected F1 if each block is content
    with its probability, every block weighted by its size.

    Of the characters a set of kept blocks holds, kept(p * size) are expected to be content, out of
    all(p * size) on the page, so its expected F1 is about 2 * kept(p * size) / (kept(size) + all(p
    * size)). The best set is a top-k by probability (the probability ranking principle for
    F-measure; Nan et al., ICML 2012), so one sort and two cumulative sums find it;
    tests/learned/test_neighbours.py checks it against every subset. A page whose content is sure (a
    few very likely blocks) keeps only those; one whose likely content is spread thin keeps more of
    its doubtful blocks, which a single threshold for all pages cannot do. On site-grouped
    out-of-fold probabilities of the 1,185 scored training pages it beat the best global threshold
    by 0.003 to 0.006 page F1 (four fold assignments; jobs/train_cleaner.py)."""
    if probs.size == 0:
        return 1.0
    order = np.argsort(-probs, kind="stable")
    ranked = probs[order]
    size = np.asarray(sizes, dtype=np.float64)[order]
    gain = np.cumsum(ranked * size)
    if gain[-1] <= 0:  # no expected content (no text, or no probability): the likeliest at most
        return float(ranked[0]) if ranked[0] > 0 else math.inf
    # Every denominator is at least gain[-1] > 0; the constant 2 does not move the argmax.
    return float(ranked[int(np.argmax(gain / (np.cumsum(size) + gain[-1])))])


def smooth(probs: np.ndarray, weight: float) -> np.ndarray:
    """Mix each block's probability with the mean of its two neighbours' (``weight`` of it).

    Content comes in runs: a short line between two article paragraphs is usually article, a
    long one inside a menu usually menu. The features already see the neighbours' features; this
    lets the neighbours' *decisions* count as well. Page edges use the block itself.
    """
    if weight <= 0 or probs.size < 2:
        return probs
    prev = np.concatenate((probs[:1], probs[:-1]))
    nxt = np.concatenate((probs[1:], probs[-1:]))
    return (1.0 - weight) * probs + weight * 0.5 * (prev + nxt)
