"""A product page's recommendations are not the product: on a product page, kept blocks under a
heading that names other products ("Similar items", "Customers who viewed this item also
viewed", an ad's "Why you're seeing this ad") are dropped.

A shop shows carousels of other products beside the one the page sells: each card is a heading
(the other product's name) and a price, rating and seller line. The model drops the prices but
keeps many of the card headings, which read like a product's title, and the ad disclosures
between them, which read like prose; WCXB's product references leave all of it out (on three
of its five eBay item pages, word F1 0.14-0.24 with them, 0.42-0.65 without).

A page is a product page here by what costs no pass over it (`product_by_address`): its head
declares a schema.org Product (or ProductGroup, IndividualProduct), its ``og:type`` is a product,
or its address or canonical address has a product page's shape (``/product/``, ``/p/``,
``/dp/``, ``/itm/``). A collection or a search page is not gated in: there the carousel's items
may be the content (a best-sellers list), as they are in WCXB's references.

A heading names recommendations when it is at most `MAX_HEADING_CHARS` long and matches
`RECOMMENDATION_HEADING` (English, German, French and Spanish phrases). Its section is the
heading (with the blocks of the same heading element before it: a heading may be segmented into
several) and the blocks after it up to the next heading of its level or above, as a reader's
outline would have it, and no further than the blocks stay inside the elements around the
heading (`MAX_CLIMB` levels up its path); the page's title, an ``<h1>``, never opens one. Kept
blocks in such a section are dropped, unless that would leave less than
`pipeline.rules.relabel.MIN_LEFT_CHARS` of kept text. Only the cleaners that ask for it
(``drops_recommendations``: the default one) run it, after the comment labels
(`pipeline.clean.clean_decoded`). Measured in BENCHMARKS.md, "Product recommendations".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.html.metadata import HeadFacts
from pipeline.html.page_cues import address_path
from pipeline.rules.relabel import relabel_kept
from pipeline.types import Block, LabeledBlock, Verdict

# The page note that says kept blocks of recommendation sections were dropped.
RECOMMENDATIONS_DROPPED = "recommendations_dropped"

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct"})
# Narrower than `pipeline.html.page_cues`' product family: /shop/ and /store/ also open a
# shop's category pages, whose carousels may be their content.
_PRODUCT_PATH = re.compile(r"/(?:products?|p|dp|item|itm|gp/product)/")
MAX_HEADING_CHARS = 60
# A section ends where the blocks leave the elements around its heading, up to this many levels
# above it: an ad's disclosure heading, hidden in a slot above the product, would otherwise open
# a section over the product's own facts (WCXB 3021 lost a must-have line). On WCXB's product
# pages the cards lie 3 to 6 levels under the heading's ancestors; 6 to 10 measured the same.
MAX_CLIMB = 8
RECOMMENDATION_HEADING = re.compile(
    r"\b(?:"
    # English
    r"similar (?:items|products)|related (?:items|products)|products related to this"
    r"|you (?:may|might|will) also (?:like|love|enjoy)|customers (?:who|also)"
    r"|also (?:viewed|bought|liked|purchased)|frequently (?:bought|viewed)"
    r"|recommended (?:for you|products|items)|sponsored (?:items|products)|featured products"
    r"|explore related|people (?:who|also)|complete the look|shop the look|more like this"
    r"|you may be interested|recently viewed|pairs well|goes well with|more to consider"
    r"|inspired by your|others also|compare similar|seeing this ad"
    # German
    r"|ähnliche (?:artikel|produkte)|kunden (?:kauften|haben) auch|könnte (?:ihnen|dir) auch"
    r"|oft zusammen gekauft|zuletzt angesehen"
    # French
    r"|vous aimerez aussi|vous aimerez peut-être|produits similaires|articles similaires"
    r"|fréquemment achetés|récemment consultés"
    # Spanish
    r"|productos (?:relacionados|similares)|también te (?:puede|podría)"
    r"|comprados juntos|vistos recientemente"
    r")\b",
    re.IGNORECASE,
)


def _product_path(url: str) -> bool:
    try:
        path = address_path(url)
    except ValueError:  # an unbalanced IPv6 bracket ("http://a.net]a.net/"): no path to read
        return False
    return _PRODUCT_PATH.search(path.rstrip("/") + "/") is not None


def product_by_address(urls: Sequence[str | None], head: HeadFacts) -> bool:
    """Whether a page is a product page by what its head declares or its address (``urls``: the
    record's, the canonical one) shows; see the module's docstring."""
    og = head.og_type or ""
    return (
        not head.schema_types.isdisjoint(PRODUCT_TYPES)
        or og.startswith("product")
        or any(_product_path(url) for url in urls if url)
    )


def _heading_element(block: Block) -> str:
    """The path down to the heading element the block lies in, which its other blocks share."""
    parts = block.dom_path.split(".")
    tag = f"h{_heading_level(block)}"
    for end in range(len(parts) - 1, -1, -1):
        if parts[end] == tag:
            return ".".join(parts[: end + 1])
    return block.dom_path


def sections(blocks: Sequence[Block]) -> list[range]:
    """The index ranges of the recommendation sections among ``blocks`` (see the module's
    docstring), in order and not overlapping."""
    # Only headings open and close sections: the other blocks are passed over once.
    levels = [0 if b.shape is None else b.shape.heading for b in blocks]
    heads = [i for i, level in enumerate(levels) if level]
    out: list[range] = []
    stop = 0
    for k, i in enumerate(heads):
        block, level = blocks[i], levels[i]
        if (
            i < stop
            or level < 2
            or block.n_chars > MAX_HEADING_CHARS
            or RECOMMENDATION_HEADING.search(block.text) is None
        ):
            continue
        own = _heading_element(block)
        # The heading's blocks before the one that names recommendations ("Info" before "Why
        # you're seeing this ad"). Those after it are not looked for: two headings in a row in
        # sibling elements have the same path, and the next one opens content of its own.
        start = i
        while start > stop and _same_heading(blocks[start - 1], level, own):
            start -= 1
        stop = next((j for j in heads[k + 1 :] if levels[j] <= level), len(blocks))
        stop = _inside(blocks, block, i + 1, stop)
        out.append(range(start, stop))
    return out


def _inside(blocks: Sequence[Block], heading: Block, start: int, stop: int) -> int:
    """Where, from ``start`` to ``stop``, the blocks first leave the elements around ``heading``
    (`MAX_CLIMB` levels above it): the section ends there."""
    parts = heading.dom_path.split(".")
    keep = max(1, len(parts) - MAX_CLIMB)
    prefix = ".".join(parts[:keep]) + "."
    for j in range(start, stop):
        if not blocks[j].dom_path.startswith(prefix):
            return j
    return stop


def _heading_level(block: Block) -> int:
    return block.shape.heading if block.shape is not None else 0


def _same_heading(block: Block, level: int, element: str) -> bool:
    return _heading_level(block) == level and _heading_element(block) == element


def drop(
    labeled: Sequence[LabeledBlock], url: str | None, head: HeadFacts
) -> tuple[list[LabeledBlock], tuple[str, ...]]:
    """``labeled`` with the kept blocks of a product page's recommendation sections dropped, and
    the page note when any were (see the module's docstring). ``head``: what the page's head says
    (`pipeline.html.metadata.read_head`)."""
    if not product_by_address((url, head.metadata.canonical_url), head):
        return list(labeled), ()
    good = Verdict.GOOD
    blocks = [lb.block for lb in labeled]
    hit = {i for r in sections(blocks) for i in r if labeled[i].verdict is good}
    out = relabel_kept(labeled, hit, Verdict.BAD)
    if out is None:
        return list(labeled), ()
    return out, (RECOMMENDATIONS_DROPPED,)
