"""A page whose kept text is a few short fragments has no main content: they are dropped.

The HTML of a page that draws its content with JavaScript holds only the page's frame: a menu,
"Loading...", "Cart (0)", a shop's "I'm shopping for... / Help", a template's "Your banner
copy". With nothing else on the page, the model keeps some of it. WCXB gives every one of its 19
dev pages marked `spa` (a page drawn by script) an empty main content, and a corpus has no use
for a document of menu words either: corpus filters drop documents of a few dozen words anyway.

So when the page's kept blocks hold fewer than `MAX_WORDS` words in all and none of them is a
sentence, they are all dropped, with the page note ``fragments_dropped``; the job then rejects
the page as ``no_good_blocks``. A sentence is a block of `SENTENCE_WORDS` words or more, or of
`SHORT_SENTENCE_WORDS` or more that ends as a sentence ends: one real sentence, such as a
library's "open from nine to five on weekdays, and closed on Sundays.", makes the page a short
page, not a frame. Words are counted as the stoplists count them
(`pipeline.lang.words.count_words`: Chinese and Japanese by characters), so a short page in an
unspaced script is measured like one in English.

The rule judges what the page finally keeps, so it runs after every page rule and after data
tables are kept or dropped whole (`pipeline.render.table_units`): in `pipeline.clean`, for a
cleaner that asks for it (``drops_fragments``: the default one).

The bound on the total was set between the pages of the WCXB dev set's training and selection
sites: the frames there kept 5 to 24 words, and the next page up kept 28 words that its
reference holds (word F1 0.92). A frame with a notice sentence ("You need to enable JavaScript
to run this app.") keeps it, the price of keeping short real pages (BENCHMARKS.md, "Pages of a
few fragments").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.lang.words import count_words
from pipeline.types import Block, LabeledBlock, Verdict

NOTE = "fragments_dropped"
# Fewer words than this in all the kept blocks, and no block a sentence: one of
# `SENTENCE_WORDS` or more, or of `SHORT_SENTENCE_WORDS` or more that ends as a sentence ends.
MAX_WORDS = 26
SENTENCE_WORDS = 15
SHORT_SENTENCE_WORDS = 6
# A full stop, question or exclamation mark (Latin or CJK), then any closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u2019\u201d)\]\u300d\u300f]*\s*$")
# Above this many characters the kept text cannot be under `MAX_WORDS` words unless its words
# average over 15 characters (addresses, identifiers): those pages are left as they are,
# without counting their words.
_MAX_CHARS = 15 * MAX_WORDS


def only_fragments(kept: Sequence[Block]) -> bool:
    """Whether the kept blocks ``kept`` are only fragments (see the module); not when none."""
    if not kept or sum(b.n_chars for b in kept) > _MAX_CHARS:
        return False
    total = 0
    for block in kept:
        words = count_words(block.text, None)[0]
        total += words
        if total >= MAX_WORDS or words >= SENTENCE_WORDS:
            return False
        if words >= SHORT_SENTENCE_WORDS and _SENTENCE_END.search(block.text):
            return False
    return True


def drop(labeled: list[LabeledBlock]) -> tuple[list[LabeledBlock], tuple[str, ...]]:
    """A page's labelled blocks with its kept (``good``) ones relabelled ``bad`` when they are
    only fragments, and the page note saying so; blocks of other labels are left alone."""
    good = Verdict.GOOD
    chars = 0
    for lb in labeled:
        if lb.verdict is good:
            chars += lb.block.n_chars
            if chars > _MAX_CHARS:
                # More text than fragments can add up to: most pages are done here, after a
                # few blocks.
                return labeled, ()
    if not only_fragments([lb.block for lb in labeled if lb.verdict is good]):
        return labeled, ()
    bad = Verdict.BAD
    return [lb._replace(verdict=bad) if lb.verdict is good else lb for lb in labeled], (NOTE,)
