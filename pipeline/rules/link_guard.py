"""A page where the learned model keeps a doubtful list of links keeps only what the rules agree on.

On sources and languages it never saw, the model's worst failure is a whole menu or a headline
list kept as content: on the multilingual dev pages, refitted with each page's language group
held out (5 folds), 4 of the 6 CJK full-text pages with precision below 0.3 kept link text as
36-65% of their kept characters, at a mean kept probability of 0.46-0.61, where Kimatu and
jusText scored 0.79-0.99 on the same pages. Such a page ("doubtful": at least `MIN_BLOCKS`
blocks, at least `MIN_LINK_SHARE` of the kept characters link text, and a size-weighted mean
probability of the kept blocks below `MAX_MEAN_PROB`) keeps only the kept blocks that Kimatu or
jusText also keep. Measured on those held-out probabilities (BENCHMARKS.md, "The link guard"):
multilingual F1 0.903 -> 0.920, Japanese 0.570 -> 0.752, CJK pages below precision 0.3 6 -> 3;
with whole source datasets held out 0.907 -> 0.916 and 5 -> 3.

English is left alone (`TRUSTED_LANGUAGES`): most of the training pages are English, and there
a link-heavy answer is usually a listing or a collection page whose links are the content. The
same rule on every language guarded 40 of the shipped model's 1,358 English pages and cost 0.006
WCXB F1 (0.896 -> 0.890).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from pipeline.cleaners.justext import JusTextCleaner
from pipeline.cleaners.kimatu import KimatuCleaner
from pipeline.types import Block, Verdict

MIN_BLOCKS = 10
MIN_LINK_SHARE = 0.3
MAX_MEAN_PROB = 0.7
TRUSTED_LANGUAGES = frozenset({"en"})

# The page notes (the docs' `notes` column) that say the guard looked at a page: its answer
# replaced the model's, or the rules kept none of the model's blocks and the model's stood.
GUARDED = "link_guard"
GUARD_DISAGREED = "link_guard_no_agreement"

_RULES = (KimatuCleaner(), JusTextCleaner())
# A block's characters and link characters, read in C under map (`Block.link_density`, a
# property, costs a Python call a block): every page outside English is looked at here and by
# the list guards (`pipeline.rules.link_lists`).
block_chars = itemgetter(Block._fields.index("n_chars"))
block_link_chars = itemgetter(Block._fields.index("n_link_chars"))


def doubtful(keep: np.ndarray, probs: np.ndarray, blocks: Sequence[Block]) -> bool:
    """Whether the model's kept blocks (``keep``, with their ``probs``) are a doubtful link list."""
    if len(blocks) < MIN_BLOCKS or not keep.any():
        return False
    kept = list(map(blocks.__getitem__, np.flatnonzero(keep).tolist()))
    sizes = np.fromiter(map(block_chars, kept), np.float64, len(kept))
    total = sizes.sum()
    if total <= 0:
        return False
    links = sum(map(block_link_chars, kept))
    if links < MIN_LINK_SHARE * total:
        return False
    return float(probs[keep] @ sizes) < MAX_MEAN_PROB * total


def guard(
    keep: np.ndarray,
    probs: np.ndarray,
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    language: str | None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` as the guard leaves it, and the page notes that say what it did (none when the
    page is not doubtful or its ``language`` is trusted)."""
    if language in TRUSTED_LANGUAGES or not doubtful(keep, probs, blocks):
        return keep, ()
    agreed = np.zeros(len(blocks), dtype=bool)
    for rule in _RULES:
        labeled = rule.label(blocks, stoplist)
        agreed |= np.fromiter((lb.verdict is Verdict.GOOD for lb in labeled), bool, len(blocks))
    narrowed = keep & agreed
    if not narrowed.any():
        return keep, (GUARD_DISAGREED,)
    return narrowed, (GUARDED,)
