"""A block whose text is HTML markup written out as text is never content.

Ad and tracking snippets ship a fallback for browsers without JavaScript as escaped markup
(``<noscript>&lt;img src="..." width=1 height=1&gt;</noscript>``), and some pages print embed
codes or comment-form hints the same way. The parser rightly makes that text, so it reaches the
blocks as hundreds of characters of link-free "prose", and on a page in a language the model saw
little of, it is kept. On the dev pages such blocks (at least `MIN_CHARS` characters, at least
`MIN_MARKUP_SHARE` of them inside tags that carry an attribute, not a code listing) are 50, on 9
pages: 49 labelled boilerplate, one unlabelled, none content; among WCXB's documentation pages
every block of escaped markup that is content is a code listing under ``<pre>``. A listing is
recognised by a ``pre`` or ``code`` element on the block's path (its own element included), or a
class of its element that names code (``highlight``, ``code-example``); a listing written into an
inline ``<code>`` of a plain ``<div>`` is not, and is dropped like an ad's fallback. Measured on
held-out probabilities of the shipped shape (BENCHMARKS.md, "The markup guard"): with whole
languages held out, multilingual F1 0.937 -> 0.941 and Japanese 0.838 -> 0.912 (one Yahoo! page
kept 14 such blocks around a short article), with whole source datasets held out 0.937 -> 0.941;
English is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from pipeline.types import Block, block_column

MIN_CHARS = 80
MIN_MARKUP_SHARE = 0.5

# The page note that says the guard dropped blocks the model kept.
MARKUP_DROPPED = "markup_text"

# A start tag with at least one attribute. Neither class can cross a '<' or '>', so every
# character is scanned from at most one '<': linear time on any text.
_ATTRIBUTE_TAG = re.compile(r"<[a-zA-Z][\w-]*\s[^<>=]*=[^<>]*>")
_LISTING_TAGS = frozenset({"pre", "code"})
_LISTING_CLASSES = re.compile(r"code|highlight|syntax|listing|snippet|source|example")


def is_markup_text(block: Block) -> bool:
    """Whether ``block``'s text is mostly markup written out (see the module's docstring)."""
    text = block.text
    if len(text) < MIN_CHARS or "<" not in text or "=" not in text:
        return False
    # The path ends with the block's own element, so it covers a <pre> block too.
    if not _LISTING_TAGS.isdisjoint(block.dom_path.split(".")):
        return False
    if _LISTING_CLASSES.search(block.style.lower()):
        return False
    inside = sum(map(len, _ATTRIBUTE_TAG.findall(text)))
    return inside >= MIN_MARKUP_SHARE * len(text)


def guard(
    keep: np.ndarray, blocks: Sequence[Block], fields: Sequence[Sequence] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks that are markup text, and the page note when it dropped
    any. ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    texts = block_column(blocks, "text", fields)
    # Most kept blocks hold no "<": they are not looked at further.
    drop = [
        i for i in np.flatnonzero(keep).tolist() if "<" in texts[i] and is_markup_text(blocks[i])
    ]
    if not drop:
        return keep, ()
    out = keep.copy()
    out[drop] = False
    return out, (MARKUP_DROPPED,)
