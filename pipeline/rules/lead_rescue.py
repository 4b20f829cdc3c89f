"""An article's standfirst, the lead paragraph just above its body, is kept.

News sites put a standfirst between the headline and the body, often in its own element with a
class that says so (``p.lead``, ``div.article-deck``, ``p.excerpt``). Whether it is content differs
by source (fundus's and Mercury's references include it, some WCXB pages' do not), and the model,
which sees the same class words on teasers of other articles, gives it 0.15-0.45 where the body
gets 0.9: on the multilingual dev pages, refitted with each language held out, 12 of the 21
must-contain snippets the default missed were standfirsts. A block is rescued when the model's
answer keeps text below it and the block

- has a class that names a standfirst (`pipeline.html.class_cues.has_lead_class`),
- lies at most `WINDOW` blocks above the first kept block, inside the same ``<article>`` or
  ``<main>`` (their tag paths share one), or, on a page whose body is in neither, inside the
  body's ancestor `ANCESTOR_DEPTH` elements up (`_same_container`),
- is prose: at least `MIN_CHARS` characters, at most `MAX_LINK_DENSITY` of them link text,
- and the model gives it at least `MIN_PROB`;

only the nearest such block is kept, so a stack of teasers above an article is not. Measured on
held-out probabilities of the shipped shape (BENCHMARKS.md, "The lead rescue"). The extra words
and the container without ``<article>``/``<main>`` (issue 35, item 4) came from the standfirsts
still missed with each language held out: ``p.bajada``, ``h2.epigraph``, ``p.preface``,
``p.article__desc``, ``h2.entry-sub-title``, ``div.article--lead`` in a page of bare ``div``s;
they add 0.002 to the held-out multilingual combined score and change nothing on WCXB or magic-html
(BENCHMARKS.md, "Link lists, leads and magic-html").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.html.class_cues import has_lead_class
from pipeline.types import Block

MIN_PROB = 0.1
MIN_CHARS = 40
MAX_LINK_DENSITY = 0.1
WINDOW = 15
# A body outside any <article> or <main> shares its standfirst's ancestor this many elements up.
ANCESTOR_DEPTH = 4

# The page note that says a standfirst was kept that the model's answer left out.
LEAD_KEPT = "lead_kept"

_CONTAINERS = frozenset({"article", "main"})


def _same_container(path: str, body: str) -> bool:
    """Whether the tag path ``path`` shares an ``<article>`` or ``<main>`` ancestor path with
    the body's, or, when the body's path has neither, its ancestor `ANCESTOR_DEPTH` up."""
    ours, theirs = path.split("."), body.split(".")
    shared = 0
    for a, b in zip(ours, theirs, strict=False):
        if a != b:
            break
        if a in _CONTAINERS:
            return True
        shared += 1
    # No shared <article> or <main>: only a body in neither may share a nearer ancestor instead.
    return not _CONTAINERS.intersection(theirs) and shared >= len(theirs) - ANCESTOR_DEPTH


def rescue(
    keep: np.ndarray, probs: np.ndarray, blocks: Sequence[Block]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` with the standfirst above the first kept block kept too (see the module's
    docstring), and the page note when it kept one."""
    kept = np.flatnonzero(keep)
    if not len(kept):
        return keep, ()
    first = int(kept[0])
    body = blocks[first].dom_path
    for i in range(first - 1, max(first - WINDOW, 0) - 1, -1):
        block = blocks[i]
        if (
            block.n_chars >= MIN_CHARS
            and block.link_density <= MAX_LINK_DENSITY
            and probs[i] >= MIN_PROB
            and has_lead_class(block.style)
            and _same_container(block.dom_path, body)
        ):
            out = keep.copy()
            out[i] = True
            return out, (LEAD_KEPT,)
    return keep, ()
