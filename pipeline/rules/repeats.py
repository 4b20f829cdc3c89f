"""The same paragraph kept twice on one page: the second copy goes (`without_repeats`)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import add

import numpy as np

# Below this many characters a repeat is a label ("Share", "Read more", a price) that the
# reference may well hold twice; above it, the same paragraph twice is a duplicate (a product
# description in a tab and again in a mobile copy, a teaser and its post).
REPEAT_MIN_CHARS = 10
# The one character that lower-casing turns into two (U+0130, I with a dot above).
_WIDENED = "\u0130"


def without_repeats(keep: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """``keep`` without the kept blocks whose lower-cased text repeats an earlier kept block's,
    from `REPEAT_MIN_CHARS` characters on.

    Pages repeat their main text (responsive layouts render it twice, product pages copy the
    description into several tabs), and both copies look alike to a block classifier, so it
    keeps both. The WCXB metric counts words as multisets, so every copy beyond the reference's
    one is pure precision loss: dropping them raised cross-validated page F1 by 0.005 (see
    jobs/train_cleaner.py). Texts are compared as they are, lower-cased: normalising them to
    their words as well would catch a few more copies (30 blocks in 400 wcxb pages) for ten
    times the cost (1.3 ms a page against 0.14)."""
    out = keep.copy()
    kept = np.flatnonzero(keep).tolist()
    chosen = list(map(texts.__getitem__, kept))
    # Lower-casing every kept text was most of this function's cost (non-ASCII text lower-cases
    # a character at a time), and most kept texts repeat nothing. Texts equal lower-cased have
    # equal lower-cased lengths, so only those whose length another kept text shares need their
    # key. Lower-casing keeps a text's length but for U+0130, which becomes two characters (the
    # only such character in Unicode: tests/learned/test_neighbours.py checks every one), and
    # which a page's kept text all but never holds: one search of their concatenation says so.
    sizes = map(len, chosen)
    if _WIDENED in "".join(chosen):
        sizes = map(add, sizes, map(str.count, chosen, repeat(_WIDENED)))
    lengths = np.fromiter(sizes, np.intp, len(kept))
    if not lengths.size:
        return out
    # A text shorter than `REPEAT_MIN_CHARS` is never dropped, nor read: its copies are as short.
    maybe = (np.bincount(lengths)[lengths] > 1) & (lengths >= REPEAT_MIN_CHARS)
    firsts: set[str] = set()
    for j in np.flatnonzero(maybe).tolist():  # in page order: the first of each key stays
        key = chosen[j].lower()
        if key in firsts:
            out[kept[j]] = False
        else:
            firsts.add(key)
    return out
