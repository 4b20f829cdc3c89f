"""The block that says what the page's head describes it as is kept in the text.

A page's head carries a description (``og:description``, ``<meta name=description>``, the main
entity's JSON-LD ``description``), and most sites write it as the text's lead: an article's
standfirst, a game's summary on a store page, a thread's first post. The model gives such a
block as little as 0.01 when it sits in a hero box or a product header apart from the body,
where the references keep it: on the WCXB, multilingual and magic-html dev pages the head's
description is the text of 184 blocks the model drops, and 156 of them (85%) are content by the
references' words (BENCHMARKS.md, "The description's lead").

A block is put back when the model's answer keeps text and the block

- says what the head's description says: the same words, case, white space, punctuation and
  entities aside, or the first words of a longer text whose beginning the description quotes
  (a forum post, a summary cut off with an ellipsis), or the first sentence or sentences the
  description begins with; either side of `MIN_WORDS` words or more,
- lies at most `WINDOW` blocks above the first kept block, or between the first `TOP` + 1 kept
  blocks and at most `BELOW` below the first (the same description repeated further down, in a
  footer, a sharing box or a list of related pages, is not the text's lead),
- and is not in the page's banner: a ``<header>`` outside every ``article``, ``main`` and
  ``section`` is the site's, and a description it repeats is the site's tagline (Django's
  documentation: "The web framework for perfectionists with deadlines.").

Of several such blocks, the nearest one above the first kept block is kept, else the first one
inside the kept text: one per page, and none when a kept block says the description already.

Not on an English page that its head declares an article (a schema.org article type, ``og:type``
article): the references of English news and blog posts mostly leave the standfirst out, and
the model, trained mostly on them, keeps what they keep (there the rule lost more pages than it
gained, on WCXB and on daniel's English pages). Elsewhere it gained: outside English, where the
model is least sure, and on English shop, service and forum pages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from pipeline.html.metadata import ARTICLE_TYPES, HeadFacts
from pipeline.rules.link_guard import TRUSTED_LANGUAGES
from pipeline.rules.title_heading import words
from pipeline.types import Block, block_column

# The page note that says the block the head's description quotes was kept.
DESCRIPTION_KEPT = "description_kept"

# Words a description and a block must share at the least: "Shop now", "Home page" and a site's
# tagline are not a lead.
MIN_WORDS = 6
# Blocks above the kept text looked at, as for the title heading.
WINDOW = 50
# Kept blocks at the start of the text between which a lead is looked for: a title, a byline, a
# date above it (on the dev sets and daniel, of 112 leads found inside the text 105 came right
# after the first kept block, and 3 after the third, 2 of which lost).
TOP = 3
# Blocks below the first kept one looked at, at most: a bound on the rule's cost (on the same
# pages the lead was found at most 52 blocks below it, on a scholar's profile page).
BELOW = 200

_LEADING = re.compile(r"\W*")
_SECTIONING = frozenset({"article", "main", "section"})
# Characters at a block's start in which the description's first word is looked for.
_LOOK = 48
# The fewest characters `MIN_WORDS` words take: a character each and one between them.
_MIN_CHARS = 2 * MIN_WORDS - 1


def says(block_words: tuple[str, ...], described: tuple[str, ...]) -> bool:
    """Whether a block of ``block_words`` says the description of ``described`` words (both as
    `pipeline.rules.title_heading.words` reads a text): the same words, or one begins with the
    other and the shorter has `MIN_WORDS` or more."""
    n, m = len(block_words), len(described)
    if min(n, m) < MIN_WORDS:
        return False
    if n >= m:
        return block_words[:m] == described
    return described[:n] == block_words


def keep_description(
    keep: np.ndarray,
    blocks: Sequence[Block],
    head: HeadFacts,
    language: str | None,
    fields: Sequence[Sequence] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` with the block that says the ``head``'s description kept too (see the module's
    docstring), and the page note when it kept one. ``language``: the page's ISO 639 code.
    ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    description = head.metadata.description
    if not description or (language in TRUSTED_LANGUAGES and declares_article(head)):
        return keep, ()
    kept = np.flatnonzero(keep)
    if not len(kept):
        return keep, ()
    described = words(description)
    if len(described) < MIN_WORDS:
        return keep, ()
    kept_list = kept.tolist()
    first = kept_list[0]
    # Inside the text, only up to its `TOP`-th kept block, and no further than `BELOW` blocks
    # below the first: a page of thousands of blocks between its first kept ones is not read.
    top = min(kept_list[min(TOP, len(kept_list) - 1)], first + BELOW)
    texts = block_column(blocks, "text", fields)
    sizes = block_column(blocks, "n_chars", fields)
    # A cheap test before the words are read, which most blocks fail: room for `MIN_WORDS`
    # words, and the description's first word first (no pattern compiled per page).
    first_word = described[0]
    # A block that says the description has said it within four times its length: a long post
    # is read no further.
    reach = 4 * len(description) + 64

    def said(i: int) -> bool:
        return (
            sizes[i] >= _MIN_CHARS
            and _starts_with(texts[i], first_word)
            and says(words(texts[i][:reach]), described)
        )

    hits = [i for i in range(max(first - WINDOW, 0), top + 1) if said(i)]
    flags = keep.tolist()
    if any(flags[i] for i in hits):
        return keep, ()
    hits = [i for i in hits if not in_banner(blocks[i].dom_path)]
    if not hits:
        return keep, ()
    above = [i for i in hits if i < first]
    chosen = above[-1] if above else hits[0]
    # Only now the rest of the kept text, for a copy kept further down.
    if any(said(i) for i in kept_list if i > top):
        return keep, ()
    out = keep.copy()
    out[chosen] = True
    return out, (DESCRIPTION_KEPT,)


def _starts_with(text: str, word: str) -> bool:
    """Whether ``text``'s first word begins with ``word``, both as `words` writes them, looked for
    in its first `_LOOK` characters: a necessary test for a block whose first word is ``word``."""
    head = text[:_LOOK]
    if not head.isascii():  # a ligature, a full-width letter: as `words` reads them
        head = unicodedata.normalize("NFKC", head)
    head = head.casefold()
    return head.startswith(word, _LEADING.match(head).end())


def in_banner(dom_path: str) -> bool:
    """Whether a block of ``dom_path`` lies in the page's banner: a ``header`` element with no
    ``article``, ``main`` or ``section`` element around it."""
    parts = dom_path.split(".")
    if "header" not in parts:
        return False
    return _SECTIONING.isdisjoint(parts[: parts.index("header")])


def declares_article(head: HeadFacts) -> bool:
    """Whether the page's head declares it an article: a schema.org article type in its
    JSON-LD, or an ``og:type`` of article."""
    return not head.schema_types.isdisjoint(ARTICLE_TYPES) or (head.og_type or "").startswith(
        "article"
    )
