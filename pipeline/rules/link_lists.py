"""Kept blocks that are items of a list of links are dropped, outside the trusted languages.

Related articles, rankings and "read more" lists beside an article are blocks whose text is all
link text, one after another. On sites the model never saw it keeps some of them, at the article's
side, with the article (issue 35: a Japanese news page kept an ``ol > li > a > div > p`` list of
related articles at p ~0.7), and the link guard (`pipeline.rules.link_guard`), which looks at
the page's answer as a whole, does not fire while the article dominates it. This guard looks at
the list instead of the page. A block is a *link-list item* when it lies in a run of at least
`MIN_RUN` consecutive blocks each at least `MIN_LINK_DENSITY` link text; a kept link-list item is
dropped unless that would leave nothing kept.

Measured on the shipped model's answers and on held-out ones (BENCHMARKS.md, "Link lists, leads
and magic-html"): outside WCXB such blocks are nearly never content (multilingual-dev: 55 of
177,536 characters; magic-html: 1,935 of 227,071), and every one of the 161 the model kept on the
magic-html pages, whose sites it never saw, was boilerplate. With each language held out, the
multilingual combined score goes 0.906 -> 0.909 and Japanese 0.886 -> 0.903. WCXB's references
count such lists as content on listing, collection and even article pages (75k of 87k kept
characters), so English (`TRUSTED_LANGUAGES`) is left alone, as the link guard leaves it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pipeline.rules.link_guard import TRUSTED_LANGUAGES, block_chars, block_link_chars
from pipeline.types import Block

MIN_LINK_DENSITY = 0.9
MIN_RUN = 2

# The page note that says kept link-list items were dropped.
LIST_DROPPED = "link_list_dropped"


def link_densities(blocks: Sequence[Block]) -> np.ndarray:
    """Every block's `Block.link_density`, and -1.0 for a block without text. The same
    quotients: counts of characters convert to float64 exactly, and one division of two such
    floats is Python's division of the two integers."""
    n = len(blocks)
    chars = np.fromiter(map(block_chars, blocks), np.float64, n)
    links = np.fromiter(map(block_link_chars, blocks), np.float64, n)
    out = np.full(n, -1.0)
    np.divide(links, chars, out=out, where=chars > 0)
    return out


def link_list_items(blocks: Sequence[Block]) -> np.ndarray:
    """Whether each block is a link-list item: in a run of at least `MIN_RUN` consecutive blocks
    of link density at least `MIN_LINK_DENSITY`."""
    linked = link_densities(blocks) >= MIN_LINK_DENSITY  # never a block without text (-1)
    # Runs of True in ``linked``, as the edges of the padded array: vectorised, because this
    # runs on every page outside English and indexing a numpy array block by block is slow.
    edges = np.flatnonzero(np.diff(np.concatenate(([False], linked, [False])).astype(np.int8)))
    out = np.zeros(len(blocks), dtype=bool)
    for start, end in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        if end - start >= MIN_RUN:
            out[start:end] = True
    return out


def guard(
    keep: np.ndarray, blocks: Sequence[Block], language: str | None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without its link-list items (see the module's docstring), and the page note when
    it dropped any; unchanged for a trusted ``language`` or when nothing else would be kept."""
    return drop_items(keep, blocks, language, link_list_items, LIST_DROPPED)


def drop_items(
    keep: np.ndarray,
    blocks: Sequence[Block],
    language: str | None,
    items: Callable[[Sequence[Block]], np.ndarray],
    note: str,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks ``items`` marks, and ``note`` when any went; unchanged
    for a trusted ``language`` (WCXB's references count such lists as content) or when nothing
    else would stay kept. The list guards' shared step (this one's, `teaser_lists`')."""
    if language in TRUSTED_LANGUAGES or not keep.any():
        return keep, ()
    dropped = keep & items(blocks)
    if not dropped.any() or not (keep & ~dropped).any():
        return keep, ()
    return keep & ~dropped, (note,)
