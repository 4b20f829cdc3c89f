"""jusText's block segmentation rules, walked through selectolax's node API (`walk`).

The page is walked iteratively (first_child / next / parent), producing the start, end and text
events jusText's SAX handler reacts to, so nesting depth never reaches Python's recursion limit.
What jusText's lxml preprocessor removes is skipped during the walk instead of being deleted from
the tree first: one pass over the DOM instead of two. The same pass gathers what the classes and
ids of a block's enclosing elements name (`Block.ancestor_cues`, `pipeline.html.class_cues`): each
entered element's cues ride in the high bits of its flags on the walk's stack.

Speed notes (per-node Python work is the whole cost; the walk runs at about twice the lexbor
parse time on wcxb-dev): text is kept raw and whitespace-normalised once per block with
str.split; elements are classified by their integer tag id through a per-page cache (reading
``node.tag`` builds a string); a block's dotted path is only built once it gets text, since most
blocks opened by wrapper elements never do. Reading ``node.attributes`` (for the markup size) is
the largest single cost left, about a fifth of the walk (``node.attrs`` and its item iterator
were measured slower). BTE's runs are merged while walking, in C integers, and compiled, a text
node's words are counted by a character loop instead of str.split: recording runs used to add
half of the walk's time and now adds under a tenth.

In a compiled build the walk goes further: pipeline/html/lexbor_walk.pyx walks the same tree by
reading lexbor's node structs directly (no node objects, no attribute dicts, no str per text
node), about twice as fast again, sharing this module's rules and text helpers (cimported).
`pipeline.html.segment` chooses between the two; `walk` stays the reference the C walk must
equal and the fallback it hands pages to.
"""

from __future__ import annotations

import bisect
import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pipeline.compiled import check_fresh, is_compiled_file
from pipeline.errors import PageTooComplex
from pipeline.html import mojibake
from pipeline.html.class_cues import ancestor_cue_bits
from pipeline.html.controls import CONTROL_TABLE
from pipeline.html.guard import Deadline
from pipeline.html.math_images import image_latex
from pipeline.html.mathml import container_latex, math_latex, script_latex
from pipeline.html.structure import (
    LINE_TAGS,
    PRE_EDGE,
    PRE_LINE_END,
    SHAPE_TAGS,
    ShapeTracker,
    code_language,
    names_line,
    pre_language,
    pre_shown,
    with_raw,
    with_spans,
)
from pipeline.lang.words import UNSPACED_CHAR, count_words
from pipeline.types import Block, Shape

# This module is compiled with Cython when the install can (see hatch_build.py and walk.pxd).
check_fresh(__name__, __file__)

# jusText's PARAGRAPH_TAGS: a block starts and ends at each of these.
BLOCK_TAGS = frozenset(
    (
        "body blockquote caption center col colgroup dd div dl dt fieldset form legend optgroup "
        "option p pre table td textarea tfoot th thead tr ul li h1 h2 h3 h4 h5 h6"
    ).split()
)
# Dropped with their content: jusText's preprocessor kills <head>, scripts, styles, embedded
# applets and form controls (lxml Cleaner scripts/style/embedded/forms). <noscript> is kept, as
# jusText keeps it: sites such as Discourse forums serve their whole server-rendered content
# inside it, and dropping it emptied 20 of the 1,358 wcxb-dev pages. <template> content is never
# walked: lexbor keeps it in a separate document fragment, as browsers do (it is never rendered).
# <iframe> is dropped too, where lxml's Cleaner keeps its content: libxml2 parses that content as
# markup, but HTML5 parsers keep it as one raw-text node of HTML source, which a browser never
# renders (and a self-closed "<iframe/>" swallows the rest of the page into it).
KILLED_TAGS = frozenset(
    "head script style template applet button input select textarea iframe -comment".split()
)
# Dropped as tags but their content kept, as lxml's Cleaner does for forms and embedded content.
# A <form> therefore never opens a block, exactly as in jusText.
UNWRAPPED_TAGS = frozenset("form embed layer object param".split())
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)

_HEADING_TAGS = frozenset(f"h{i}" for i in range(10))
# Paths deeper than this are stored abbreviated: joining a 100,000-element path for every block
# would make deep pages quadratic. Heading detection uses a counter, so it is not affected.
MAX_PATH_ELEMENTS = 48

# Elements whose text the walk treats specially (`_SPECIAL`): <pre> keeps its text exactly and
# is one block whatever it holds; inline code becomes a span of its block; <math>, MathJax 2's
# <script type="math/tex"> and MathJax 3's <mjx-container> (its assistive MathML) become LaTeX.
# The C walk hands pages holding math to this walk.
INLINE_CODE_TAGS = frozenset("code kbd samp tt".split())
SPECIAL_TAGS = frozenset(("pre", "math", "script", "mjx-container", *INLINE_CODE_TAGS))
# Elements that only draw a formula whose source the page also carries (MathJax 3's visual
# output inside an <mjx-container> without MathML; MathJax 2's and KaTeX's are recognised by
# class, see `_draws_math`): dropped, or a formula would come out twice, once as glyph soup.
MATH_DRAWING_TAGS = frozenset(("mjx-math",))

# What the walk does with a tag, as bit flags: one look-up per element answers every question the
# walk asks about it. Tags not listed are ordinary inline elements. `_SHAPE` elements are
# reported to the block structure's tracker (`pipeline.html.structure`).
_BLOCK, _KILLED, _UNWRAPPED, _VOID, _HEADING, _BR, _LINK, _SHAPE, _SPECIAL = (
    1,
    2,
    4,
    8,
    16,
    32,
    64,
    128,
    256,
)
_SKIPPED = _KILLED | _UNWRAPPED  # no open/close events of their own
# Set on a <span> inside a <pre> whose class names a line of code (`names_line`): its end ends the
# line (`PRE_LINE_END`).
_LINE_SPAN = 512
# Inside a <pre>, elements lose these flags: the <pre> stays one block with one shape.
_PRE_MASK = ~(_BLOCK | _SHAPE | _SPECIAL)
# The walk's stacks of entered elements keep each element's flags in the low bits and, from this
# bit on, the class cues of the element and its ancestors (`Block.ancestor_cues`): one int each.
_CUE_SHIFT = 10
_KINDS: dict[str | None, int] = {}
for _tags, _flag in (
    (BLOCK_TAGS, _BLOCK),
    (VOID_TAGS, _VOID),
    (_HEADING_TAGS, _HEADING),
    (("br",), _BR),
    (("a",), _LINK),
    (UNWRAPPED_TAGS, _UNWRAPPED),
):
    for _tag in _tags:
        _KINDS[_tag] = _KINDS.get(_tag, 0) | _flag
# Killed tags and non-element nodes (lexbor names them "-comment", "-doctype", ... or None).
for _tags, _flag in ((SHAPE_TAGS, _SHAPE), (SPECIAL_TAGS, _SPECIAL)):
    for _tag in _tags:
        _KINDS[_tag] = _KINDS.get(_tag, 0) | _flag
for _tag in (*KILLED_TAGS, *MATH_DRAWING_TAGS, "-comment", "-doctype", "-document", None):
    _KINDS[_tag] = _KILLED | (_SPECIAL if _tag == "script" else 0)


_TEXT_TAG_ID = next(
    n.tag_id
    for n in LexborHTMLParser("<p>x</p>").root.traverse(include_text=True)
    if n.tag == "-text"
)

# Whether this module runs compiled: the per-character word counters below are only fast as C
# loops, so the Python source keeps using str.split, which gives the same counts.
_COMPILED = is_compiled_file(__file__)
# Below this code point (Thai) `count_words` never segments: its unspaced-script regex cannot
# match (checked by a test).
_UNSPACED_FROM = 0x0E00

# Block is a NamedTuple; its generated __new__ is a Python function, so blocks are built with
# tuple.__new__ directly (same object, one Python frame less per block).
_new_tuple = tuple.__new__
# Tag ids below this are looked up in a list (lexbor numbers its standard tags from 0 up).
_IDS_LISTED = 256

# What a text node may hold that it must lose (`_text_flags`), and pipeline.html.mojibake's
# tables, as C values when compiled.
_CONTROLS = 1
_MOJIBAKE = 2
_MOJIBAKE_ANY = mojibake.ANY
_MOJIBAKE_FIRST_LEAD = mojibake.FIRST_LEAD
_MOJIBAKE_LAST_LEAD = mojibake.LAST_LEAD
_MOJIBAKE_PLAIN = mojibake.PLAIN
_MOJIBAKE_SYMBOL = mojibake.SYMBOL
_MOJIBAKE_CONTINUATION = mojibake.CONTINUATION


def normalize_whitespace(text: str) -> str:
    """jusText's whitespace rule on stripped text: a whitespace run containing a line break
    becomes one newline, any other run one space.

    Implemented with str.split rather than a regex substitution: the split is a C loop and was
    ten times faster than ``re.sub`` on typical block text. str.split and the regex ``\\s`` that
    jusText uses agree on what whitespace is (both use the Unicode White_Space test).
    """
    return _normalized(text)[0]


def _normalized(raw: str) -> tuple[str, int]:
    """`normalize_whitespace` of ``raw`` and its number of words, from one split."""
    if "\n" in raw or "\r" in raw:
        # Line breaks are mostly source indentation at the edges, which stripping removes.
        raw = raw.strip()
        if "\n" in raw or "\r" in raw:
            n_words = 0
            lines: list[str] = []
            for line in raw.replace("\r", "\n").split("\n"):
                words = line.split()
                if words:
                    n_words += len(words)
                    lines.append(" ".join(words))
            return "\n".join(lines), n_words
    words = raw.split()
    return " ".join(words), len(words)


def _unspaced_bmp() -> bytes:
    """One byte per code point of the Basic Multilingual Plane, 1 where `count_words`' regex for
    unspaced scripts matches. Read off the regex's character ranges: a test checks it against the
    regex itself, which is too slow to run over 65,536 characters at every import."""
    flags = bytearray(0x10000)
    ranges = UNSPACED_CHAR.pattern[1:-1]
    for i in range(0, len(ranges), 3):
        low, high = ord(ranges[i]), min(ord(ranges[i + 2]), 0xFFFF)
        flags[low : high + 1] = b"\x01" * max(0, high + 1 - low)
    return bytes(flags)


_UNSPACED_BMP = _unspaced_bmp()


def _spaced_words(text: str) -> int:
    """``count_words(text, None)[0]`` without building the words, or -1 for text that may hold an
    unspaced script (Thai, CJK, ...), which only `count_words` segments.

    Text without such characters counts ``len(text.lower().split())`` there, and lower-casing
    never turns a character into whitespace or back (checked by a test), so it is
    ``len(text.split())``: str.split's whitespace test is the Py_UNICODE_ISSPACE that
    ``ch.isspace()`` compiles to. Characters outside the BMP are left to `count_words` whole.
    """
    n = 0
    gap = True
    for ch in text:
        if ch.isspace():
            gap = True
        else:
            if gap:
                n += 1
                gap = False
            if ord(ch) >= _UNSPACED_FROM and (ord(ch) > 0xFFFF or _UNSPACED_BMP[ord(ch)]):
                return -1
    return n


def _text_flags(text: str) -> int:
    """What ``text`` holds that a text node must lose: `_CONTROLS` when a control character
    (`pipeline.html.controls`), `_MOJIBAKE` when a stretch that passes
    `pipeline.html.mojibake`'s test (its `suspect_at`, restated as one C loop when compiled)."""
    flags = 0
    need = 0
    accepts = 0
    for ch in text:
        o = ord(ch)
        if o < 0x80:
            if (o < 0x1C and not 0x09 <= o <= 0x0D) or o == 0x7F:
                flags |= _CONTROLS
            need = 0
            continue
        if o < 0xA0:
            flags |= _CONTROLS
        if need:
            # (continuations are U+0080-U+00BF and Windows-1252's from U+0152 to U+2122)
            if (o < 0xC0 or 0x152 <= o <= 0x2122) and _MOJIBAKE_CONTINUATION.get(o, 0) & accepts:
                need -= 1
                if not need:
                    return flags | _MOJIBAKE | _CONTROLS  # the rest is not scanned: assume both
                accepts = _MOJIBAKE_ANY
                continue
            need = 0
        if o < _MOJIBAKE_FIRST_LEAD or o > _MOJIBAKE_LAST_LEAD or o == 0xDF:
            continue
        # mojibake.LEADS restated as arithmetic: a table look-up per accented letter is a
        # Python tuple's, ten times the cost (tests/html/test_mojibake.py holds them equal)
        if o <= 0xC3:
            need = 1
            accepts = _MOJIBAKE_ANY
        elif o < 0xE0:
            need = 1
            accepts = _MOJIBAKE_PLAIN
        else:
            need = 2 if o < 0xF0 else 3
            accepts = _MOJIBAKE_PLAIN | _MOJIBAKE_SYMBOL
    return flags


def node_text(text: str) -> str:
    """``text`` as a text node's text: its mojibake repaired (`pipeline.html.mojibake`) and its
    control characters made as `pipeline.html.controls` says (the same str when it holds
    neither, the usual case, found by one C loop when compiled)."""
    flags = _text_flags(text)
    if flags & _MOJIBAKE:
        text = mojibake.repair(text)
    if flags & _CONTROLS:
        return text.translate(CONTROL_TABLE)
    return text


def _is_blank(text: str) -> bool:
    """``text.isspace()`` for non-empty ``text``, as a C loop when compiled (a str method call
    costs more than scanning a typical text node)."""
    for ch in text:  # noqa: SIM110 - a plain loop over a typed character is what compiles to C
        if not ch.isspace():
            return False
    return True


def _squeezed_length(text: str) -> int:
    """``len(" ".join(text.split()))``: the characters of the words plus one space between each
    two, counted without building the words."""
    chars = 0
    words = 0
    gap = True
    for ch in text:
        if ch.isspace():
            gap = True
        else:
            chars += 1
            if gap:
                words += 1
                gap = False
    return chars + words - 1 if words else 0


def _path_string(path: list[str]) -> str:
    if len(path) > MAX_PATH_ELEMENTS:
        return ".".join(path[:2]) + "…." + ".".join(path[2 - MAX_PATH_ELEMENTS :])
    return ".".join(path)


_WORD = re.compile(r"\S+")
# The shape of a block that only has inline spans (code, math) to record.
_PLAIN = Shape()


def _normalized_spans(
    raw: str, spans: list[tuple[int, int, str]]
) -> tuple[str, int, tuple[tuple[int, int, str], ...]]:
    r"""`_normalized` of ``raw``, and ``spans`` (offsets into ``raw``) moved to offsets into it.

    The slow way round, for the few blocks holding inline code or math: word by word, with the
    same rule (a gap holding a line break becomes one newline, any other one space; ``\S`` and
    str.split agree on whitespace). A span edge inside a gap moves to the nearest word inside the
    span; spans left empty are dropped.
    """
    parts: list[str] = []
    raw_starts: list[int] = []
    raw_ends: list[int] = []
    starts: list[int] = []
    at = 0
    previous = -1
    for match in _WORD.finditer(raw):
        begin, end = match.span()
        if previous >= 0:
            gap = raw[previous:begin]
            parts.append("\n" if "\n" in gap or "\r" in gap else " ")
            at += 1
        raw_starts.append(begin)
        raw_ends.append(end)
        starts.append(at)
        parts.append(match.group())
        at += end - begin
        previous = end
    text = "".join(parts)
    moved: list[tuple[int, int, str]] = []
    for begin, end, kind in spans:
        i = bisect.bisect_right(raw_starts, begin) - 1
        if i >= 0 and begin < raw_ends[i]:
            new_begin = starts[i] + begin - raw_starts[i]
        else:
            new_begin = starts[i + 1] if i + 1 < len(starts) else len(text)
        j = bisect.bisect_left(raw_starts, end) - 1
        if j < 0:
            continue
        new_end = starts[j] + min(end, raw_ends[j]) - raw_starts[j]
        if new_begin < new_end:
            moved.append((new_begin, new_end, kind))
    return text, len(raw_starts), tuple(moved)


def _close_code(
    spans: list[tuple[int, int, str]] | None, start: int, pieces: list[str]
) -> list[tuple[int, int, str]] | None:
    """``spans`` with the inline code that started at piece ``start`` and ends here, if it holds
    text (pieces are never empty, so a span of pieces holds text)."""
    end = len(pieces)
    if end > start:
        if spans is None:
            spans = []
        spans.append((start, end, "code"))
    return spans


def _draws_math(class_value: str) -> bool:
    """Whether an element of this class only draws a formula whose source the page also holds:
    MathJax 2's output ("MathJax", "MathJax_Display", "MathJax_Preview", ...; the source stays
    in a math/tex script) and KaTeX's "katex-html" (the source is in its "katex-mathml" twin)."""
    return any(word.startswith("MathJax") or word == "katex-html" for word in class_value.split())


def _block(
    index: int,
    pieces: list[str],
    tag: str,
    dom_path: str,
    style: tuple[str, str | None] | None,
    heading: bool,
    link_chars: int,
    tags: int,
    markup: int,
    runs: list[int] | None,
    run: int,
    style_texts: dict[tuple[str, str | None], str],
    ancestor_cues: int,
    shape: Shape | None,
    pre_raw: str | None,
    spans: list[tuple[int, int, str]] | None,
) -> Block:
    if pre_raw is not None:
        # A <pre>'s block holds its text as the browser shows it (`pre_shown`), whitespace
        # normalised like any block's: its lines apart, a label or button beside its code left
        # out (so fewer characters may be left than were counted as link text). Inline code
        # around the <pre> makes no span in it: the whole block is code.
        text, n_words = _normalized(pre_raw)
        if link_chars > len(text):
            link_chars = len(text)
        if shape is not None:
            shape = with_raw(shape, pre_raw)
    elif spans:
        joined = pieces[0] if len(pieces) == 1 else "".join(pieces)
        # Spans were recorded as piece indexes (pieces only grow while a block is built), which
        # keeps a block of many inline code elements linear: they become offsets here, once.
        offsets = [0]
        total = 0
        for piece in pieces:
            total += len(piece)
            offsets.append(total)
        spans = [(offsets[a], offsets[b], kind) for a, b, kind in spans]
        text, n_words, moved = _normalized_spans(joined, spans)
        if moved:
            shape = with_spans(shape or _PLAIN, moved)
    else:
        # Pieces are raw text; normalising once per block equals jusText's per-node
        # normalisation followed by its per-paragraph one (a run split across nodes has a line
        # break iff a part has).
        text, n_words = _normalized(pieces[0] if len(pieces) == 1 else "".join(pieces))
    # The block element's tag and classes ("div.post.main"). A page repeats a few styles over
    # and over, so each is formatted once per page.
    if style is None:
        style_text = ""
    else:
        style_text = style_texts.get(style)
        if style_text is None:
            style_tag, classes = style
            style_text = style_tag + "." + ".".join(classes.split()) if classes else style_tag
            style_texts[style] = style_text
    return _new_tuple(
        Block,
        (
            index,
            text,
            tag,
            dom_path,
            style_text,
            heading,
            len(text),
            n_words,
            link_chars,
            tags,
            markup,
            None if runs is None else tuple(runs) if not run else (*runs, run),
            ancestor_cues,
            shape,
        ),
    )


def _add_run(run: int, n: int, runs: list[int]) -> int:
    """BTE's current run after ``n`` more words (> 0) or tags (< 0): a count of the same sign
    extends it; otherwise the finished run goes to ``runs`` and ``n`` starts the next one."""
    if run and (run > 0) == (n > 0):
        return run + n
    if run:
        runs.append(run)
    return n


def _next_checkpoint(seen: int, limit: int) -> int:
    """The next node count at which the walk checks its node cap or its deadline."""
    nxt = (seen | 4095) + 1  # next multiple of 4096
    return limit if seen < limit < nxt else nxt


def walk(
    root: LexborNode,
    max_nodes: int | None,
    record_runs: bool,
    deadline: Deadline | None,
) -> list[Block]:
    """`segment`'s walk through selectolax's public node API: the reference every other walk
    must equal, and the one that runs wherever the C walk cannot."""
    blocks: list[Block] = []
    limit = max_nodes if max_nodes is not None else -1
    kinds = _KINDS
    text_id = _TEXT_TAG_ID
    # tag id -> (name, kinds flags, markup size without attributes). Reading `node.tag` builds
    # a new string for every element; the integer id is cheap. Ids of custom elements are only
    # stable within one document, so the cache lives for one call. Standard tags have small
    # ids, looked up by list index; the rare larger ids of custom elements go to a dict.
    by_id: list[tuple[str, int, int] | None] = [None] * _IDS_LISTED
    tags_seen: dict[int, tuple[str, int, int]] = {}
    style_texts: dict[tuple[str, str | None], str] = {}

    path: list[str] = []
    # Open block elements as (tag, class attribute); formatted only for blocks that are emitted.
    styles: list[tuple[str, str | None]] = []
    # The class cues of each open block element's ancestors (`Block.ancestor_cues`).
    style_cues: list[int] = []
    headings_open = 0
    link_depth = 0
    br = False
    # State of the block being built; its tag, path and style are those when it was opened.
    # `pieces` holds raw text and is non-empty exactly when the block has non-blank text:
    # whitespace is only recorded after some text, since leading whitespace is stripped anyway.
    pieces: list[str] = []
    link_chars = tags = markup = 0
    # The block's dotted path is built lazily, at its first text: most blocks opened by wrapper
    # elements never get any. Until then it is path[:block_depth], which cannot change before a
    # pop reaches that depth (the string is built just before such a pop).
    dom_path: str | None = None
    block_depth = 0
    block_tag = ""
    style: tuple[str, str | None] | None = None
    ancestor_cues = 0
    heading = False
    # BTE's runs, merged as they come: `runs` holds the finished runs of the block being built,
    # `run` the current one (words > 0, tags < 0); equal signs add up, zeros are never recorded.
    runs: list[int] | None = [] if record_runs else None
    run = 0
    # The page's structure (`pipeline.html.structure`) and the open block's place in it.
    # The shape is read at the block's first text, not where it opens: a list or <thead> that
    # opens or closes no block (<ol> is no block tag) can come in between.
    shaper = ShapeTracker()
    shape: Shape | None = None
    shape_due = True
    # Inside a <pre>: 1 plus the elements open inside it. Its text as pieces for `pre_shown`
    # (`Shape.raw`), the <code> elements open in it and how many it has held (outermost only).
    pre_depth = 0
    pre_text: list | None = None
    pre_code = pre_codes = 0
    # Inline code and math of the open block, as (first piece, piece after it, kind).
    spans: list[tuple[int, int, str]] | None = None
    code_depth = 0
    code_start = 0
    math: tuple[str, bool] | None = None

    seen = 0
    checkpoint = _next_checkpoint(seen, limit)
    # The ancestors of `node` below `root` that were descended into, and their kinds, innermost
    # last: climbing back pops them instead of asking lexbor for the parent (a new node object)
    # and looking its tag id up again. Two parallel lists rather than one of pairs: no tuple to
    # build and free per element.
    entered: list[LexborNode] = []
    entered_kinds: list[int] = []
    node: LexborNode | None = root
    while node is not None:
        seen += 1
        if seen == checkpoint:
            # One comparison per node serves both the node cap and the periodic deadline check.
            if seen == limit:
                raise PageTooComplex(f"page has more than {max_nodes} DOM nodes")
            if deadline is not None and not seen & 4095:
                deadline.check("segmentation")
            checkpoint = _next_checkpoint(seen, limit)
        tag_id = node.tag_id
        if tag_id == text_id:
            if pre_depth:
                content = node.text_content
                if content:
                    content = node_text(content)
                if content:
                    if (
                        pre_depth > 1
                        and not pre_code
                        and not (_is_blank(content) if _COMPILED else content.isspace())
                    ):
                        pre_text.append((content,))  # beside the code, in some element
                    else:
                        pre_text.append(content)
            # Most text nodes are inter-tag whitespace: lexbor answers that in C, without
            # building the string (a non-ASCII space such as U+00A0 still takes the long way).
            if node.is_empty_text_node:
                if pieces:
                    pieces.append(" ")
                content = None
            else:
                content = node.text_content
                if content:
                    content = node_text(content)
            if content:
                if not (_is_blank(content) if _COMPILED else content.isspace()):
                    if shape_due:
                        shape = shaper.current()
                        shape_due = False
                    if dom_path is None:
                        dom_path = _path_string(
                            path if len(path) == block_depth else path[:block_depth]
                        )
                    pieces.append(content)
                    if link_depth:
                        # The node's length after jusText's whitespace rule (edges keep one char).
                        link_chars += content[0].isspace() + content[-1].isspace()
                        if _COMPILED:
                            link_chars += _squeezed_length(content)
                        else:
                            link_chars += len(" ".join(content.split()))
                    if record_runs:
                        # BTE's tokens are words; unspaced scripts (zh, ja, th) count by
                        # segmentation, or a paragraph of Chinese would be one token.
                        if _COMPILED:
                            n = _spaced_words(content)
                        else:
                            n = len(content.split()) if content.isascii() else -1
                        if n < 0:
                            n = count_words(content, None)[0]
                        if n:
                            run = _add_run(run, n, runs)
                    br = False
                elif pieces:
                    # jusText drops whitespace-only text nodes, which glues "a</b> <i>b" into
                    # "ab"; one space keeps words that only inter-tag whitespace separates apart.
                    pieces.append(" ")
            # Most text nodes have a next sibling: go there directly (text nodes are never the
            # root and have nothing to close).
            nxt = node.next
            if nxt is not None:
                node = nxt
                continue
            kind = _KILLED  # nothing to enter or close
        else:
            known = by_id[tag_id] if tag_id < _IDS_LISTED else tags_seen.get(tag_id)
            if known is None:
                tag = node.tag
                if not tag or tag[0] in "-!":
                    # Nameless or special nodes (doctype, processing instructions, ...): no text.
                    tag, kind = tag or "", _KILLED
                else:
                    kind = kinds.get(tag, 0)
                # Markup size of the start tag's "<tag>" and, unless void, of "</tag>".
                bare = len(tag) + 2 + (0 if kind & _VOID else len(tag) + 3)
                known = (tag, kind, bare)
                if tag_id < _IDS_LISTED:
                    by_id[tag_id] = known
                else:
                    tags_seen[tag_id] = known
            tag, kind, size = known
            # What the enclosing elements' classes and ids say; this element's own are added
            # for its descendants.
            inherited = entered_kinds[-1] >> _CUE_SHIFT if entered_kinds else 0
            cues = inherited
            attrs = None
            if not kind & _KILLED:
                attrs = node.attributes
                # An unwrapped <form class="comment-form"> names its content too; the root's
                # (<html>'s) classes describe the document (no-js, theme and feature flags).
                if attrs and entered:
                    value = attrs.get("class")
                    if value:
                        cues |= ancestor_cue_bits(value)
                        if (
                            ("MathJax" in value or "katex-html" in value)
                            and tag != "mjx-container"  # MathJax 3: its source is inside
                            and _draws_math(value)
                        ):
                            kind = _KILLED
                    value = attrs.get("id")
                    if value:
                        cues |= ancestor_cue_bits(value)
            if kind & _SPECIAL:
                if pre_depth:
                    if tag == "code" and attrs:
                        shaper.name_language(code_language(attrs.get("class")))
                    kind &= _PRE_MASK
                elif tag == "math":
                    math = math_latex(node)
                    kind = _KILLED
                elif tag == "mjx-container":
                    math = container_latex(node)
                    # Without MathML inside, its content is walked as any element's (its
                    # drawing, <mjx-math>, is dropped by tag).
                    kind = _KILLED if math is not None else kind & ~_SPECIAL
                elif kind & _KILLED:  # <script>
                    math = script_latex(node.attributes.get("type"), node.text(deep=True))
                elif tag != "pre":
                    code_depth += 1
                    if code_depth == 1:
                        code_start = len(pieces)
            elif pre_depth:
                kind &= _PRE_MASK
            elif tag == "img" and attrs:
                math = image_latex(attrs, node)
            if math is not None:
                # A formula is text of its block: its LaTeX, as a span (see `Shape.spans`).
                latex, display = math
                math = None
                if latex:
                    if shape_due:
                        shape = shaper.current()
                        shape_due = False
                    if dom_path is None:
                        dom_path = _path_string(
                            path if len(path) == block_depth else path[:block_depth]
                        )
                    if pieces:
                        pieces.append(" ")
                    start = len(pieces)
                    pieces.append(latex)
                    if spans is None:
                        spans = []
                    spans.append((start, start + 1, "display_math" if display else "math"))
                    pieces.append(" ")
                    if link_depth:
                        link_chars += len(latex)
                    if record_runs:
                        n = len(latex.split())
                        if n:
                            run = _add_run(run, n, runs)
                    br = False
            if not kind & _SKIPPED:
                if kind & _SHAPE:
                    shaper.enter(tag)
                path.append(tag)
                if pre_depth:
                    pre_depth += 1
                    if tag in LINE_TAGS:
                        pre_text.append(PRE_EDGE)
                    elif tag == "code":
                        if not pre_code:
                            pre_codes += 1
                        pre_code += 1
                    elif tag == "span" and attrs:
                        value = attrs.get("class")
                        if value and names_line(value):
                            kind |= _LINE_SPAN
                if kind & _HEADING:
                    headings_open += 1
                if attrs:
                    for name, value in attrs.items():
                        size += len(name) + 1 + (len(value) + 3 if value is not None else 0)
                if kind & _BLOCK or (br and kind & _BR and not pre_depth):
                    if kind & _BLOCK:
                        styles.append((tag, attrs.get("class")))
                        style_cues.append(inherited)
                    else:
                        # <br><br> separates blocks and is not counted as a tag of either.
                        tags -= 1
                    if pieces:
                        if code_depth:
                            spans = _close_code(spans, code_start, pieces)
                            code_start = 0
                        blocks.append(
                            _block(
                                len(blocks),
                                pieces,
                                block_tag,
                                dom_path or "",
                                style,
                                heading,
                                link_chars,
                                tags,
                                markup,
                                runs,
                                run,
                                style_texts,
                                ancestor_cues,
                                shape,
                                None if pre_text is None else pre_shown(pre_text, pre_codes == 1),
                                spans,
                            )
                        )
                        pieces = []
                        runs = [] if record_runs else None
                        run = 0
                    spans = None
                    shape_due = True
                    if kind & _SPECIAL:  # <pre>: one block, its text kept as it is
                        pre_depth = 1
                        pre_text = []
                        pre_code = pre_codes = 0
                        shaper.name_language(
                            pre_language(attrs.get("class"), [c for _, c in styles[-3:-1]])
                        )
                    link_chars = tags = 0
                    markup = size
                    # As in jusText, a block opened by <br><br> has the <br> ending its path.
                    dom_path = None
                    block_depth = len(path)
                    block_tag = tag
                    style = styles[-1] if styles else None
                    ancestor_cues = style_cues[-1] if style_cues else 0
                    heading = headings_open > 0
                else:
                    br = kind & _BR != 0
                    if br:
                        if pieces:
                            pieces.append(" ")
                        if pre_depth:
                            pre_text.append("\n")
                    elif kind & _LINK:
                        link_depth += 1
                    tags += 1
                    markup += size
                if record_runs:
                    run = _add_run(run, -1, runs)
        if not kind & _KILLED:
            child = node.first_child
            if child is not None:
                entered.append(node)
                entered_kinds.append(kind | cues << _CUE_SHIFT)
                node = child
                continue
        # Leaving `node`: close it, then climb while there is no next sibling. Every ancestor
        # reached by climbing was descended into, so it is an entered element to close.
        while True:
            if not kind & _SKIPPED:
                if record_runs and not kind & _VOID:
                    run = _add_run(run, -1, runs)
                if kind & _HEADING:
                    headings_open -= 1
                if kind & _SHAPE:
                    shaper.leave()
                if kind & _SPECIAL and not kind & _BLOCK:  # inline code
                    code_depth -= 1
                    if not code_depth:
                        spans = _close_code(spans, code_start, pieces)
                if kind & _BLOCK:
                    path.pop()
                    styles.pop()
                    style_cues.pop()
                    if pieces:
                        if code_depth:
                            spans = _close_code(spans, code_start, pieces)
                            code_start = 0
                        blocks.append(
                            _block(
                                len(blocks),
                                pieces,
                                block_tag,
                                dom_path or "",
                                style,
                                heading,
                                link_chars,
                                tags,
                                markup,
                                runs,
                                run,
                                style_texts,
                                ancestor_cues,
                                shape,
                                None if pre_text is None else pre_shown(pre_text, pre_codes == 1),
                                spans,
                            )
                        )
                        pieces = []
                        runs = [] if record_runs else None
                        run = 0
                    spans = None
                    if kind & _SPECIAL:  # the <pre> ends
                        pre_depth = 0
                        pre_text = None
                    shape_due = True
                    link_chars = tags = markup = 0
                    dom_path = None
                    block_depth = len(path)
                    block_tag = path[-1] if path else ""
                    style = styles[-1] if styles else None
                    ancestor_cues = style_cues[-1] if style_cues else 0
                    heading = headings_open > 0
                else:
                    if dom_path is None and len(path) <= block_depth:
                        # The open block's start path is about to change: build its string now.
                        dom_path = _path_string(path)
                    if pre_depth > 1:
                        pre_depth -= 1
                        if path[-1] in LINE_TAGS:
                            pre_text.append(PRE_EDGE)
                        elif path[-1] == "code":
                            pre_code -= 1
                        elif kind & _LINE_SPAN:
                            pre_text.append(PRE_LINE_END)
                    path.pop()
                    if kind & _LINK and link_depth:
                        # jusText clears its link flag at any </a>; a depth counter is the same
                        # for valid HTML and keeps a stray end tag from leaking link state.
                        link_depth -= 1
            if not entered:
                node = None
                break
            nxt = node.next
            if nxt is not None:
                node = nxt
                break
            node = entered.pop()
            kind = entered_kinds.pop()
    if pieces:
        if code_depth:
            spans = _close_code(spans, code_start, pieces)
        blocks.append(
            _block(
                len(blocks),
                pieces,
                block_tag,
                dom_path or "",
                style,
                heading,
                link_chars,
                tags,
                markup,
                runs,
                run,
                style_texts,
                ancestor_cues,
                shape,
                None if pre_text is None else pre_shown(pre_text, pre_codes == 1),
                spans,
            )
        )
    return blocks
