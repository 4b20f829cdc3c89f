"""Kimatu as its paper describes it (Saralegi & Leturia, "Kimatu, a tool for cleaning non-content
text parts from HTML docs", WAC3 2007; seed ``004``): ``KimatuCleaner(variant="paper")``.

The paper's vocabulary differs from ours, and the code keeps the paper's:

* an **element** is one of the page's HTML text elements, here the text between two block-level
  boundaries (`text_elements`: jusText's block tags and ``<br><br>``, the same cut as our blocks,
  so that verdicts map back one to one);
* a **block** is a set of elements with the same **aspect** (the tag names and the attributes that
  set how text looks, or its ``class``) lying near each other (`style_blocks`); one aspect can make
  several blocks when its elements are far apart;
* the **class** of a block is its aspect.

The ratios and every step are computed per block, in the paper's order (`select`):

1. `style_blocks`: elements of one aspect at most ``block_gap`` elements apart form a block.
2. `block_ratios` and `content_relevance`: length (the block's characters over the largest
   block's), average length (its characters per element over the highest such average, that
   average capped at ``max_average``), punctuation (phrase-boundary marks per word over
   ``marks_per_word``, `boundary_marks`) and link density (``<a>`` tags per element over
   ``links_per_element``); each ratio capped at 1. The paper's combination:
   ``0.5·length + 0.5·average − (1 − punctuation) − links``. Blocks above 0.32 are the sure
   candidates (`sure_candidates`), the references of the later steps.
3. `function_blocks`: blocks of short elements (at most ``function_words`` words on average) whose
   words are mostly shared between their elements ("posted by X") are rejected.
4. `quote_classes`: a block after a reference, of another class, with ``quote_words`` words or
   more, is a copy when the longest common subsequence with that reference covers ``quote_lcs``
   of its words; when most compared blocks of a class are copies, all candidates of the class are
   quotes and are removed.
5. `rescue_dispersed`: blocks of a reference's class within ``rescue_near`` elements of it whose
   ratio is above 0.1 of the reference's join the candidates.
6. `dispersed_candidates`: each candidate's distance to its nearest other candidate; the candidates
   farther than ``dispersed_far`` times the geometric mean of those distances are removed, unless
   their ratio is above 0.5.
7. `near_relevant`: blocks within ``near`` elements of a candidate whose ratio is above
   ``min_relevance`` become candidates (headings, captions).
8. `output_tag`: h, p or l for every kept element, from its tag, its punctuation and its size.

The paper gives the 0.5/0.5/1/1 weights and the 0.32, 0.1 and 0.5 thresholds; every other constant
is ours, chosen on the train and selection sites of wcxb-dev and multilingual-dev (`PaperConstants`
lists each value and how it was chosen; docs/seeds.md has the step-by-step comparison with the
paper). A rejected block (function block, quote, dispersed candidate) is never taken back by a
later step. Without the parsed page (``tree``), our blocks stand in for the elements: the aspect is
then the block element's tag and class alone and a block's link tags are unknown, estimated from
its link characters, and the page's notes say ``paper_unit_unavailable``.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

from pipeline.cleaners.lcs import containment_ratio, tokens_of
from pipeline.cleaners.units import NO_TREE_NOTE, Unit, verdicts_for_blocks
from pipeline.html.walk import BLOCK_TAGS, KILLED_TAGS, UNWRAPPED_TAGS, node_text
from pipeline.lang.words import count_words
from pipeline.types import Block, LabeledBlock, Verdict

# The paper's own numbers.
SURE = 0.32  # "sure candidates (ratio > 0.32)"
RESCUE = 0.1  # "a minimum ratio with respect to the reference blocks of the same class (> 0.1)"
KEEP_DISPERSED = 0.5  # "have not a high ratio (> 0.5)"
WEIGHTS = (0.5, 0.5, 1.0, 1.0)  # length, average length, (1 − punctuation), link density


@dataclass(frozen=True, slots=True)
class PaperConstants:
    """The constants the paper names without a value, with ours.

    Each was chosen by coordinate search on the train and selection sites of wcxb-dev and
    multilingual-dev (mean word F1 over those pages; the held-out test sites were not used), with
    ``bench/kimatu_paper_constants.py``; BENCHMARKS.md ("Kimatu as published") has the search's
    table. ``aspect`` is how much of the page sets an element's aspect: ``"element"`` its block
    element and the inline elements around all its text, ``"path"`` those and every enclosing
    element (the aspect a style sheet sees).
    """

    aspect: str = "path"
    block_gap: int = 5  # "not very distant": elements between two of the same block
    max_average: float = 100.0  # the "fixed value as a possible maximum" of the average length
    marks_per_word: float = 0.04  # the punctuation constant: this many marks per word score 1
    links_per_element: float = 4.0  # the link constant: this many <a> per element score 1
    function_words: float = 3.0  # "short elements": at most this many words on average
    function_share: float = 0.7  # "a high percentage of words" shared between the elements
    quote_words: int = 3  # the "minimum size" of a block compared as a quote
    quote_lcs: float = 0.7  # an LCS ratio this high makes a block a copy of its reference
    rescue_near: int = 100  # "near" in the rescue of dispersed blocks
    dispersed_far: float = 1.5  # "far from the geometric mean": this many times it
    near: int = 1  # "near" in the last step
    # The "minimum global ratio" of the last step, which the paper says is there for headers: a
    # link-free block without phrase marks scores -1 plus its length terms, so -1 is the largest
    # minimum that lets every such header in. Set by that, not searched (the search would choose
    # a minimum above every header's ratio; BENCHMARKS.md "Kimatu as published").
    min_relevance: float = -1.0

    def __post_init__(self) -> None:
        if self.aspect not in ("element", "path"):
            raise ValueError(f"aspect must be 'element' or 'path', got {self.aspect!r}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "aspect":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{f.name} must be a number, got {value!r}")
        positive = ("max_average", "marks_per_word", "links_per_element", "dispersed_far")
        if any(getattr(self, name) <= 0 for name in positive):
            raise ValueError(f"{', '.join(positive)} must be > 0")
        counts = ("block_gap", "function_words", "quote_words", "rescue_near", "near")
        if any(getattr(self, name) < 0 for name in counts):
            raise ValueError(f"{', '.join(counts)} must be >= 0")
        if not 0 < self.quote_lcs <= 1 or not 0 < self.function_share <= 1:
            raise ValueError("quote_lcs and function_share must be in (0, 1]")


DEFAULT_CONSTANTS = PaperConstants()
CONSTANT_NAMES = frozenset(f.name for f in fields(PaperConstants))


# --- elements ------------------------------------------------------------------------------------


class Element(NamedTuple):
    """One text element of the page: its text, the tag of its block-level element, its aspect
    in both scopes (`PaperConstants.aspect`), the ``<a>`` tags opened in it, whether it lies in a
    heading, its words and its phrase-boundary marks (`boundary_marks`)."""

    text: str
    tag: str
    aspect: str
    path_aspect: str
    n_links: int
    heading: bool
    n_words: int
    n_marks: int


# Attributes that set how text looks (HTML 4's presentational attributes, and style and class).
ASPECT_ATTRIBUTES = ("class", "style", "align", "valign", "bgcolor", "color", "face", "size")
_HEADINGS = frozenset(f"h{i}" for i in range(1, 7))
_LIST_ITEMS = frozenset(("li", "dd", "dt"))
# jusText's preprocessing and ours (pipeline.html.walk): what never holds visible text.
_SKIP = KILLED_TAGS | {"-comment", "-doctype"}
_TEXT = "-text"


def describe(tag: str, attributes: dict[str, str | None] | None) -> str:
    """An element's part of an aspect: its tag and its aspect attributes, ``td[align=left]``,
    ``p.note``."""
    if not attributes:
        return tag
    out = [tag]
    for name in ASPECT_ATTRIBUTES:
        value = attributes.get(name)
        if value:
            value = " ".join(value.split())
            out.append("." + value.replace(" ", ".") if name == "class" else f"[{name}={value}]")
    return "".join(out)


class _Open(NamedTuple):
    """An element the walk is inside: its tag, its aspect part, whether it opened a block."""

    tag: str
    part: str
    block: bool


class _ElementWalk:
    """The state of `text_elements`' walk: the open elements and the element being built."""

    def __init__(self) -> None:
        self.elements: list[Element] = []
        self.opened: list[_Open] = []  # entered elements, outermost first
        self.block_at = -1  # index in `opened` of the innermost block element
        self.blocks_at: list[int] = []
        self.pieces: list[str] = []
        self.inline: list[str] | None = None  # inline parts around all the element's text
        self.links = 0
        self.headings = 0  # open heading elements
        self.heading = False
        self.br = False

    def text(self, content: str) -> None:
        blank = content.isspace()
        if not self.pieces:
            if blank:
                return
            self.heading = self.headings > 0
        self.pieces.append(content)
        if blank:
            return
        self.br = False
        here = [o.part for o in self.opened[self.block_at + 1 :]]
        if self.inline is None:
            self.inline = here
            return
        same = 0
        for a, b in zip(self.inline, here, strict=False):
            if a != b:
                break
            same += 1
        del self.inline[same:]

    def enter(self, tag: str, attributes: dict[str, str | None] | None) -> _Open:
        if tag == "br":
            if self.br:
                # jusText: two <br> in a row end the element.
                self.close()
                self.br = False
            else:
                self.br = True
                if self.pieces:
                    self.pieces.append(" ")
        else:
            self.br = False
        is_block = tag in BLOCK_TAGS
        if is_block:
            self.close()
        elif tag == "a":
            self.links += 1
        record = _Open(tag, describe(tag, attributes), is_block)
        self.opened.append(record)
        if is_block:
            self.blocks_at.append(self.block_at)
            self.block_at = len(self.opened) - 1
        if tag in _HEADINGS:
            self.headings += 1
        return record

    def leave(self, record: _Open) -> None:
        if record.block:
            self.close()
            self.block_at = self.blocks_at.pop()
        self.opened.pop()
        if record.tag in _HEADINGS:
            self.headings -= 1

    def close(self) -> None:
        text = " ".join("".join(self.pieces).split())
        if text:
            opened = self.opened
            own = opened[self.block_at] if self.block_at >= 0 else _Open("body", "body", True)
            wrapped = ">" + ">".join(self.inline) if self.inline else ""
            path = ">".join(o.part for o in opened[: self.block_at + 1])
            self.elements.append(
                Element(
                    text,
                    own.tag,
                    own.part + wrapped,
                    path + wrapped,
                    self.links,
                    self.heading,
                    count_words(text, None)[0],
                    boundary_marks(text),
                )
            )
        self.pieces = []
        self.inline = None
        self.links = 0


def text_elements(tree: Any) -> list[Element]:
    """The page's text elements in document order (see the module docstring); ``tree`` is a
    parsed page (`pipeline.html.segment.parse`). The walk is iterative: no depth limit."""
    node = getattr(tree, "root", None)
    walk = _ElementWalk()
    # (node, its record) of every element descended into; None for a transparent one.
    stack: list[tuple[Any, _Open | None]] = []
    while node is not None:
        tag = node.tag
        record: _Open | None = None
        descend = False
        if tag == _TEXT:
            content = node.text_content
            if content:
                # as our walks make a text node: control characters and mojibake repaired
                walk.text(node_text(content))
        elif tag is None or tag in _SKIP or tag.startswith("-"):
            pass
        elif tag in UNWRAPPED_TAGS:
            descend = True  # its content is walked, the element itself is not there
        else:
            record = walk.enter(tag, node.attributes)
            descend = True
        child = node.first_child if descend else None
        if child is not None:
            stack.append((node, record))
            node = child
            continue
        if record is not None:
            walk.leave(record)
        # Climb to the next sibling, leaving every element whose last child this was.
        while True:
            if not stack:
                node = None
                break
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            node, record = stack.pop()
            if record is not None:
                walk.leave(record)
    walk.close()
    return walk.elements


def elements_from_blocks(blocks: Sequence[Block]) -> list[Element]:
    """Our blocks as the elements, when the page itself is not at hand: the aspect is the block
    element's tag and class (`Block.style`), and the link tags are estimated as one per block
    that is mostly link text (a block does not record its ``<a>`` tags)."""
    return [
        Element(
            b.text,
            b.tag,
            b.style or b.tag,
            b.style or b.tag,
            1 if b.link_density > 0.5 else 0,
            b.is_heading,
            b.n_words,
            boundary_marks(b.text),
        )
        for b in blocks
    ]


# --- 1. blocks -----------------------------------------------------------------------------------


def style_blocks(aspects: Sequence[str], gap: int) -> list[int]:
    """The block of every element: an element joins the block of the last element of its aspect
    when at most ``gap`` other elements lie between them, else it starts a new block. Blocks are
    numbered in order of their first element."""
    last: dict[str, tuple[int, int]] = {}  # aspect -> (position, block) of its last element
    out: list[int] = []
    count = 0
    for position, aspect in enumerate(aspects):
        seen = last.get(aspect)
        if seen is not None and position - seen[0] - 1 <= gap:
            block = seen[1]
        else:
            block = count
            count += 1
        last[aspect] = (position, block)
        out.append(block)
    return out


def members(block_of: Sequence[int]) -> list[list[int]]:
    """The element positions of every block, ascending."""
    out: list[list[int]] = [[] for _ in range(max(block_of, default=-1) + 1)]
    for position, block in enumerate(block_of):
        out[block].append(position)
    return out


# --- 2. the ratios -------------------------------------------------------------------------------

# Phrase-boundary marks. A run of Latin-script marks counts once, and only where a phrase ends:
# before a space, a closing quote or bracket, or the end of the text, so "10:30", "3.5",
# "www.x.org" and "a,b" have none; a full stop after an initial ("U.S.", "J. Smith") is not a
# boundary. The full-width CJK marks and the Arabic and Devanagari ones end phrases wherever they
# stand. Double quotes and guillemets count where they open or close a phrase (apostrophes never).
_LATIN_MARKS = re.compile(r"[.,;:!?]+(?=[\s\"”»)\]]|$)")
_INITIALS = re.compile(r"(?:\w\.)*\w$")
_WIDE_MARKS = re.compile("[。，、；：！？؛،؟۔।॥]")
_QUOTES = re.compile(r"(?:(?<=\s)|^)[\"“«„]|[\"”»](?=[\s.,;:!?)]|$)")


def boundary_marks(text: str) -> int:
    """Punctuation used as phrase boundaries in ``text`` (see the patterns' comment)."""
    count = 0
    for match in _LATIN_MARKS.finditer(text):
        start = match.start()
        if not start or text[start - 1].isspace():
            continue  # a mark that ends no phrase ("- ,", a leading "...")
        if match.group() == ".":
            word_start = max(text.rfind(" ", 0, start), text.rfind("(", 0, start)) + 1
            if _INITIALS.fullmatch(text, word_start, start):
                continue
        count += 1
    return count + len(_WIDE_MARKS.findall(text)) + len(_QUOTES.findall(text))


class Ratios(NamedTuple):
    """A block's four ratios, each in [0, 1]."""

    length: float
    average: float
    punctuation: float
    links: float


def content_relevance(r: Ratios) -> float:
    """The paper's content-relevance ratio: 0.5·length + 0.5·average − (1 − punctuation) −
    link density (in [−2, 1])."""
    w_len, w_avg, w_punct, w_link = WEIGHTS
    return w_len * r.length + w_avg * r.average - w_punct * (1 - r.punctuation) - w_link * r.links


def block_ratios(
    elements: Sequence[Element],
    blocks: Sequence[Sequence[int]],
    constants: PaperConstants = DEFAULT_CONSTANTS,
) -> list[Ratios]:
    """The four ratios of every block (see the module docstring)."""
    sizes = [sum(len(elements[i].text) for i in b) for b in blocks]
    averages = [size / len(b) for size, b in zip(sizes, blocks, strict=True)]
    largest = max(sizes, default=0)
    highest = min(max(averages, default=0.0), constants.max_average)
    out = []
    for block, size, average in zip(blocks, sizes, averages, strict=True):
        words = sum(elements[i].n_words for i in block)
        marks = sum(elements[i].n_marks for i in block)
        links = sum(elements[i].n_links for i in block)
        per_word = marks / words if words else 0.0
        out.append(
            Ratios(
                size / largest if largest else 0.0,
                min(1.0, average / highest) if highest else 0.0,
                min(1.0, per_word / constants.marks_per_word),
                min(1.0, links / len(block) / constants.links_per_element),
            )
        )
    return out


def sure_candidates(scores: Sequence[float], sure: float = SURE) -> set[int]:
    """The blocks whose ratio is above ``sure``: the references of the later steps."""
    return {b for b, s in enumerate(scores) if s > sure}


# --- 3. function blocks --------------------------------------------------------------------------


def shared_word_share(texts: Sequence[str]) -> float:
    """The share of the words of ``texts`` that occur in two or more of them."""
    per_text = [tokens_of(t) for t in texts]
    spread = Counter(w for tokens in per_text for w in set(tokens))
    total = sum(len(tokens) for tokens in per_text)
    shared = sum(1 for tokens in per_text for w in tokens if spread[w] > 1)
    return shared / total if total else 0.0


def function_blocks(
    elements: Sequence[Element],
    blocks: Sequence[Sequence[int]],
    constants: PaperConstants = DEFAULT_CONSTANTS,
) -> set[int]:
    """Blocks of two or more short elements (``function_words`` words or fewer on average) that
    share ``function_share`` of their words or more: "posted by X", "Reply", dates."""
    out = set()
    for b, block in enumerate(blocks):
        if len(block) < 2:
            continue
        words = sum(elements[i].n_words for i in block)
        if words / len(block) > constants.function_words:
            continue
        if shared_word_share([elements[i].text for i in block]) >= constants.function_share:
            out.add(b)
    return out


# --- 4. quotes -----------------------------------------------------------------------------------

# Bounds the LCS work on pages with very many blocks (forums): the references compared against.
_MAX_REFERENCES = 200


def quote_classes(
    block_tokens: Sequence[Sequence[str]] | Callable[[int], Sequence[str]],
    classes: Sequence[str],
    starts: Sequence[int],
    references: set[int],
    constants: PaperConstants = DEFAULT_CONSTANTS,
    sizes: Sequence[int] | None = None,
) -> set[str]:
    """The classes (aspects) whose blocks are mostly copies of a reference block: a block of
    ``quote_words`` words or more that starts after a reference of another class is a copy when
    their longest common subsequence holds ``quote_lcs`` of its words.

    ``block_tokens`` is every block's words, or a function giving them (computed only for the
    blocks compared); ``sizes``, when given, are the blocks' sizes in words as
    `pipeline.lang.words.count_words` counts them (else the number of their words)."""
    tokens_of_block = block_tokens if callable(block_tokens) else block_tokens.__getitem__
    refs = sorted(references, key=lambda r: (-len(tokens_of_block(r)), r))[:_MAX_REFERENCES]
    ref_sets = {r: set(tokens_of_block(r)) for r in refs}
    first_ref = min((starts[r] for r in refs), default=None)
    compared: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    for b in range(len(classes)):
        if first_ref is None or starts[b] <= first_ref:
            continue
        size = sizes[b] if sizes is not None else len(tokens_of_block(b))
        if size < constants.quote_words:
            continue
        tokens = tokens_of_block(b)
        earlier = [r for r in refs if starts[r] < starts[b] and classes[r] != classes[b]]
        if not earlier:
            continue
        compared[classes[b]] += 1
        for r in earlier:
            # The LCS cannot exceed the words the two share: most pairs stop here.
            if sum(1 for t in tokens if t in ref_sets[r]) < constants.quote_lcs * len(tokens):
                continue
            if containment_ratio(tokens, tokens_of_block(r)) >= constants.quote_lcs:
                copies[classes[b]] += 1
                break
    return {c for c, n in compared.items() if copies[c] * 2 > n}


# --- 5-7. distances, rescue, dispersion, nearby ------------------------------------------------


def block_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Elements between the two blocks' nearest elements, plus one (adjacent elements: 1)."""
    i = j = 0
    best = math.inf
    while i < len(a) and j < len(b):
        d = a[i] - b[j]
        best = min(best, abs(d))
        if d < 0:
            i += 1
        else:
            j += 1
    return int(best) if best != math.inf else 0


class _Nearest:
    """Distance from any block to the nearest element of another block of a set."""

    def __init__(self, blocks: Sequence[Sequence[int]], chosen: set[int]) -> None:
        pairs = sorted((p, b) for b in chosen for p in blocks[b])
        self.positions = [p for p, _ in pairs]
        self.owners = [b for _, b in pairs]

    def distance(self, block: int, positions: Sequence[int]) -> float:
        best = math.inf
        owners, where = self.owners, self.positions
        for p in positions:
            k = bisect_left(where, p)
            left = k - 1
            while left >= 0 and owners[left] == block:
                left -= 1
            if left >= 0:
                best = min(best, p - where[left])
            right = k
            while right < len(where) and owners[right] == block:
                right += 1
            if right < len(where):
                best = min(best, where[right] - p)
        return best


def rescue_dispersed(
    blocks: Sequence[Sequence[int]],
    classes: Sequence[str],
    scores: Sequence[float],
    references: set[int],
    excluded: set[int],
    constants: PaperConstants = DEFAULT_CONSTANTS,
    rescue: float = RESCUE,
) -> set[int]:
    """Blocks of a reference's class, within ``rescue_near`` elements of it, whose ratio is above
    ``rescue`` times the reference's."""
    by_class: dict[str, list[int]] = {}
    for r in references:
        by_class.setdefault(classes[r], []).append(r)
    out = set()
    for b, block in enumerate(blocks):
        if b in references or b in excluded or classes[b] not in by_class:
            continue
        for r in by_class[classes[b]]:
            near = block_distance(block, blocks[r]) <= constants.rescue_near
            if near and scores[b] > rescue * scores[r]:
                out.add(b)
                break
    return out


def nearest_distances(blocks: Sequence[Sequence[int]], candidates: set[int]) -> dict[int, float]:
    """Each candidate's distance to the nearest other candidate (inf when alone)."""
    nearest = _Nearest(blocks, candidates)
    return {c: nearest.distance(c, blocks[c]) for c in candidates}


def dispersed_candidates(
    blocks: Sequence[Sequence[int]],
    scores: Sequence[float],
    candidates: set[int],
    constants: PaperConstants = DEFAULT_CONSTANTS,
    keep: float = KEEP_DISPERSED,
) -> set[int]:
    """Candidates farther from their nearest candidate than ``dispersed_far`` times the geometric
    mean of those distances, unless their ratio is above ``keep``."""
    if len(candidates) < 2:
        return set()
    distances = nearest_distances(blocks, candidates)
    mean_log = sum(math.log(d) for d in distances.values()) / len(distances)
    limit = constants.dispersed_far * math.exp(mean_log)
    return {c for c, d in distances.items() if d > limit and scores[c] <= keep}


def near_relevant(
    blocks: Sequence[Sequence[int]],
    scores: Sequence[float],
    candidates: set[int],
    excluded: set[int],
    constants: PaperConstants = DEFAULT_CONSTANTS,
) -> set[int]:
    """Blocks within ``near`` elements of a candidate whose ratio is above ``min_relevance``
    (one pass: a block added here does not bring in its own neighbours)."""
    if not candidates:
        return set()
    nearest = _Nearest(blocks, candidates)
    return {
        b
        for b, block in enumerate(blocks)
        if b not in candidates
        and b not in excluded
        and scores[b] > constants.min_relevance
        and nearest.distance(b, block) <= constants.near
    }


# --- 8. the output tag ---------------------------------------------------------------------------

# An element this short (in words) that ends without a phrase mark reads as a heading. Ours: the
# dev sets' references are plain text, with no heading marks to choose it on.
HEADING_WORDS = 12
_ENDS_PHRASE = re.compile(r"[.,;:!?。，、；：！？؛،؟۔।॥…\"”»’)]\s*$")


def output_tag(element: Element) -> str:
    """The paper's output mark for a kept element: "h" header, "l" list item, "p" paragraph.
    From the source tag (h1-h6; li, dt, dd), then punctuation and size: a short element that
    ends without a phrase mark and is not a list item is a header."""
    if element.heading or element.tag in _HEADINGS:
        return "h"
    if element.tag in _LIST_ITEMS:
        return "l"
    if element.n_words <= HEADING_WORDS and not _ENDS_PHRASE.search(element.text):
        return "h"
    return "p"


# --- the steps together --------------------------------------------------------------------------


class Selection(NamedTuple):
    """What `select` decided: the kept elements, each element's block and every block's ratio,
    and the blocks each step took or rejected (for tests and for reading a page)."""

    kept: list[bool]
    block_of: list[int]
    scores: list[float]
    steps: dict[str, frozenset[int]]


def select(elements: Sequence[Element], constants: PaperConstants = DEFAULT_CONSTANTS) -> Selection:
    """Kimatu's steps in the paper's order over a page's elements (module docstring)."""
    aspect_of = (lambda e: e.path_aspect) if constants.aspect == "path" else (lambda e: e.aspect)
    classes_of_elements = [aspect_of(e) for e in elements]
    block_of = style_blocks(classes_of_elements, constants.block_gap)
    blocks = members(block_of)
    classes = [classes_of_elements[b[0]] for b in blocks]
    scores = [content_relevance(r) for r in block_ratios(elements, blocks, constants)]

    sure = sure_candidates(scores)
    function = function_blocks(elements, blocks, constants)
    references = sure - function
    words: dict[int, list[str]] = {}

    def block_words(b: int) -> list[str]:
        if b not in words:
            words[b] = [t for i in blocks[b] for t in tokens_of(elements[i].text)]
        return words[b]

    sizes = [sum(elements[i].n_words for i in b) for b in blocks]
    starts = [b[0] for b in blocks]
    quoted = quote_classes(block_words, classes, starts, references, constants, sizes)
    quotes = {b for b in range(len(blocks)) if classes[b] in quoted}
    references -= quotes
    excluded = function | quotes
    rescued = rescue_dispersed(blocks, classes, scores, references, excluded, constants)
    candidates = references | rescued
    dispersed = dispersed_candidates(blocks, scores, candidates, constants)
    candidates -= dispersed
    excluded |= dispersed
    nearby = near_relevant(blocks, scores, candidates, excluded, constants)
    candidates |= nearby
    steps = {
        "sure": frozenset(sure),
        "function": frozenset(function),
        "quotes": frozenset(quotes & sure),
        "rescued": frozenset(rescued),
        "dispersed": frozenset(dispersed),
        "nearby": frozenset(nearby),
    }
    kept = [block_of[i] in candidates for i in range(len(elements))]
    return Selection(kept, block_of, scores, steps)


def kept_document(
    elements: Sequence[Element], constants: PaperConstants = DEFAULT_CONSTANTS
) -> list[tuple[str, str]]:
    """Kimatu's output file as the paper describes it: the kept elements, each with its output
    tag, in document order."""
    selection = select(elements, constants)
    return [(output_tag(e), e.text) for e, k in zip(elements, selection.kept, strict=True) if k]


class PaperKimatu:
    """The labelling of ``KimatuCleaner(variant="paper")``: `select` over the page's elements,
    mapped onto our blocks (a block takes the verdict of most of its characters)."""

    needs_tree = True

    def __init__(self, constants: PaperConstants = DEFAULT_CONSTANTS) -> None:
        self.constants = constants

    def params(self) -> dict[str, Any]:
        changed = {
            k: v for k, v in asdict(self.constants).items() if v != getattr(DEFAULT_CONSTANTS, k)
        }
        return {"variant": "paper", **changed}

    def label_noted(
        self, blocks: Sequence[Block], tree: Any = None
    ) -> tuple[list[LabeledBlock], tuple[str, ...]]:
        if tree is None:
            elements = elements_from_blocks(blocks)
            selection = select(elements, self.constants)
            scores = [selection.scores[b] for b in selection.block_of]
            labeled = [
                LabeledBlock(b, Verdict.GOOD if k else Verdict.BAD, None, s)
                for b, k, s in zip(blocks, selection.kept, scores, strict=True)
            ]
            return labeled, (NO_TREE_NOTE,)
        elements = text_elements(tree)
        selection = select(elements, self.constants)
        units = [Unit(e.text, len(e.text), len(e.text)) for e in elements]
        mapped = verdicts_for_blocks([b.text for b in blocks], units, selection.kept)
        labeled = [
            LabeledBlock(
                b,
                Verdict.GOOD if good else Verdict.BAD,
                None,
                None if unit is None else selection.scores[selection.block_of[unit]],
            )
            for b, (good, unit) in zip(blocks, mapped, strict=True)
        ]
        return labeled, ()
