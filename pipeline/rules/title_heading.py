"""The page's own title heading is kept in the text.

Users build corpora from the text and ask for each document's title in it. WCXB's references
leave the title out on most pages, and the model learned that: it gives a post's ``<h1>`` title
as little as 0.08 and drops it. A heading block is put back when the model's answer keeps text
and the heading

- says what the page's head says its title is (`pipeline.html.metadata.HeadFacts.titles`:
  ``og:title``, ``<title>``, ``twitter:title``, the JSON-LD headline): the same words, case,
  white space, punctuation and entities aside, or, on a page none of whose titles is a bare one
  (every one has separated parts), the same words as a title with parts left off at either end
  (``Title | Site``, ``Site - Title``, ``Title: Subtitle | Site``),
- is not the site's name (its ``og:site_name`` or the like, or a label of its host: the logo
  ``<h1>`` many sites carry),
- and lies at most `WINDOW` blocks above the first kept block, or between kept blocks (a title
  repeated in a footer or a list of related posts is not the text's).

Of several such headings, the nearest one above the first kept block is kept, else the first one
inside the kept text: one heading per page, and none when one of the first kept blocks is a
heading that names the title already. Measured in BENCHMARKS.md, "The title heading".
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from itertools import compress
from urllib.parse import urlsplit

import numpy as np

from pipeline.types import Block, block_column

# The page note that says a title heading was kept that the model's answer left out.
TITLE_KEPT = "title_kept"

# What separates a title's parts: a bar, a dash, a bullet or the like between spaces, a bar or a
# bullet without them, or a colon before a space.
_SEPARATOR = re.compile(r"\s+[|\-–—•·»«~/\\]+\s+|\s*[|•»«]\s*|:\s+")
_WORD = re.compile(r"\w+")
# A title of more parts than this is a keyword list: its first and last parts are enough.
_MAX_PARTS = 8
# Blocks above the kept text looked at: the title sits above a byline, a date, share buttons,
# an image and its caption, not above a whole page (on the dev pages at most 30 blocks up).
WINDOW = 50
# Kept blocks at the start of the text looked at for a title heading kept already.
_START = 10


def words(text: str) -> tuple[str, ...]:
    """``text``'s words, compatibility-normalized and case-folded."""
    return tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def _parts(title: str) -> list[tuple[str, ...]]:
    parts = [words(p) for p in _SEPARATOR.split(title)]
    return [p for p in parts if p]


def title_forms(titles: Sequence[str]) -> set[tuple[str, ...]]:
    """The word sequences a heading that names one of ``titles`` may have: each whole title,
    and, unless one of them is a single part (the bare title: then a heading naming another part
    names the site, or its tagline), each title's separated parts with parts left off at either
    end."""
    split = [_parts(t) for t in titles]
    # Each whole title's words are its parts' words in order (`words` of the title itself): no
    # separator holds a word character, and NFKC composes nothing across one.
    forms = {tuple(w for p in parts for w in p) for parts in split}
    if all(len(parts) > 1 for parts in split):
        for parts in split:
            if len(parts) > _MAX_PARTS:
                parts = parts[:1] + parts[-1:]
            n = len(parts)
            for i in range(n):
                for j in range(i + 1, n + 1):
                    if i == 0 or j == n:  # a run of parts that touches an end of the title
                        forms.add(tuple(w for p in parts[i:j] for w in p))
    forms.discard(())
    return forms


def _site_forms(site_names: Iterable[str | None], url: str | None) -> set[str]:
    """The site's names, squeezed to their letters and digits (``acme.com``, ``Acme``:
    ``acme``), and its host's labels."""
    out = {"".join(words(name)) for name in site_names if name}
    if url:
        try:
            host = urlsplit(url).hostname or ""
        except ValueError:
            host = ""
        labels = [label for label in host.split(".") if label and label != "www"]
        out.update(labels)
        out.add("".join(labels[:-1]))
    out.discard("")
    return out


class _Matcher:
    """Whether a heading names one of the titles, its forms built on first use."""

    def __init__(self, titles: Sequence[str], site_names: Iterable[str | None], url: str | None):
        self.titles = titles
        self.longest = max(len(t) for t in titles)
        self.site_names, self.url = site_names, url
        self.forms: set[tuple[str, ...]] | None = None
        self.sizes: list[int] = []
        self.sites: set[str] | None = None

    def names_title(self, block: Block) -> tuple[str, ...] | None:
        """The heading's words when they are one of the titles' forms, else None."""
        if not block.is_heading:
            return None
        text = block.text
        n = len(text)
        # A heading far longer than every title names none. Not merely longer: the words
        # decide, and "Fish & Chips" names the title "Fish&Chips".
        if n > 2 * self.longest + 8:
            return None
        if self.forms is None:
            self.forms = title_forms(self.titles)
            # Each form's word characters: a heading that names it has as many (NFKC may add
            # a few) and, with its spaces and punctuation, rarely twice as many.
            self.sizes = sorted({sum(map(len, f)) for f in self.forms})
        k = bisect_right(self.sizes, n + 4)
        if not k or 2 * self.sizes[k - 1] + 8 < n:
            return None
        said = words(text)
        return said if said in self.forms else None

    def is_site(self, said: tuple[str, ...]) -> bool:
        if self.sites is None:
            self.sites = _site_forms(self.site_names, self.url)
        return "".join(said) in self.sites


def keep_title(
    keep: np.ndarray,
    blocks: Sequence[Block],
    titles: Sequence[str],
    site_names: Iterable[str | None] = (),
    url: str | None = None,
    fields: Sequence[Sequence] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` with the page's title heading kept too (see the module's docstring), and the
    page note when it kept one. ``titles``: the head's titles; ``site_names`` and ``url`` (the
    page's address or its canonical one) say what the site is called. ``fields``: the blocks'
    `pipeline.types.block_fields`, when at hand."""
    if not titles:
        return keep, ()
    kept = np.flatnonzero(keep)
    if not len(kept):
        return keep, ()
    first, last = int(kept[0]), int(kept[-1])
    # The headings' indexes: a few of a page's blocks, looked at instead of every block.
    flags = block_column(blocks, "is_heading", fields)
    headings = list(compress(range(len(flags)), flags))
    match = _Matcher(titles, site_names, url)
    chosen = None
    # The nearest above the text, within WINDOW blocks, else the first inside it.
    top = bisect_left(headings, first)
    for i in reversed(headings[bisect_left(headings, first - WINDOW) : top]):
        said = match.names_title(blocks[i])
        if said is not None and not match.is_site(said):
            chosen = i
            break
    else:
        for i in headings[bisect_right(headings, first) : bisect_left(headings, last)]:
            if not keep[i]:
                said = match.names_title(blocks[i])
                if said is not None and not match.is_site(said):
                    chosen = i
                    break
    if chosen is None:
        return keep, ()
    # A heading that names the title at the start of the text already: nothing to add.
    if any(match.names_title(blocks[i]) is not None for i in kept[:_START].tolist()):
        return keep, ()
    out = keep.copy()
    out[chosen] = True
    return out, (TITLE_KEPT,)
