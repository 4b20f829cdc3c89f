"""A kept list keeps its short items, and the line that introduces it.

Recipes, specifications and how-tos write their content as lists: "For the dough:" then the
ingredients, "Requirements:" then the items. The model scores a list item by its own words and
its neighbours', so a short item ("2 eggs", "Salt") between longer kept ones, or the label line
above a kept list, gets less than the page's threshold and drops out of the middle of the content.
Two corrections, after the guards (so they see the list as the guards left it):

- **Items of a kept list** (`fill_lists`): in a run of consecutive items of one list (the same
  ``dom_path`` and list nesting, `pipeline.types.Shape.lists`, each in an ``<li>``) of which at
  least `MIN_KEPT_ITEMS` blocks and a `MIN_KEPT_SHARE` of the blocks are kept, every dropped block
  between the first and the last kept one is kept too, unless it is mostly link text (at least
  `MAX_LINK_DENSITY`: a menu's entries are links). Items after the last kept one stay as the
  model says: on the dev pages, extending to the list's end kept as much boilerplate (a "more"
  entry, a pager) as content.
- **The label line** (`keep_labels`): a dropped block of at most `MAX_LABEL_CHARS` characters
  that ends with a colon, is mostly not link text, and is directly followed by a kept list item.

Only on English pages (`pipeline.rules.link_guard.TRUSTED_LANGUAGES`): outside English the
lists a page keeps are more often lists of dated headlines and sister sites than of content
(`pipeline.rules.link_lists` and `pipeline.rules.teaser_lists` drop them there), and on daniel
and multilingual-dev no page the rescue changed outside English gained; most lost a little.

Chosen on out-of-fold probabilities (the shipped model's trees refitted on 5 folds of whole sites
of the training sets, after the shipped page guards; BENCHMARKS.md, "Recall at the edges of the
content"), where the other candidates of issue 49's item 5 lost: figure captions between kept
blocks (nearly all outside the references) and section headings above kept prose (as much
boilerplate as content). The title and the standfirst have their own rules
(`pipeline.rules.title_heading`, `pipeline.rules.lead_rescue`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from pipeline.rules.link_guard import TRUSTED_LANGUAGES
from pipeline.types import Block, Shape, block_column

MIN_KEPT_ITEMS = 2
MIN_KEPT_SHARE = 0.3
MAX_LINK_DENSITY = 0.5
MAX_LABEL_CHARS = 120

# The page notes that say list blocks were kept that the model's answer left out.
LIST_ITEMS_KEPT = "list_items_kept"
LIST_LABEL_KEPT = "list_label_kept"


def list_items(blocks: Sequence[Block]) -> list[tuple[int, tuple[str, str]]]:
    """The page's list-item blocks in order, as ``(block index, list key)``: the key, the block's
    ``dom_path`` and list nesting (`pipeline.types.Shape.lists`), tells which list the block is an
    item of, as far as consecutive blocks can tell. The ``items`` that `fill_lists` and
    `keep_labels` take; empty on a page without list items."""
    return _keyed(blocks, [b.index for b in blocks if _is_item(b.shape)])


def fill_lists(
    keep: np.ndarray, blocks: Sequence[Block], items: list[tuple[int, tuple[str, str]]]
) -> np.ndarray:
    """``keep`` with the dropped items between kept items of a mostly kept list kept too;
    ``items``: the page's `list_items`."""
    out: np.ndarray | None = None
    flags = keep.tolist()
    n = len(items)
    i = 0
    while i < n:
        start, key = items[i]
        j = i
        # A run: items of one list on consecutive blocks.
        while j + 1 < n and items[j + 1][1] == key and items[j + 1][0] == items[j][0] + 1:
            j += 1
        end = items[j][0]
        kept = [t for t in range(start, end + 1) if flags[t]]
        if len(kept) >= MIN_KEPT_ITEMS and len(kept) >= MIN_KEPT_SHARE * (end + 1 - start):
            for t in range(kept[0] + 1, kept[-1]):
                if not flags[t] and blocks[t].link_density < MAX_LINK_DENSITY:
                    if out is None:
                        out = keep.copy()
                    out[t] = True
        i = j + 1
    return keep if out is None else out


def keep_labels(
    keep: np.ndarray, blocks: Sequence[Block], items: list[tuple[int, tuple[str, str]]]
) -> np.ndarray:
    """``keep`` with the dropped label lines ("Ingredients:") right above a kept list item kept
    too; ``items``: the page's `list_items`."""
    out: np.ndarray | None = None
    for first, _ in items:
        i = first - 1
        if i < 0 or keep[i] or not keep[first]:
            continue
        block = blocks[i]
        text = block.text
        if len(text) > MAX_LABEL_CHARS or not text.rstrip().endswith(":"):
            continue
        if block.link_density >= MAX_LINK_DENSITY:
            continue
        if out is None:
            out = keep.copy()
        out[i] = True
    return keep if out is None else out


def rescue(
    keep: np.ndarray,
    blocks: Sequence[Block],
    language: str | None,
    fields: Sequence[Sequence] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` with a kept list's dropped items and its label line kept on a page in a trusted
    ``language`` (see the module's docstring), and the page notes for what it kept.

    The same answer as `fill_lists` then `keep_labels` over all the page's `list_items`, read
    only where either can change something, from the kept items out: most of a page's list items
    are a menu's that the model dropped. ``fields``: the blocks' `pipeline.types.block_fields`,
    when at hand."""
    if language not in TRUSTED_LANGUAGES:
        return keep, ()
    shapes = block_column(blocks, "shape", fields)
    kept = [i for i in np.flatnonzero(keep).tolist() if _is_item(shapes[i])]
    if not kept:
        return keep, ()
    filled = fill_lists(keep, blocks, _keyed(blocks, _stretches_to_fill(kept, shapes)))
    # A label line lies right above a kept item, itself dropped. Not above an item the fill
    # kept: the item above that is in its list, kept too or too much link text for a label.
    firsts = [i for i in kept if i > 0 and not filled[i - 1]]
    labelled = keep_labels(filled, blocks, _keyed(blocks, firsts)) if firsts else filled
    notes: tuple[str, ...] = ()
    if filled is not keep:
        notes += (LIST_ITEMS_KEPT,)
    if labelled is not filled:
        notes += (LIST_LABEL_KEPT,)
    return labelled, notes


def _is_item(shape: Shape | None) -> bool:
    return shape is not None and shape.item > 0


def _stretches_to_fill(kept: list[int], shapes: Sequence[Shape | None]) -> list[int]:
    """The blocks of every stretch of consecutive list-item blocks (``shapes``: the page's) in
    which dropped items lie between two of the ``kept`` items: a run of one list lies within one
    such stretch, and `fill_lists` changes nothing anywhere else."""
    out: list[int] = []
    end = -1
    for a, b in pairwise(kept):
        if b - a < 2 or b <= end or not all(_is_item(shapes[t]) for t in range(a + 1, b)):
            continue
        start = a
        while start > end + 1 and _is_item(shapes[start - 1]):
            start -= 1
        end = b
        while end + 1 < len(shapes) and _is_item(shapes[end + 1]):
            end += 1
        out.extend(range(start, end + 1))
    return out


def _keyed(blocks: Sequence[Block], index: list[int]) -> list[tuple[int, tuple[str, str]]]:
    """`list_items`' pairs for the item blocks ``index``."""
    out = []
    for i in index:
        block = blocks[i]
        out.append((i, (block.dom_path, block.shape.lists)))  # type: ignore[union-attr]
    return out
