"""Kept blocks of a filter panel are dropped, in every language.

Shop categories, search results and listings put a panel of filters beside the results: "Product
type", "Price", "Headphones (18)", "Closed-Back (10)", "In stock", each choice a checkbox or a
radio button with its label. It is the page's controls, not its content: no reader copies it, no
corpus wants "Wired (16) Wired (16 products)" between product names, and the references we score
against mostly leave it out (WCXB dev 2897: 44 kept blocks of a Shopify filter form beside 20
products). Its labels are short and link-free, so the model keeps some of them.

A block is dropped when the model kept it and it lies in a *filter panel*: an element inside the
body whose class or id has a filter word as a whole piece (the "facet" cue of
`pipeline.html.class_cues.RULE_CUES`: ``facets__form``, ``collection-filters``,
``refinements``), that holds two or more checkboxes or radio buttons, and whose choices' text
(its ``label``, ``summary``, ``legend`` and ``option`` elements) is at least half of its text
(`CHOICE_SHARE`). The last test keeps a results grid that a theme wraps in a "filters" element
(``t-collection__grid facets-vertical``, an events search's ``search-base-screen--filters``)
with its filters: there the results' text is most of it. Panels are the outermost such elements
holding no ``main`` or ``article``. A block belongs to a panel when its place in the body's text
falls within the panel's text (`pipeline.rules.comments.in_containers`), as with the consent
and closed-dialog guards (`pipeline.rules.consent_guard.drop_inside`). Nothing is dropped when
nothing else would stay kept.

Filters drawn as plain links (a list of category links with counts) are not a panel here: that is
a list of links, which the link guard and the link-list rule already weigh, and the links of a
category page's own content look the same. The selector pass runs only where the model kept
`MIN_CHOICES_KEPT` short blocks or more under a filter word (the segmentation walk's "facet" cue,
which costs nothing here). Measured in BENCHMARKS.md, "Filter panels".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pipeline.html.class_cues import ancestor_cue_bits, cue_bit
from pipeline.rules.consent_guard import drop_inside, outermost, under_any
from pipeline.types import Block, block_column

# The page note that says kept blocks of a filter panel were dropped.
FACET_DROPPED = "facet_filters_dropped"

_FACET_CUE = cue_bit("facet")
# Elements whose class or id may hold a filter word; the word itself is checked as a whole piece.
SELECTOR = ", ".join(
    f'[{attr}*="{stem}" i]' for attr in ("class", "id") for stem in ("facet", "filter", "refine")
)
_CHOICES = 'input[type="checkbox" i], input[type="radio" i]'
_CHOICE_TEXT = "label, summary, legend, option"
# The least share of a panel's text its choices' labels hold (the scratch runs of BENCHMARKS.md,
# "Filter panels": at 0.4 a results grid wrapped with its filters passed and lost its products).
CHOICE_SHARE = 0.5
# The gate: the selector pass costs 1 to 5 ms on the large shop pages that have panels, so it runs
# only where the model kept at least this many blocks of at most `CHOICE_CHARS` characters under a
# filter word; a panel the model mostly dropped already is left as it is (BENCHMARKS.md, "Filter
# panels": on WCXB dev the pass runs on 13 pages instead of 29, and one page fewer changes, by
# less than 0.001).
MIN_CHOICES_KEPT = 8
CHOICE_CHARS = 40
# The most elements naming filters whose content a page's pass reads (`filter_panels`).
MAX_READ = 400


def _chars(node: Any) -> int:
    """The characters of ``node``'s text other than white space."""
    return sum(map(len, (node.text(deep=True) or "").split()))


def names_filters(node: Any) -> bool:
    """Whether ``node``'s class or id has a filter word as a whole piece (and it is no
    ``body`` or ``html``): a look-up of its attributes, nothing under it read."""
    if node.tag in ("body", "html"):
        return False
    attrs = node.attributes
    named = ancestor_cue_bits(attrs.get("class") or "") | ancestor_cue_bits(attrs.get("id") or "")
    return bool(named & _FACET_CUE)


def holds_choices(node: Any) -> bool:
    """Whether ``node`` holds two or more checkboxes or radio buttons whose labels are at least
    `CHOICE_SHARE` of its text: a read of everything under it."""
    if len(node.css(_CHOICES)) < 2:
        return False
    total = _chars(node)
    if not total:
        return False
    labels = sum(map(_chars, outermost_choices(node)))
    return labels >= CHOICE_SHARE * total


def outermost_choices(node: Any) -> list[Any]:
    """The label, summary, legend and option elements of ``node`` that no other of them holds:
    each choice's text counted once."""
    found: list[Any] = []
    taken: set[int] = set()
    for choice in node.css(_CHOICE_TEXT):
        if not (taken and under_any(choice, taken, node)):
            taken.add(choice.mem_id)
            found.append(choice)
    return found


def filter_panels(tree: Any) -> list[Any]:
    """The page's outermost filter panels, in document order."""
    root = tree.body if tree is not None else None
    if root is None:
        return []
    read = 0

    def accept(node: Any) -> bool:
        # Each element read costs a pass over everything under it: nested elements that all
        # name filters and none of which is a panel would make the page's cost grow with the
        # square of their depth. `MAX_READ` bounds it, at twice the most a WCXB dev page reads
        # (204, all of them rejected: 0656).
        nonlocal read
        if read >= MAX_READ or not names_filters(node):
            return False
        read += 1
        return holds_choices(node)

    return outermost(root.css(SELECTOR), accept)


def guard(
    keep: np.ndarray, blocks: Sequence[Block], tree: Any, fields: Sequence[Sequence] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks of the page's filter panels, and the page note when it
    dropped any; unchanged when there is no ``tree`` or nothing else would stay kept.
    ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    if tree is None or not _many_choices_kept(keep, blocks, fields):
        return keep, ()
    return drop_inside(keep, blocks, tree, fields, filter_panels, FACET_DROPPED, None)


def _many_choices_kept(
    keep: np.ndarray, blocks: Sequence[Block], fields: Sequence[Sequence] | None
) -> bool:
    """Whether the model kept at least `MIN_CHOICES_KEPT` short blocks under a filter word: the
    gate of the selector pass."""
    cues = block_column(blocks, "ancestor_cues", fields)
    sizes = block_column(blocks, "n_chars", fields)
    found = 0
    for i in np.flatnonzero(keep).tolist():
        if cues[i] & _FACET_CUE and sizes[i] <= CHOICE_CHARS:
            found += 1
            if found >= MIN_CHOICES_KEPT:
                return True
    return False
