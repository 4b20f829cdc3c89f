"""Per-page time and size guards that work inside Dask's worker threads.

Signals reach only a process's main thread, so a time cap cannot interrupt a Dask task. Two
facts measured on selectolax 1.0's lexbor shape the guards:

- the HTML parse is quadratic in nesting depth for elements whose start tags make the parser
  scan its stack of open elements (``<div>``: 10,000 nested took 0.4-1.3 s, 100,000 took 38 s;
  ``<ul><li>``: 10,000 took 4.8 s), and it cannot be interrupted from Python;
- everything after the parse (segmentation walk, labelling) is linear Python.

So: `estimate` scans the markup cheaply before parsing. Its tag count enforces ``max_nodes``
without building a DOM, and its nesting depth says whether the parse could be slow, in which
case the caller runs the page in a killable child process (`pipeline.sandbox`). A `Deadline`
is checked cooperatively between stages and inside the segmentation loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pipeline.errors import PageTimeout, PageTooComplex

# Start tags that never hold content, so never deepen the stack of open elements.
_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen".split()
)
# A tag name starts with an ASCII letter and goes on with letters, digits, ":" and "-"; only
# start and end tags ("<name", "</name") count: comments, doctypes and "<" in text do not.
_LETTER = np.zeros(256, bool)
_LETTER[[*range(65, 91), *range(97, 123)]] = True
_NAME_BYTE = _LETTER.copy()
_NAME_BYTE[[*range(48, 58), ord(":"), ord("-")]] = True
_LOWER = np.arange(256, dtype=np.uint64)
_LOWER[65:91] += 32
# Bytes of a name looked at: void names have at most 6 letters, one more shows where it ends.
_NAME_PEEK = 7


def _name_key(name: bytes) -> int:
    return sum(byte << (8 * k) for k, byte in enumerate(name))


_VOID_KEYS = np.array(sorted(_name_key(tag.encode()) for tag in _VOID), dtype=np.uint64)
_LT = ord("<")
# Below this many "<", the nesting scan is skipped: nesting depth cannot exceed the number of
# tags, and a parse at that depth takes well under a second even in the worst tag mix measured.
DEPTH_SCAN_MIN_TAGS = 10_000


class Deadline:
    """A monotonic-clock budget checked cooperatively: `check` raises `PageTimeout` once spent.

    Cheap enough to call every few thousand loop iterations (one ``time.monotonic`` call).
    """

    __slots__ = ("expires", "seconds")

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.expires = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when there is no budget."""
        if self.expires is None:
            return None
        return max(0.0, self.expires - time.monotonic())

    def expired(self) -> bool:
        return self.expires is not None and time.monotonic() >= self.expires

    def check(self, stage: str) -> None:
        if self.expired():
            raise PageTimeout(f"page exceeded its {self.seconds:g} s budget during {stage}")


@dataclass(frozen=True, slots=True)
class PageEstimate:
    """What a cheap scan of the markup says about the DOM the parser would build.

    ``tags`` counts ``<`` characters: an upper bound on elements plus comments (and "<" in text).
    ``max_depth`` is the deepest nesting of non-void elements seen, counting every start tag
    as opening and every end tag as closing; unclosed ``<p>``/``<li>`` make it an overestimate,
    which only errs towards isolating a page. It is 0 when the scan was skipped as unnecessary.
    """

    tags: int
    max_depth: int


def nesting_depth(html: str | bytes) -> int:
    """The deepest element nesting the markup could produce (see `PageEstimate.max_depth`).

    ``html`` is text or its UTF-8 bytes; both give the same depth. Vectorised because it runs on
    the pages with the most tags: a loop over 50,000 tags took 20-40 ms.
    """
    data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
    raw = np.frombuffer(data, np.uint8)
    return _depth(raw, np.flatnonzero(raw == _LT))


def _depth(raw: np.ndarray, opens: np.ndarray) -> int:
    """`nesting_depth` of the bytes ``raw`` whose "<" are at ``opens``."""
    if not opens.size:
        return 0
    padded = np.concatenate((raw, np.zeros(_NAME_PEEK + 2, np.uint8)))
    closing = padded[opens + 1] == ord("/")
    start = opens + 1 + closing
    is_tag = _LETTER[padded[start]]
    closing, start = closing[is_tag], start[is_tag]
    # Each start tag's first name bytes, lower-cased and packed into one integer, to look up
    # void tags (end tags never open anything, void or not).
    start = start[~closing]
    in_name = np.ones(start.size, bool)
    key = np.zeros(start.size, np.uint64)
    for k in range(_NAME_PEEK):
        byte = padded[start + k]
        in_name &= _NAME_BYTE[byte]
        key |= np.where(in_name, _LOWER[byte], 0) << np.uint64(8 * k)
    steps = np.full(closing.size, -1, np.int64)
    steps[~closing] = np.where(np.isin(key, _VOID_KEYS), 0, 1)
    if not steps.size:
        return 0
    # Depth never goes below zero (an end tag with nothing open is ignored): the running sum
    # minus its lowest point so far, where that is below zero.
    total = np.cumsum(steps)
    depth = total - np.minimum(np.minimum.accumulate(total), 0)
    return max(int(depth.max()), 0)


def estimate(html: str | bytes) -> PageEstimate:
    """Count tags (C speed) and, only for pages with many, scan their nesting depth.

    Runs on decoded text, or on its UTF-8 encoding (the same counts, and faster to scan than
    text with non-Latin-1 characters); never on other bytes: tag bytes are not ASCII in
    UTF-16/32 pages.
    """
    if isinstance(html, bytes):
        # numpy's vectorised compare counts 2x faster than bytes.count's byte loop.
        raw = np.frombuffer(html, np.uint8)
        is_lt = raw == _LT
        tags = int(np.count_nonzero(is_lt))
        depth = _depth(raw, np.flatnonzero(is_lt)) if tags >= DEPTH_SCAN_MIN_TAGS else 0
    else:
        tags = html.count("<")
        depth = nesting_depth(html) if tags >= DEPTH_SCAN_MIN_TAGS else 0
    return PageEstimate(tags=tags, max_depth=depth)


def check_nodes(est: PageEstimate, max_nodes: int | None) -> None:
    """Raise `PageTooComplex` before parsing when the markup has more tags than ``max_nodes``.

    Rejecting beats parsing a prefix: a truncated DOM is arbitrary (the cut can fall inside the
    main content or before it), and a page with that many elements is generated listing or
    spam far more often than an article.
    """
    if max_nodes is not None and est.tags > max_nodes:
        raise PageTooComplex(
            f"page has about {est.tags} tags, more than max_nodes={max_nodes}"
            " (counted before parsing)"
        )


def needs_isolation(est: PageEstimate, max_depth: int | None) -> bool:
    """Whether the parse could run long enough to need a killable child process."""
    return max_depth is not None and est.max_depth > max_depth
