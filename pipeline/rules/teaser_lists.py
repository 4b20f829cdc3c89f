"""Kept items of a list of teasers are dropped, outside the trusted languages.

A teaser is what a page shows of another page: a linked title followed by a line of its own,
the summary, or the source and date, together in one list item, and many such items in a row
("related news", recommendations). The summary is link-free prose, so it looks like content to
the model and the link-list guard (`pipeline.rules.link_lists`) does not see it, which needs
runs of link blocks. On pages whose own content is short, a kept teaser list is most of the
answer (issue 35: beside a Chinese film-news item of 133 characters, magic-html's
zh-magic-art-013 kept about 440 characters of teasers under "热门新闻", precision 0.23).

A block is a *teaser part* when it is a link-free block (link density below
`MAX_SUMMARY_LINK_DENSITY`) inside a list item (``li`` on its path) that directly follows a link
block (link density at least `link_lists.MIN_LINK_DENSITY`) with the same parent element, and
the page holds at least `MIN_ITEMS` such pairs of the same tags and classes whose linked lines
are headlines (a median of at least `MIN_TITLE_CHARS` characters): the pair's two blocks are
both teaser parts. Kept teaser parts are dropped unless that would leave nothing kept. The
headline length spares comment and forum threads, whose items pair an author's linked name
with the post (on the two WCXB forum pages with such pairs, names of a median 3 and 4
characters).

Measured on held-out probabilities (trees refitted without the page's language, or without its
source dataset; BENCHMARKS.md, "Teaser lists"): outside English every kept teaser part was
boilerplate (multilingual-dev 248 characters on 1 page, magic-html 8,415 on 4 pages, none
content), and so were magic-html's English ones (4,250 characters on 4 pages, datasets held out);
the multilingual combined score goes 0.9109 -> 0.9120 (datasets held out 0.9134 -> 0.9145) and
magic-html's non-English pages 0.806 -> 0.814. WCXB's references count them as content (10,131 of
15,045 kept characters, on listing and collection pages), so English (`TRUSTED_LANGUAGES`) is
left alone, as the link-list guard leaves it. Without the list item on the path the rule also
takes an article's sections under linked headings (on WCXB 142,587 content characters against
17,421, and 619 content characters of a magic-html Chinese page), so the list item is required.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import median

import numpy as np

from pipeline.rules.link_lists import MIN_LINK_DENSITY, drop_items, link_densities
from pipeline.types import Block

MAX_SUMMARY_LINK_DENSITY = 0.5
MIN_ITEMS = 2
MIN_TITLE_CHARS = 10

# The page note that says kept teaser parts were dropped.
TEASERS_DROPPED = "teasers_dropped"


def _parent(dom_path: str) -> str:
    return dom_path.rpartition(".")[0]


def teaser_parts(blocks: Sequence[Block]) -> np.ndarray:
    """Whether each block is a teaser part (see the module's docstring)."""
    n = len(blocks)
    out = np.zeros(n, dtype=bool)
    if n < 2 * MIN_ITEMS:
        return out
    density = link_densities(blocks)
    # Candidates first, with numpy: a link block followed by a link-free one, which few pairs
    # of a page are; only those are compared by path.
    linked = density >= MIN_LINK_DENSITY
    free = (density >= 0.0) & (density < MAX_SUMMARY_LINK_DENSITY)
    pairs: list[tuple[int, tuple[str, str, str, str]]] = []
    for i in np.flatnonzero(linked[:-1] & free[1:]).tolist():
        title, summary = blocks[i], blocks[i + 1]
        if "li" not in summary.dom_path.split("."):
            continue
        if _parent(title.dom_path) != _parent(summary.dom_path):
            continue
        pairs.append((i, (title.dom_path, title.style, summary.dom_path, summary.style)))
    if len(pairs) < MIN_ITEMS:
        return out
    # Repeated, or it is one linked line above one paragraph, which an article also has.
    titles: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i, shape in pairs:
        titles[shape].append(blocks[i].n_chars)
    teasers = {
        shape
        for shape, sizes in titles.items()
        if len(sizes) >= MIN_ITEMS and median(sizes) >= MIN_TITLE_CHARS
    }
    for i, shape in pairs:
        if shape in teasers:
            out[i] = out[i + 1] = True
    return out


def guard(
    keep: np.ndarray, blocks: Sequence[Block], language: str | None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without its teaser parts (see the module's docstring), and the page note when it
    dropped any; unchanged for a trusted ``language`` or when nothing else would be kept."""
    return drop_items(keep, blocks, language, teaser_parts, TEASERS_DROPPED)
