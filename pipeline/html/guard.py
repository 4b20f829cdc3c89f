"""Per-page time and size guards that work inside Dask's worker threads.

Signals reach only a process's main thread, so a time cap cannot interrupt a Dask task. Two
facts measured on selectolax 1.0's lexbor shape the guards:

- the HTML parse is quadratic in nesting depth for elements whose start tags make the parser
  scan its stack of open elements (``<div>``: 10,000 nested took 0.4-1.3 s, 100,000 took 38 s;
  ``<ul><li>``: 10,000 took 4.8 s), and it cannot be interrupted from Python;
- everything after the parse (segmentation walk, labelling) is linear Python.

- the parse is also quadratic in the attributes of one element: each new attribute is checked
  against the element's earlier ones for a duplicate (30,000 on one ``<p>`` took 1.7 s,
  100,000 took 103 s).

So: `estimate` scans the markup cheaply before parsing. Its tag count enforces ``max_nodes``
without building a DOM, its attribute count enforces ``max_attributes``, and its nesting depth
says whether the parse could be slow, in which case the caller runs the page in a killable
child process (`pipeline.sandbox`). A `Deadline` is checked cooperatively between stages and
inside the segmentation loop. These are estimates that keep the common pathologies cheap; the
hard bound is the job's supervisor (`pipeline.supervise`), which kills a page that overruns.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import numpy as np

from pipeline.errors import PageTimeout, PageTooComplex
from pipeline.html.tag_sets import BREAKOUT, FOREIGN_ROOTS, INTEGRATION, VOID_NAMES

# The scans below as C loops (markup_scan.pyx), where the build compiled them: the same counts,
# about ten times cheaper on the pages with big scripts, data URIs or icon sets that made this
# guard 0.4 ms a page on average. Tests set this to None to compare the Python code with them.
try:
    import pipeline.html.markup_scan as _compiled
except ModuleNotFoundError as exc:  # an install without a C compiler
    if exc.name != "pipeline.html.markup_scan":
        raise
    _compiled = None

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


_VOID_KEYS = np.array(sorted(_name_key(tag) for tag in VOID_NAMES), dtype=np.uint64)
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
    which only errs towards isolating a page. Self-closed tags in inline SVG and MathML open
    nothing on pages it looked at twice (`foreign_aware_depth`). It is 0 when the scan was
    skipped as unnecessary.
    """

    tags: int
    max_depth: int
    # The most attributes seen on one element, and the sum of squares over elements (what the
    # parse time follows); both 0 when the page was too small to need the scan.
    attributes: int = 0
    attribute_load: int = 0


def nesting_depth(html: str | bytes) -> int:
    """The deepest element nesting the markup could produce (see `PageEstimate.max_depth`).

    ``html`` is text or its UTF-8 bytes; both give the same depth. Vectorised because it runs on
    the pages with the most tags: a loop over 50,000 tags took 20-40 ms.
    """
    data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
    if _compiled is not None:
        return _compiled.nesting_depth(data)
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


# In foreign content (inline SVG and MathML) a self-closed start tag, "<path d='...'/>", opens
# nothing, but `_depth` counts every start tag that is not void. An inline icon set of
# thousands of paths then looks as deep as a hostile nest (WCXB dev page 2875: 11,963 where
# foreign content opens nothing), and a library call would clean that page in a child process,
# half a second of CPU. So a page the fast scan finds deeper than this, holding "<svg" or
# "<math", is scanned again tag by tag (about a microsecond a tag: up to the tag count below).
DEPTH_REFINE_MIN = 1_000
DEPTH_REFINE_MAX_TAGS = 100_000
_FOREIGN_HINT = re.compile(rb"<(?:svg|math)[\t\n\f\r />]", re.IGNORECASE)
_ANY_TAG = re.compile(rb"<(/?)([A-Za-z][A-Za-z0-9:-]*)")
# A whole start tag as the tokenizer reads it (the attribute syntax of `_ATTRIBUTE`, without
# backtracking), then what ends it: "/>" makes it self-closed, "/" in a value does not.
_START_TAG = re.compile(
    rb"<[A-Za-z][^\t\n\f\r />]*+"
    rb"(?:[\t\n\f\r /]*+[^\t\n\f\r />][^\t\n\f\r />=]*+"
    rb"(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:\"[^\"]*+\"?+|'[^']*+'?+|[^\t\n\f\r >]*+))?+)*+"
    rb"([\t\n\f\r /]*+)>"
)


def foreign_aware_depth(data: bytes) -> int:
    """`nesting_depth` of the UTF-8 bytes ``data``, except that self-closed start tags inside
    inline SVG or MathML open nothing, as in the parser. Never more than `nesting_depth`: every
    tag counts the same or less (an end tag still closes one level)."""
    if _compiled is not None:
        return _compiled.foreign_aware_depth(data)
    depth = deepest = 0
    foreign = False
    # The open elements that switched foreign content on or off: (name, state around them).
    switched: list[tuple[bytes, bool]] = []
    for m in _ANY_TAG.finditer(data):
        name = m.group(2).lower()
        if m.group(1):
            depth = max(depth - 1, 0)
            if switched and switched[-1][0] == name:
                foreign = switched.pop()[1]
            elif foreign and name in (b"br", b"p"):
                foreign = False
                switched.clear()
            continue
        if name in VOID_NAMES:
            continue
        if foreign and name in BREAKOUT:
            foreign = False
            switched.clear()
        elif foreign or name in FOREIGN_ROOTS:
            if _self_closed(data, m.start()):
                continue
            if name in FOREIGN_ROOTS:
                switched.append((name, foreign))
                foreign = True
            elif name in INTEGRATION:
                switched.append((name, foreign))
                foreign = False
        depth += 1
        deepest = max(deepest, depth)
    return deepest


def _self_closed(data: bytes, start: int) -> bool:
    """Whether the start tag at ``data[start]`` ends in "/>" (a tag cut by the end of the data
    does not)."""
    tag = _START_TAG.match(data, start)
    return tag is not None and tag.group(1).endswith(b"/")


def estimate(html: str | bytes, *, max_attributes: int | None = None) -> PageEstimate:
    """Count tags (C speed) and, only for pages with many, scan their nesting depth.

    With ``max_attributes``, pages big enough to hold that many attributes (two bytes each at
    least) are also scanned for them (`attribute_scan`).

    Runs on decoded text, or on its UTF-8 encoding (the same counts, and faster to scan than
    text with non-Latin-1 characters); never on other bytes: tag bytes are not ASCII in
    UTF-16/32 pages.
    """
    scan_attributes = max_attributes is not None and len(html) >= 2 * max_attributes
    attributes = load = 0
    if isinstance(html, bytes) and _compiled is not None:
        tags = _compiled.lt_count_and_gaps(html, 0)[0]
        depth = _compiled.nesting_depth(html) if tags >= DEPTH_SCAN_MIN_TAGS else 0
        if scan_attributes:
            attributes, load = attribute_scan(html, max_attributes or 0)
    elif isinstance(html, bytes):
        # numpy's vectorised compare counts 2x faster than bytes.count's byte loop.
        raw = np.frombuffer(html, np.uint8)
        is_lt = raw == _LT
        tags = int(np.count_nonzero(is_lt))
        depth = _depth(raw, np.flatnonzero(is_lt)) if tags >= DEPTH_SCAN_MIN_TAGS else 0
        if scan_attributes:
            attributes, load = attribute_scan(html, max_attributes or 0)
    else:
        tags = html.count("<")
        depth = nesting_depth(html) if tags >= DEPTH_SCAN_MIN_TAGS else 0
        if scan_attributes and tags:
            data = html.encode("utf-8", "surrogatepass")
            attributes, load = attribute_scan(data, max_attributes or 0)
    if depth > DEPTH_REFINE_MIN and tags <= DEPTH_REFINE_MAX_TAGS:
        data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
        if _FOREIGN_HINT.search(data):
            depth = foreign_aware_depth(data)
    return PageEstimate(tags=tags, max_depth=depth, attributes=attributes, attribute_load=load)


# One attribute as the tokenizer reads it: separators, a name, and an optional value (quoted
# or not; an unclosed quote runs to the end). Quotes open a value only after "=", as in HTML.
_TAG_NAME = re.compile(rb"<[A-Za-z][^\t\n\f\r />]*")
_ATTRIBUTE = re.compile(
    rb"[\t\n\f\r /]*[^\t\n\f\r />][^\t\n\f\r />=]*"
    rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?"
)
_NAME = re.compile(rb"[A-Za-z][^\t\n\f\r />]*")
_TAG_END = re.compile(rb"[\t\n\f\r /]*>?")
_QUOTES = re.compile(rb"[\"']")
# Elements whose content the tokenizer reads as text up to their own end tag (raw text and
# RCDATA): a "<" in them starts no tag. "<plaintext>" runs to the end of the page.
RAW_TEXT = frozenset((b"script", b"style", b"xmp", b"iframe", b"noembed", b"noframes"))
RAW_TEXT |= frozenset((b"textarea", b"title", b"plaintext"))


def count_attributes(data: bytes, start: int, limit: int) -> int:
    """Attributes of the start tag at ``data[start]`` as the tokenizer reads them, up to
    ``limit + 1`` (counting stops there: the caller only needs to know it is over)."""
    if _compiled is not None:
        return _compiled.count_attributes(data, start, limit)
    name = _TAG_NAME.match(data, start)
    if name is None:
        return 0
    return _attributes_from(data, name.end(), limit)[0]


def _attributes_from(data: bytes, pos: int, limit: int) -> tuple[int, int]:
    """(attributes from ``pos`` on, up to ``limit + 1``; where the last one ends)."""
    n = 0
    while n <= limit:
        m = _ATTRIBUTE.match(data, pos)
        if m is None:
            break
        n, pos = n + 1, m.end()
    return n, pos


def attribute_scan(data: bytes, limit: int) -> tuple[int, int]:
    """(most attributes on one element, sum of their squares over the elements with more than
    ``limit // 16``) for the start tags of ``data`` (UTF-8 bytes) as HTML's tokenizer reads
    them: every start tag, and only those. A "<" in an attribute value, in a comment, or in a
    script, style sheet or other raw-text element starts no tag, and a "<script>" in a comment
    or a value starts no script (each of which let a page past the older scan, issue 48).

    Elements with few attributes are not counted: within the body cap they cannot add up to a
    parse of more than seconds (10 MB of tags of 625 attributes: 8,000 of them). Stops once the
    page is over: one element past ``limit``, or the sum past ``limit`` squared.
    """
    if _compiled is not None:
        return _compiled.attribute_scan(data, limit)
    small = max(limit // 16, 1)
    most = total = 0
    size = len(data)
    pos = 0
    while True:
        at = data.find(b"<", pos)
        if at < 0 or at + 1 >= size:
            return most, total
        c = data[at + 1]
        if _LETTER[c] or (c == 0x2F and at + 2 < size and _LETTER[data[at + 2]]):
            closing = c == 0x2F
            name = _NAME.match(data, at + 1 + closing)
            assert name is not None
            gt = data.find(b">", name.end())
            inside = data[name.end() : gt]
            if gt >= 0 and (closing or len(inside) <= small) and not _QUOTES.search(inside):
                # Most tags: no quote before the first ">", so the tag ends there; too short to
                # hold more than `small` attributes, or an end tag (markup_scan does the same).
                count, pos = 0, gt + 1
            else:
                count, pos = _attributes_from(data, name.end(), limit)
                pos = _TAG_END.match(data, pos).end()  # type: ignore[union-attr]
            if closing:
                continue
            if count > small:
                most, total = max(most, count), total + count * count
                if total > limit * limit:
                    return most, total  # over already: the rest cannot bring it back
            tag = data[at + 1 : name.end()].lower()
            if tag in RAW_TEXT:
                pos = size if tag == b"plaintext" else _raw_text_end(data, pos, tag)
        elif c == 0x21:  # "<!": a comment, or a bogus one (a doctype, CDATA) to its ">"
            pos = _comment_end(data, at)
        elif c == 0x2F or c == 0x3F:  # "</" not before a letter, "<?": bogus comments
            pos = at + 3 if data[at + 2 : at + 3] == b">" and c == 0x2F else _to_gt(data, at + 2)
        else:
            pos = at + 1


def _to_gt(data: bytes, pos: int) -> int:
    gt = data.find(b">", pos)
    return len(data) if gt < 0 else gt + 1


def _comment_end(data: bytes, at: int) -> int:
    if data[at + 2 : at + 4] != b"--":
        return _to_gt(data, at + 2)
    if data[at + 4 : at + 5] == b">":
        return at + 5  # "<!-->"
    if data[at + 4 : at + 6] == b"->":
        return at + 6  # "<!--->"
    ends = [e for e in (data.find(b"-->", at + 4), data.find(b"--!>", at + 4)) if e >= 0]
    if not ends:
        return len(data)
    end = min(ends)
    return end + (3 if data.startswith(b"-->", end) else 4)


def _raw_text_end(data: bytes, pos: int, tag: bytes) -> int:
    """Where the raw text from ``pos`` ends: at its element's end tag ("</script" in any case,
    then a blank, "/" or ">"), or at the end of the data."""
    size = len(data)
    while True:
        at = data.find(b"</", pos)
        if at < 0:
            return size
        end = at + 2 + len(tag)
        if data[at + 2 : end].lower() == tag and (end >= size or data[end] in _TAG_STOP):
            return at
        pos = at + 2


_TAG_STOP = frozenset(b"\t\n\f\r />")


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


def check_attributes(est: PageEstimate, max_attributes: int | None) -> None:
    """Raise `PageTooComplex` before parsing when the parse's attribute work would pass what one
    element with ``max_attributes`` attributes costs (`pipeline.config.Limits`)."""
    if max_attributes is not None and est.attribute_load > max_attributes * max_attributes:
        most = (
            f"more than {max_attributes}"
            if est.attributes > max_attributes
            else f"up to about {est.attributes}"
        )
        raise PageTooComplex(
            f"page has {most} attributes on one element (the sum of squares over its elements, "
            f"{est.attribute_load:,}, passes max_attributes={max_attributes} squared; counted "
            "before parsing)"
        )


def needs_isolation(est: PageEstimate, max_depth: int | None) -> bool:
    """Whether the parse could run long enough to need a killable child process."""
    return max_depth is not None and est.max_depth > max_depth
