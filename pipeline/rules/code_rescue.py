"""A code block between kept content is content.

Documentation and tutorials put a snippet between two paragraphs of prose ("For example, given an
app common/models.py:" / the code / "Along with another app ..."). The model scores short
snippets low: a one-line shell command, a short JSON config or a SQL statement has no stopwords,
no sentence and often a class the model saw on chrome, so it gives them 0.25-0.5 where the prose
around gets 0.4-0.9, and the page rule drops them from the middle of kept text. A block is kept
when the model's answer dropped it and

- it is code: a ``<pre>`` (`pipeline.types.Shape.pre`) or a block whose whole text is one span of
  inline code (``<p><code>npm install x</code></p>``),
- the nearest kept block above is at most `WINDOW` blocks away,
- the nearest kept block below is too, or the one above ends with a colon (it announces the code:
  the last snippet of an article, before the page's footer),
- nothing says it is chrome: no enclosing ``<nav>``, ``<aside>`` or ``<footer>``
  (`CHROME_TAGS`), no enclosing element whose class or id names a menu, a footer, breadcrumbs or
  a cookie notice (`CHROME_CUES`),
- the model gives it at least `MIN_PROB`,
- and it does not repeat a kept block's text (the same snippet in every tab of a language
  switcher: the page rule drops the copies on purpose, `pipeline.learned.decision`).

Measured with ``python bench/code_rescue.py`` (BENCHMARKS.md, "Code between kept content"): on
the 1,358 WCXB dev pages it keeps 34 blocks on 13 pages, 21 of them with their words in the
reference and 13 code that the references leave out (MDN's live-sample CSS and HTML,
PostgreSQL's query examples), none of them chrome: 980 tokens of the reference added against 582
outside it, word F1 0.8971 -> 0.8969 over all pages, the held-out test part unchanged (no page of
it changes), multilingual-dev untouched; held-out ``<pre>`` kept as a browser shows them
(``bench/structure.py``) stays 0.996, all dev pages 0.977 -> 0.987.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.html.class_cues import ANCESTOR_CUES
from pipeline.rules.repeats import REPEAT_MIN_CHARS
from pipeline.types import Block

MIN_PROB = 0.1
WINDOW = 2
# Code inside these elements is page chrome: a docs sidebar's list of API names in <code>.
CHROME_TAGS = frozenset(("nav", "aside", "footer"))
# Enclosing elements whose class or id names one of these hold page chrome, code or not. Fewer
# than the cues know: documentation pages give their sections ids made of the heading's words,
# so "related" ("related_name", a Django docs section) and "ad" ("ad-hoc") name containers of
# snippets that are content, and so, on WCXB's documentation pages, do "sidebar", "share" and
# "subscribe" (their words "side", "follow", "form", "search").
CHROME_CUES = frozenset(("nav", "footer", "breadcrumb", "cookie"))
_CHROME_BITS = sum(1 << i for i, (name, _) in enumerate(ANCESTOR_CUES) if name in CHROME_CUES)

# The page note that says a code block was kept that the model's answer left out.
CODE_KEPT = "code_kept"


def is_code(block: Block) -> bool:
    """Whether ``block`` is a code block: a ``<pre>``, or one span of inline code and nothing
    else."""
    shape = block.shape
    if shape is None:
        return False
    if shape.pre:
        return True
    spans = shape.spans
    return len(spans) == 1 and spans[0][2] == "code" and spans[0][:2] == (0, len(block.text))


def _nearest_kept(keep: list[bool], i: int, step: int) -> int | None:
    """The index of the nearest kept block from ``i`` in direction ``step``, within `WINDOW`."""
    for j in range(i + step, i + step * (WINDOW + 1), step):
        if not 0 <= j < len(keep):
            return None
        if keep[j]:
            return j
    return None


def rescue(
    keep: np.ndarray, probs: np.ndarray, blocks: Sequence[Block]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` with the code blocks between kept content kept too (see the module's
    docstring), and the page note when it kept any."""
    flags: list[bool] | None = None
    found: list[int] = []
    kept_texts: set[str] | None = None
    # Most dropped blocks have no shape, so no code: one test each, in numpy and then in Python.
    for i in np.flatnonzero(~keep & (probs >= MIN_PROB)).tolist():
        block = blocks[i]
        if block.shape is None or block.ancestor_cues & _CHROME_BITS or not is_code(block):
            continue
        if not CHROME_TAGS.isdisjoint(block.dom_path.split(".")):
            continue
        if flags is None:
            flags = keep.tolist()
        above = _nearest_kept(flags, i, -1)
        if above is None:
            continue
        if _nearest_kept(flags, i, 1) is None and not blocks[above].text.rstrip().endswith(":"):
            continue
        if len(block.text) >= REPEAT_MIN_CHARS:
            if kept_texts is None:
                kept_texts = {b.text.lower() for b, k in zip(blocks, flags, strict=True) if k}
            if block.text.lower() in kept_texts:
                continue
        found.append(i)
    if not found:
        return keep, ()
    out = keep.copy()
    out[found] = True
    return out, (CODE_KEPT,)
