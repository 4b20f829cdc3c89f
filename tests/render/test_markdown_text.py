"""The page's text in the Markdown is text: no markup, whatever the characters (issue 48).

A page can show ``<script>`` or ``<img src=x onerror=...>`` as characters (entity-escaped in its
HTML, so inert). Written verbatim into the Markdown column, CommonMark renders them as live HTML.
Each property parses the Markdown with markdown-it-py as a downstream tool would, with raw HTML
enabled (its default preset), and checks what comes back against the rules in
`pipeline.render.blocks`: only the elements the renderer makes from Markdown syntax, and the
text's own characters.
"""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pipeline.render.blocks import MAX_NESTING, _table_width, render
from pipeline.types import Block, Shape

# What a downstream tool does with the column: markdown-it-py's defaults (CommonMark, raw HTML
# on), GFM tables as well.
_MD = MarkdownIt().enable("table")
# The elements the renderer makes from Markdown syntax: paragraphs, headings, lists, quotes,
# fenced code and code spans, GFM tables (and line breaks of a paragraph's lines).
RENDERER_ELEMENTS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code"}
    | {"table", "thead", "tbody", "tr", "th", "td", "br"}
)

# Characters that are markup somewhere in CommonMark or HTML, and the strings of issue 48.
_HOSTILE = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<iframe src=//e.example></iframe>",
        "<a href='javascript:alert(1)'>x</a>",
        "<!-- c -->",
        "<http://e.example>",
        "<me@e.example>",
        "&lt;script&gt;",
        "&#60;b&#62;",
        "&amp;",
        "[a](javascript:alert(1))",
        "![i](x onerror=alert(1))",
        "[ref]",
        "*em* **strong** _em_ __strong__",
        "`code`",
        "\\<b>",
        "\\\\*x*",
        "a\\",
        "x | y",
        "</td>",
        "<",
        ">",
        "&",
        "*",
        "_",
        "`",
        "\\",
        "[",
        "]",
        "(",
        "!",
        "snake_case",
        "word",
        " ",
    ]
)
_TEXT = st.lists(
    _HOSTILE | st.text(st.sampled_from("ab <>&*_`\\[]()!#|-=~:"), max_size=6), max_size=8
).map("".join)


def blk(text: str, shape: Shape | None = None, index: int = 0) -> Block:
    return Block(index, text, "p", "html/body/p", "", False, len(text), 1, 0, 1, 7, None, 0, shape)


class _Elements(HTMLParser):
    """The start tags and attribute names of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def elements(markdown: str) -> _Elements:
    found = _Elements()
    found.feed(_MD.render(markdown))
    found.close()
    return found


@st.composite
def hostile_blocks(draw: st.DrawFn) -> list[Block]:
    """Blocks of hostile text in every place the renderer writes text: paragraphs, headings,
    list items, quotes, table cells and captions, beside code and math spans."""
    out: list[Block] = []
    table = 0
    for _ in range(draw(st.integers(1, 6))):
        text = draw(_TEXT) or "x"
        kind = draw(st.sampled_from(["plain", "heading", "list", "quote", "table", "spans"]))
        if kind == "plain":
            shape = None
        elif kind == "heading":
            shape = Shape(heading=draw(st.integers(1, 6)))
        elif kind == "list":
            shape = Shape(lists=draw(st.sampled_from(["u", "o", "uo"])), item=len(out) + 1)
        elif kind == "quote":
            shape = Shape(quote=draw(st.integers(1, 3)))
        elif kind == "table":
            table += 1
            for r in range(2):
                for c in range(2):
                    cell = draw(_TEXT) or "x"
                    out.append(blk(cell, Shape(table=table, row=r, col=c), len(out)))
            continue
        else:
            a = draw(st.integers(0, len(text)))
            e = draw(st.integers(a, len(text)))
            shape = Shape(spans=((a, e, draw(st.sampled_from(["code", "math"]))),))
        out.append(blk(text, shape, len(out)))
    return out


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_blocks())
def test_no_element_but_the_renderers_own(bs: list[Block]) -> None:
    """For any page, the Markdown rendered by markdown-it-py (raw HTML enabled) holds no element
    the renderer did not make from Markdown syntax, and no attribute but a list's start or a
    code block's language: no <script>, <img>, <iframe>, <a>, no on* handler."""
    md = render(bs).markdown
    found = elements(md)
    allowed = RENDERER_ELEMENTS
    if any(b.shape and any(k == "math" for _, _, k in b.shape.spans) for b in bs):
        # Math is written as LaTeX, for readers with a math extension: one without reads its
        # "*" as emphasis (its "<" and "](" can open no tag or link: `_math_text`).
        allowed |= {"em", "strong"}
    assert found.tags <= allowed, (found.tags - allowed, md)
    assert found.attributes <= {"start", "class", "style"}, (found.attributes, md)


def _inline_text(md: str) -> str:
    """The characters of a one-paragraph Markdown's inline content, as a reader sees them."""
    tokens = _MD.parse(md)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], md
    out = []
    for child in tokens[1].children or ():
        assert child.type in ("text", "softbreak"), (child.type, md)
        out.append(child.content if child.type == "text" else "\n")
    return "".join(out)


@settings(max_examples=500, deadline=None)
@given(_TEXT.map(lambda t: " ".join(t.split())).filter(lambda t: t and not t.isspace()))
def test_text_reads_back_as_the_same_characters(text: str) -> None:
    """A paragraph's Markdown reads back, in CommonMark, as exactly the text's characters:
    every <, >, & (and every other character a reader would take as markup) is escaped so."""
    md = render([blk(text)]).markdown
    # (a leading run of blanks, and of line-start markers, is what the reader drops as syntax)
    assert _inline_text(md) == text, md


def _code_text(md: str) -> tuple[str, list[str]]:
    """The characters of a one-paragraph Markdown as a reader sees them, and its code spans."""
    tokens = _MD.parse(md)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], md
    children = tokens[1].children or ()
    assert {c.type for c in children} <= {"text", "code_inline"}, md
    return "".join(c.content for c in children), [
        c.content for c in children if c.type == "code_inline"
    ]


@st.composite
def code_spans(draw: st.DrawFn) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """A paragraph and inline code spans over it, some touching, some apart."""
    text = draw(st.text(st.sampled_from("ab`*_<\\"), min_size=1, max_size=30))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)) | {0, len(text)})
    spans = [(a, b, "code") for a, b in itertools.pairwise(cuts) if draw(st.booleans())]
    return text, tuple(spans)


@settings(max_examples=500, deadline=None)
@given(code_spans())
def test_code_spans_read_back_as_their_text(page: tuple[str, tuple]) -> None:
    """Inline code spans, touching or not, read back in CommonMark as the text's characters,
    every character a span held inside a code span. (Two touching spans written apart,
    `a``b`, read as one span holding two backticks: wcxb-dev 0415's stacked <code> chips.)"""
    text, spans = page
    md = render([blk(text, Shape(spans=spans))]).markdown
    shown, codes = _code_text(md)
    assert shown == text, md
    in_code = {i for a, b, _ in spans for i in range(a, b)}
    assert "".join(codes) == "".join(text[i] for i in sorted(in_code)), md


def test_touching_code_spans_are_one_span() -> None:
    # wcxb-dev 0415: <code>U+00DF</code><code>0x C3 9F</code>, drawn as two stacked chips.
    text = "variants 'ß'U+00DF0x C3 9F and"
    md = render([blk(text, Shape(spans=((12, 18, "code"), (18, 26, "code"))))]).markdown
    assert md == "variants 'ß'`U+00DF0x C3 9F` and"


@pytest.mark.parametrize(
    "text",
    [
        "Type <script>alert(1)</script> to see it",
        "<img src=x onerror=alert(1)> in a sentence",
        "AT&T and &lt;b&gt; and &#60;",
        "a *b* _c_ `d` [e](f) ![g](h) \\<i>",
    ],
)
def test_a_script_shown_as_text_comes_back_as_text(text: str) -> None:
    for shape in (None, Shape(heading=2), Shape(lists="u", item=1), Shape(quote=1)):
        md = render([blk(text, shape)]).markdown
        html = _MD.render(md)
        assert "<script" not in html and "<img" not in html and "<a " not in html, html
        assert _MD.render(md).count("&lt;") == text.count("<"), html


def test_a_table_cell_holds_text_too() -> None:
    cells = ["<script>alert(1)</script>", "a|b", "&amp;", "x\\|y"]
    bs = [blk(t, Shape(table=1, row=i // 2, col=i % 2), i) for i, t in enumerate(cells)]
    html = _MD.render(render(bs).markdown)
    assert "<script" not in html
    assert re.findall(r"<t[hd]>(.*?)</t[hd]>", html) == [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "a|b",
        "&amp;amp;",
        "x\\|y",
    ]


def test_math_cannot_open_a_tag_or_a_link() -> None:
    text = "where a<b and c](d) hold"
    md = render([blk(text, Shape(spans=((6, 9, "math"), (14, 19, "math"))))]).markdown
    assert "$a< b$" in md and "$c] (d)$" in md
    found = elements(md)
    assert found.tags <= {"p"}, md


# --- output bounded by input ---


def test_a_ragged_table_is_not_padded_to_its_widest_row() -> None:
    # Issue 48's table: a first row of 12,000 cells, then 6,000 rows of 2. Padded row by row it
    # was 216 MB of Markdown; written 2 wide, the first row's cells join its last cell.
    first = [blk(f"h{c}", Shape(table=1, row=0, col=c), c) for c in range(12_000)]
    rest = [
        blk(f"v{r}{c}", Shape(table=1, row=r, col=c), 12_000 + 2 * r + c)
        for r in range(1, 6_001)
        for c in range(2)
    ]
    r = render(first + rest)
    cells = sum(len(b.text) for b in first + rest)
    assert len(r.markdown) < 4 * cells + 10 * 6_001, len(r.markdown)
    lines = r.markdown.split("\n")
    assert lines[1] == "| --- | --- |" and lines[0].startswith("| h0 | h1 h2 h3")
    assert all(line.count(" | ") == 1 for line in lines[2:])
    # every word is still there, in order
    assert re.findall(r"[hv]\d+", r.markdown) == [b.text for b in first + rest]


def test_a_short_row_is_still_padded() -> None:
    assert _table_width([3, 2, 3]) == 3 and _table_width([2, 3]) == 3
    assert _table_width([12_000] + [2] * 10) == 2
    # Padded to 16 wide, these rows get 60 empty cells for their 20: 3 per cell, the bound.
    assert _table_width([16, 1, 1, 1, 1]) == 16
    # One more cell in the first row adds 4 empty cells, 64 for 21: the lower median instead.
    assert _table_width([17, 1, 1, 1, 1]) == 1
    assert _table_width([40, 1, 2, 3, 1]) == 2  # 153 for 47; sorted 1 1 2 3 40: the median
    assert _table_width([100, 4, 3, 2, 2, 1]) == 2  # sorted 1 2 2 3 4 100: the lower middle
    assert _table_width([]) == 0


def test_nesting_deeper_than_the_cap_is_written_at_the_cap() -> None:
    deep = [
        blk("line\n" * 50, Shape(quote=1_000), 0),
        blk("item", Shape(lists="u" * 1_000, item=1), 1),
    ]
    md = render(deep).markdown
    assert MAX_NESTING == 8  # the documented cap (pipeline/render/blocks.py)
    assert max(line.count(">") for line in md.split("\n")) == MAX_NESTING
    assert len(md) < 200 * 50


def test_the_cap_cuts_text_and_markdown_and_says_so() -> None:
    bs = [blk(f"paragraph {i} " * 20, None, i) for i in range(100)]
    full = render(bs)
    assert not full.truncated
    cut = render(bs, max_chars=1_000)
    assert cut.truncated and len(cut.text) <= 1_000 and len(cut.markdown) <= 1_000
    assert full.text.startswith(cut.text) and full.markdown.startswith(cut.markdown)
    quoted = [blk("x\n" * 100_000, Shape(quote=8), 0)]
    capped = render(quoted, max_chars=10_000)
    assert capped.truncated and len(capped.markdown) <= 10_000


@pytest.mark.parametrize("cap", [1, 999, 1_000, 1_001, 10_000])
@pytest.mark.parametrize(
    "shapes",
    [
        [Shape(quote=8)],
        [Shape(quote=2, lists="u", item=1), Shape(quote=2, lists="uo", item=2)],
        [None, Shape(lists="o", item=1), None],
    ],
    ids=["quote", "nested-list", "paragraphs-and-a-list"],
)
def test_the_cap_cuts_exactly_where_the_whole_would_be_cut(
    cap: int, shapes: list[Shape | None]
) -> None:
    # The renderer stops building lines once the cap is reached: what it wrote is still the
    # whole page's Markdown and text up to the cap, neither less nor more.
    bs = [
        blk("".join(f"line {i} of block {j}\n" for i in range(300)), s, j)
        for j, s in enumerate(shapes)
    ]
    whole = render(bs)
    cut = render(bs, max_chars=cap)
    assert cut.markdown == whole.markdown[:cap]
    assert cut.text == whole.text[:cap]
    assert cut.truncated
