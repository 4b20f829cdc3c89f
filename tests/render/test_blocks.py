"""pipeline.render.blocks: kept blocks to plain text and Markdown.

Expected outputs are written from the rules (pipeline/render/blocks.py's docstring and the
brief), not captured from the code. Where a check is about how Markdown *reads*, the rendered
Markdown is also parsed with markdown-it-py (CommonMark, plus GFM tables), a test dependency.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pipeline.compiled import load_source
from pipeline.render.blocks import Rendered, data_tables, render
from pipeline.types import Block, Shape

_MD = MarkdownIt("commonmark").enable("table")


def blk(text: str, shape: Shape | None = None, index: int = 0) -> Block:
    return Block(
        index,
        text,
        "p",
        "html/body/p",
        "",
        bool(shape and shape.heading),
        len(text),
        len(text.split()),
        0,
        1,
        7,
        None,
        0,
        shape,
    )


def blocks(*specs: tuple[str, Shape | None] | str) -> list[Block]:
    out = []
    for i, spec in enumerate(specs):
        text, shape = (spec, None) if isinstance(spec, str) else spec
        out.append(blk(text, shape, i))
    return out


def words(s: str) -> list[str]:
    return re.findall(r"\w+", s.lower())


def token_types(md: str) -> list[str]:
    return [t.type for t in _MD.parse(md)]


# --- the common case ---


def test_plain_blocks_join_as_before() -> None:
    bs = blocks("First paragraph.", "Second one, with (punctuation) & *stars*.", "")
    r = render(bs)
    assert r == Rendered(
        "First paragraph.\n\nSecond one, with (punctuation) & *stars*.\n\n",
        # the text's & and * are characters, not an entity's start or emphasis (issue 48)
        "First paragraph.\n\nSecond one, with (punctuation) \\& \\*stars\\*.\n\n",
        (),
    )
    assert render(bs, markdown=False) == Rendered(r.text, "", ())
    assert render([]) == Rendered("", "", ())


def test_lines_that_would_be_structure_are_escaped_and_nothing_else() -> None:
    text = (
        "# not a heading\n> not a quote\n- not a list\n+ nor this\n* nor this\n"
        "12. not ordered\n3) nor this\n```\n~~~\n| a | b |\n---\n===\n<div>\n[x]: /url\n"
        "    indented, not code\nkeep 1.5 and a-b, c*d, e_f, #tag inside"
    )
    r = render(blocks(text))
    assert r.text == text
    assert r.markdown == (
        "\\# not a heading\n\\> not a quote\n\\- not a list\n\\+ nor this\n\\* nor this\n"
        "12\\. not ordered\n3\\) nor this\n\\`\\`\\`\n\\~~~\n\\| a | b |\n\\---\n\\===\n"
        "\\<div\\>\n\\[x]: /url\nindented, not code\nkeep 1.5 and a-b, c\\*d, e_f, #tag inside"
    )
    assert token_types(r.markdown) == ["paragraph_open", "inline", "paragraph_close"]
    # words that merely start with a risky character are left alone
    assert render(blocks("-5 degrees", "#hashtag", "2019 was")).markdown == (
        "-5 degrees\n\n\\#hashtag\n\n2019 was"
    )


# --- headings and lists ---


def test_heading_levels() -> None:
    bs = blocks(
        ("Top", Shape(heading=1)),
        ("Second\nline", Shape(heading=2)),
        ("Deep", Shape(heading=6)),
        "Body text.",
    )
    r = render(bs)
    assert r.text == "Top\n\nSecond\nline\n\nDeep\n\nBody text."
    assert r.markdown == "# Top\n\n## Second line\n\n###### Deep\n\nBody text."
    tokens = _MD.parse(r.markdown)
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h1", "h2", "h6"]


def test_nested_lists_with_continuation() -> None:
    bs = blocks(
        "Before.",
        ("apple", Shape(lists="u", item=1)),
        ("banana", Shape(lists="u", item=2)),
        ("first step", Shape(lists="uo", item=3)),
        ("second step", Shape(lists="uo", item=4)),
        ("more about the second step", Shape(lists="uo", item=4)),
        ("more about banana", Shape(lists="u", item=2)),
        ("cherry", Shape(lists="u", item=5)),
        "After.",
    )
    r = render(bs)
    assert r.text == "\n\n".join(b.text for b in bs)
    assert r.markdown == (
        "Before.\n\n"
        "- apple\n"
        "- banana\n"
        "  1. first step\n"
        "  1. second step\n"
        "\n"
        "     more about the second step\n"
        "\n"
        "  more about banana\n"
        "- cherry\n\n"
        "After."
    )
    tokens = _MD.parse(r.markdown)
    assert [t.type for t in tokens if t.type.endswith("_list_open")] == [
        "bullet_list_open",
        "ordered_list_open",
    ]
    # the continuation paragraphs sit inside their items (nesting level of the inline tokens)
    levels = {t.content: t.level for t in tokens if t.type == "inline"}
    assert levels["second step"] == levels["more about the second step"]
    assert levels["banana"] == levels["more about banana"]
    assert levels["Before."] == levels["After."] < levels["apple"] < levels["first step"]


def test_ordered_inside_unordered_inside_ordered_indents_by_marker_width() -> None:
    bs = blocks(
        ("one", Shape(lists="o", item=1)),
        ("bullet", Shape(lists="ou", item=2)),
        ("numbered", Shape(lists="ouo", item=3)),
        ("numbered, continued", Shape(lists="ouo", item=3)),
    )
    assert render(bs).markdown == (
        "1. one\n   - bullet\n     1. numbered\n\n        numbered, continued"
    )


def test_nested_item_whose_parents_have_no_kept_block_is_not_indented_code() -> None:
    bs = blocks(("deep", Shape(lists="uuuu", item=4)), ("deep too", Shape(lists="uuuu", item=5)))
    md = render(bs).markdown
    assert md == "- deep\n- deep too"
    assert "code_block" not in token_types(md)


def test_blank_blocks_are_left_out_of_the_markdown() -> None:
    bs = blocks(
        ("", Shape(lists="u", item=1)),
        ("first words of the item", Shape(lists="u", item=1)),
        (" ", Shape(heading=2)),
        ("", Shape(lists="u", item=2)),
        "after",
    )
    r = render(bs)
    assert r.text == "\n\nfirst words of the item\n\n \n\n\n\nafter"
    assert r.markdown == "- first words of the item\n\nafter"


def test_item_text_that_looks_like_a_marker_is_escaped() -> None:
    md = render(blocks(("- dash\n2. two", Shape(lists="u", item=1)))).markdown
    assert md == "- \\- dash\n  2\\. two"


# --- tables ---


def cell(text: str, row: int, col: int, *, table: int = 1, header: bool = False, **kw) -> tuple:
    return (text, Shape(table=table, row=row, col=col, header=header, **kw))


def test_data_table_with_th_header_and_escaped_pipes() -> None:
    bs = blocks(
        "Prices:",
        cell("Fruit", 0, 0, header=True),
        cell("Price | EUR", 0, 1, header=True),
        cell("Apple", 1, 0),
        cell("1.20", 1, 1),
        cell("Pear", 2, 0),
        cell("0.90", 2, 1),
        cell("per kg", 2, 1),
        "Done.",
    )
    assert data_tables(bs) == frozenset({1})
    r = render(bs)
    assert r.text == ("Prices:\n\nFruit\tPrice | EUR\nApple\t1.20\nPear\t0.90 per kg\n\nDone.")
    assert r.markdown == (
        "Prices:\n\n"
        "| Fruit | Price \\| EUR |\n"
        "| --- | --- |\n"
        "| Apple | 1.20 |\n"
        "| Pear | 0.90 per kg |\n\n"
        "Done."
    )
    assert r.structure == ("table",)
    tokens = _MD.parse(r.markdown)
    assert [t.content for t in tokens if t.type == "inline"][1:4] == [
        "Fruit",
        "Price | EUR",
        "Apple",
    ]
    assert sum(t.type == "th_open" for t in tokens) == 2
    assert sum(t.type == "tr_open" for t in tokens) == 3


def test_table_without_header_uses_first_row_and_pads_columns() -> None:
    bs = blocks(
        cell("a", 0, 0),
        cell("b", 0, 1),
        cell("c", 1, 0),
        cell("d", 1, 1),
        cell("e", 1, 2),
        cell("multi\nline", 2, 0),
        cell("f", 2, 2),  # column 1 of this row has no kept block
    )
    r = render(bs)
    assert r.text == "a\tb\nc\td\te\nmulti line\t\tf"
    assert r.markdown == ("| a | b |  |\n| --- | --- | --- |\n| c | d | e |\n| multi line |  | f |")
    assert token_types(r.markdown)[0] == "table_open"


def test_layout_tables_render_as_paragraphs() -> None:
    prose = "An article paragraph that goes on and on. " * 12  # > 400 characters
    frame = blocks(
        cell("Home", 0, 0),
        cell("About", 0, 0),
        cell(prose.strip(), 0, 1),
        cell("Second paragraph.", 0, 1),
        cell("(c) 2001", 1, 0),
        cell("Contact", 1, 1),
    )
    one_row = blocks(cell("Home", 0, 0), cell("News", 0, 1), cell("Links", 0, 2))
    one_column = blocks(cell("Menu", 0, 0), cell("Text", 1, 0), cell("Footer", 2, 0))
    for bs in (frame, one_row, one_column):
        assert data_tables(bs) == frozenset()
        r = render(bs)
        assert r.text == "\n\n".join(b.text for b in bs)
        assert r.markdown == r.text
        assert r.structure == ()


def test_a_grid_of_prose_cells_is_a_data_table_a_frame_is_not() -> None:
    """A glossary (term | description over 400 characters) keeps its rows (issue 49: WCXB dev
    0424, 0612, 0686, 2889 rendered their rows as loose paragraphs); three rows or fewer, or a
    cell of whole pages of prose, stay layout."""
    description = "A description of the term that runs over several sentences. " * 8
    assert 400 < len(description.strip()) < 2000
    terms = [f"Term {i}" for i in range(4)]
    text = description.strip()
    rows = [c for i, t in enumerate(terms) for c in (cell(t, i, 0), cell(text, i, 1))]
    glossary = blocks(*rows)
    assert data_tables(glossary) == frozenset({1})
    r = render(glossary)
    assert r.text.splitlines() == [f"{t}\t{text}" for t in terms]
    assert r.structure == ("table",)
    assert data_tables(blocks(*rows[:6])) == frozenset()  # three rows: maybe a page's frame
    huge = blocks(*rows[:-1], cell("word " * 500, 3, 1))  # a cell of 2,500 characters
    assert data_tables(huge) == frozenset()
    ragged = blocks(*rows, cell("Note", 4, 0), cell("More", 5, 0), cell("End", 6, 0))
    assert data_tables(ragged) == frozenset()  # 4 full rows of 7: a page region


@pytest.mark.parametrize(
    ("longest", "rows", "data"),
    [
        (400, 2, True),  # a cell of 400 characters is a value or a phrase
        (401, 2, False),  # past it, only a grid of at least 4 full rows is data
        (401, 3, False),
        (401, 4, True),
        (2000, 4, True),  # a prose cell of up to 2,000 characters
        (2001, 4, False),  # above: a page region whatever the grid
    ],
)
def test_cell_length_bounds_of_a_data_table(longest: int, rows: int, data: bool) -> None:
    cells = [c for r in range(rows) for c in (cell(f"Term {r}", r, 0), cell(f"value {r}", r, 1))]
    cells[1] = cell("x" * longest, 0, 1)
    assert data_tables(blocks(*cells)) == (frozenset({1}) if data else frozenset())
    # Two blocks in one cell count as their texts joined by one space.
    split = [*cells[:1], cell("x" * (longest - 11), 0, 1), cell("y" * 10, 0, 1), *cells[2:]]
    assert data_tables(blocks(*split)) == (frozenset({1}) if data else frozenset())


def test_text_outside_the_cells_of_a_row_is_no_cell() -> None:
    # Each row has one cell and text loose in its <tr>: a stack of boxes, not a grid; the same
    # rows with two cells are one.
    loose = blocks(*[c for r in range(3) for c in (cell(f"box {r}", r, 0), cell("loose", r, -1))])
    assert data_tables(loose) == frozenset()
    grid = blocks(*[c for r in range(3) for c in (cell(f"box {r}", r, 0), cell("value", r, 1))])
    assert data_tables(grid) == frozenset({1})


def test_table_with_code_in_cells_or_a_nested_table_is_layout() -> None:
    grid = [cell("a", 0, 0), cell("b", 0, 1), cell("c", 1, 0), cell("d", 1, 1)]
    with_pre = blocks(*grid[:3], cell("d", 1, 1, pre=1, raw="d"))
    nested = blocks(*grid[:2], cell("x", 0, 0, table=2), cell("y", 0, 1, table=2), *grid[2:])
    assert data_tables(with_pre) == frozenset()
    # the outer table is interrupted by table 2; the inner one (one row) is layout as well
    assert data_tables(nested) == frozenset()
    # two separate grids are both data
    grid3 = [cell(t, r, c, table=3) for t, r, c in (("e", 0, 0), ("f", 0, 1), ("g", 1, 0))]
    two = blocks(*grid, *grid3)
    assert data_tables(two) == frozenset({1, 3})


def test_table_in_quote_and_caption_before_it() -> None:
    bs = blocks(
        ("Table 1", Shape(table=1, quote=1)),
        cell("k", 0, 0, quote=1),
        cell("v", 0, 1, quote=1),
        cell("x", 1, 0, quote=1),
        cell("2", 1, 1, quote=1),
    )
    r = render(bs)
    assert r.text == "Table 1\n\nk\tv\nx\t2"
    assert r.markdown == "> Table 1\n>\n> | k | v |\n> | --- | --- |\n> | x | 2 |"


# --- code ---


def test_pre_is_byte_exact_inside_a_fence_with_language() -> None:
    raw = "  def f(x):\n\treturn x  \n\n\n    # done\n"
    bs = blocks("Code:", ("def f(x): return x # done", Shape(pre=1, raw=raw, code_lang="python")))
    r = render(bs)
    assert r.text == "Code:\n\n" + raw
    assert r.markdown == "Code:\n\n```python\n" + raw + "\n```"
    assert r.structure == ("code",)
    fence = [t for t in _MD.parse(r.markdown) if t.type == "fence"]
    assert len(fence) == 1
    assert fence[0].info == "python"
    assert fence[0].content == raw + "\n"


def test_consecutive_blocks_of_one_pre_join_with_newline() -> None:
    bs = blocks(
        ("a", Shape(pre=1, raw="line 1")),
        ("b", Shape(pre=1, raw="  line 2")),
        ("c", Shape(pre=2, raw="other")),
        ("fallback text", Shape(pre=3)),
    )
    r = render(bs)
    assert r.text == "line 1\n  line 2\n\nother\n\nfallback text"
    assert r.markdown == "```\nline 1\n  line 2\n```\n\n```\nother\n```\n\n```\nfallback text\n```"


def test_code_containing_a_fence_gets_a_longer_fence() -> None:
    raw = "Markdown:\n```js\nx = `y`\n```\n````"
    r = render(blocks(("x", Shape(pre=1, raw=raw, code_lang="markdown"))))
    assert r.markdown == "`````markdown\n" + raw + "\n`````"
    (fence,) = [t for t in _MD.parse(r.markdown) if t.type == "fence"]
    assert fence.content == raw + "\n"


def test_pre_in_a_list_item_and_in_a_quote() -> None:
    raw = " indented\n\n\ttab"
    bs = blocks(
        ("step", Shape(lists="o", item=1)),
        ("x", Shape(lists="o", item=1, pre=1, raw=raw, code_lang="sh")),
        ("y", Shape(quote=2, pre=2, raw=raw)),
    )
    r = render(bs)
    assert r.markdown == (
        "1. step\n\n   ```sh\n    indented\n\n   \ttab\n   ```\n\n"
        "> > ```\n> >  indented\n> >\n> > \ttab\n> > ```"
    )
    fences = [t for t in _MD.parse(r.markdown) if t.type == "fence"]
    assert [f.content for f in fences] == [raw + "\n", raw + "\n"]


def test_inline_code_spans() -> None:
    text = "Call f(a`b) or ``x`` or plain then `tick"
    spans = ((5, 11, "code"), (15, 20, "code"), (35, 40, "code"))
    r = render(blocks((text, Shape(spans=spans))))
    assert r.text == text
    assert r.markdown == "Call ``f(a`b)`` or ``` ``x`` ``` or plain then `` `tick ``"
    codes = [c.content for c in _MD.parse(r.markdown)[1].children if c.type == "code_inline"]
    assert codes == ["f(a`b)", "``x``", "`tick"]
    assert r.structure == ("code",)


def test_code_span_at_line_start_is_not_escaped() -> None:
    text = "# comment"
    r = render(blocks((text, Shape(spans=((0, 9, "code"),)))))
    assert r.markdown == "`# comment`"


def test_text_after_a_blank_span_at_line_start_is_escaped() -> None:
    # the span renders to nothing, so "```" would open a fence at the start of the line
    r = render(blocks((" ``` alpha", Shape(spans=((0, 1, "math"),)))))
    assert r.markdown == "\\`\\`\\` alpha"
    assert token_types(r.markdown) == ["paragraph_open", "inline", "paragraph_close"]


@pytest.mark.parametrize("between", ["", " then"])
def test_a_line_after_a_code_span_is_escaped_at_its_start(between: str) -> None:
    # The span ends the paragraph's first line; the next line would read as a heading.
    text = f"x = 1{between}\n# not a heading"
    r = render(blocks((text, Shape(spans=((0, 5, "code"),)))))
    assert r.text == text
    assert token_types(r.markdown) == ["paragraph_open", "inline", "paragraph_close"]
    inline = _MD.parse(r.markdown)[1]
    assert [c.content for c in inline.children if c.type == "code_inline"] == ["x = 1"]
    shown = "".join(c.content if c.type != "softbreak" else "\n" for c in inline.children)
    assert shown == text


# --- quotes ---


def test_blockquote_containing_a_list() -> None:
    bs = blocks(
        ("She wrote:", Shape(quote=1)),
        ("milk", Shape(quote=1, lists="u", item=1)),
        ("eggs\nand more", Shape(quote=1, lists="u", item=2)),
        ("nested quote", Shape(quote=2)),
        "Outside.",
    )
    r = render(bs)
    assert r.text == "She wrote:\n\nmilk\n\neggs\nand more\n\nnested quote\n\nOutside."
    assert r.markdown == (
        "> She wrote:\n>\n> - milk\n> - eggs\n>   and more\n>\n> > nested quote\n\nOutside."
    )
    types = token_types(r.markdown)
    assert types.count("blockquote_open") == 2
    assert types.index("bullet_list_open") > types.index("blockquote_open")


# --- math ---


def test_inline_and_display_math() -> None:
    bs = blocks(
        ("Energy E=mc^2 holds.", Shape(spans=((7, 13, "math"),))),
        ("\\int_0^1 x\\,dx", Shape(spans=((0, 14, "display_math"),))),
        ("so \\sum_i a_i is it", Shape(spans=((3, 13, "display_math"),))),
        ("pad [ y ]", Shape(spans=((5, 8, "math"),))),  # " y ": spaces stay outside the $
        ("- x^2\n+ y", Shape(spans=((0, 9, "display_math"),))),
    )
    r = render(bs)
    assert r.text == (
        "Energy E=mc^2 holds.\n\n\\int_0^1 x\\,dx\n\nso \\sum_i a_i is it\n\npad [ y ]"
        "\n\n- x^2\n+ y"
    )
    assert r.markdown == (
        "Energy $E=mc^2$ holds.\n\n$$\n\\int_0^1 x\\,dx\n$$\n\nso $$\\sum_i a_i$$ is it"
        "\n\npad [ $y$ ]\n\n$$\n{}- x^2\n{}+ y\n$$"
    )
    assert r.structure == ("math",)


def test_structure_tuple_is_sorted_and_complete() -> None:
    bs = blocks(
        ("x", Shape(spans=((0, 1, "math"),))),
        cell("a", 0, 0),
        cell("b", 0, 1),
        cell("c", 1, 0),
        cell("d", 1, 1),
        ("print()", Shape(pre=1, raw="print()")),
    )
    assert render(bs).structure == ("code", "math", "table")
    assert render(bs, markdown=False).structure == ("code", "math", "table")
    assert render(bs, markdown=False).markdown == ""
    # invalid spans are ignored, not rendered, not counted
    bad = blocks(("abc", Shape(spans=((2, 9, "math"), (1, 1, "code"), (0, 1, "bold")))))
    assert render(bad) == Rendered("abc", "abc", ())


# --- properties ---

_WORDS = st.sampled_from(
    ["alpha", "Beta", "x1", "42", "1.", "2)", "#", "##", "-", "+", "*", ">", "|", "=", "---",
     "```", "~~~", "`", "``", "$", "<div>", "[a]:", "_", "é", "über", "a|b"]
)  # fmt: skip
_SEPS = st.sampled_from([" ", " ", " ", "\n", "\t", "  ", "\n\n", "\n    "])


@st.composite
def texts(draw: st.DrawFn, min_words: int = 0) -> str:
    n = draw(st.integers(min_words, 8))
    out = []
    for _ in range(n):
        out.append(draw(_SEPS) if out else draw(st.sampled_from(["", " ", "  "])))
        out.append(draw(_WORDS))
    return "".join(out)


_RAW = st.text(st.sampled_from(list(" \t\n`~#abc-")), max_size=40)


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) and bool(re.match(r"\w\w", text[i - 1 : i + 1]))


@st.composite
def shaped_blocks(draw: st.DrawFn) -> list[Block]:
    """Pages with a plausible structure: lists, quotes, tables, pre, headings, spans."""
    out: list[Block] = []
    item = table = pre = 0
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["plain", "none", "heading", "list", "cont", "table", "pre"]))
        quote = draw(st.sampled_from([0, 0, 0, 1, 2]))
        text = draw(texts())
        spans: tuple = ()
        # spans start and end between words (a span splitting a word would split it in the
        # Markdown source too: "`a`lpha", which a reader shows as one word again)
        cuts = [i for i in range(len(text) + 1) if not _inside_word(text, i)]
        if len(cuts) > 1 and draw(st.booleans()):
            a = draw(st.sampled_from(cuts[:-1]))
            e = draw(st.sampled_from([c for c in cuts if c > a]))
            spans = ((a, e, draw(st.sampled_from(["code", "math", "display_math"]))),)
        if kind == "none":
            shape = None
        elif kind == "plain":
            shape = Shape(quote=quote, spans=spans)
        elif kind == "heading":
            shape = Shape(heading=draw(st.integers(1, 6)), quote=quote, spans=spans)
        elif kind in ("list", "cont"):
            if kind == "list" or not item:
                item += 1
            lists = draw(st.sampled_from(["u", "o", "uu", "uo", "ou", "uuo"]))
            shape = Shape(lists=lists, item=item, quote=quote, spans=spans)
        elif kind == "table":
            table += 1
            for r in range(draw(st.integers(1, 3))):
                for c in range(draw(st.integers(1, 3))):
                    out.append(blk(draw(texts(1)), Shape(table=table, row=r, col=c, spans=())))
            continue
        else:
            pre += 1
            raw = draw(_RAW)
            shape = Shape(
                pre=pre, raw=raw, quote=quote, code_lang=draw(st.sampled_from(["", "py"]))
            )
            text = " ".join(raw.split())
        out.append(blk(text, shape, len(out)))
    return out


_FENCE_LINE = re.compile(r"^(?:> ?)*[ \t]*`{3,}[\w+#.\-]*[ \t]*$", re.M)
_ORDERED_MARKER = re.compile(r"^((?:> ?)*[ ]*)1\.(?= |$)", re.M)


def md_words(md: str) -> Counter[str]:
    """The words of Markdown, markup aside: fence lines (with their language hint) and the "1" of
    ordered-list markers. (Digits at line starts in text are escaped "1\\.", and the raw <pre>
    text drawn here has no digits, so the marker pattern removes markers only.)"""
    return Counter(words(_ORDERED_MARKER.sub(r"\1", _FENCE_LINE.sub("", md))))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shaped_blocks())
def test_markdown_has_the_words_of_the_text(bs: list[Block]) -> None:
    r = render(bs)
    assert md_words(r.markdown) == Counter(words(r.text))
    assert render(bs, markdown=False) == Rendered(r.text, "", r.structure)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shaped_blocks())
def test_markdown_reads_back_with_the_structure_rendered(bs: list[Block]) -> None:
    """CommonMark sees one fence per <pre>, one heading per heading block with text (blank blocks
    are left out of the Markdown), one list item per item serial, one table per data table, and
    never an indented code block or an HTML block (which only accident would make)."""
    tokens = _MD.parse(render(bs).markdown)
    types = Counter(t.type for t in tokens)
    shapes = [b.shape for b in bs if b.shape is not None]
    assert types["fence"] == len({s.pre for s in shapes if s.pre})
    assert types["heading_open"] == sum(
        1 for b in bs if b.shape and b.shape.heading and b.text.strip()
    )
    assert types["list_item_open"] == len(
        {b.shape.item for b in bs if b.shape and b.shape.lists and b.text.strip()}
    )
    assert types["table_open"] == len(data_tables(bs))
    assert types["code_block"] == types["html_block"] == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(texts(), max_size=6))
def test_plain_text_reads_back_as_paragraphs_of_the_same_words(paras: list[str]) -> None:
    """Escaping leaves no structure: CommonMark reads only paragraphs, with the text's words
    (underscores and emphasis aside; the alphabet has no entities or backslashes)."""
    md = render([blk(p, None, i) for i, p in enumerate(paras)]).markdown
    tokens = _MD.parse(md)
    assert {t.type for t in tokens} <= {"paragraph_open", "inline", "paragraph_close"}
    seen = []
    for t in tokens:
        for c in t.children or ():
            if c.type in ("text", "code_inline", "html_inline"):
                seen.append(c.content)
            else:
                seen.append(" ")
    norm = re.compile(r"[^\W_]+")
    assert Counter(norm.findall(" ".join(seen).lower())) == Counter(
        norm.findall(" ".join(paras).lower())
    )


@settings(max_examples=300, deadline=None)
@given(
    raw=_RAW,
    lang=st.sampled_from(["", "python", "c++", "bad lang`"]),
    before=st.sampled_from([[], ["para"], ["# heading"]]),
)
def test_fence_round_trips_raw_text(raw: str, lang: str, before: list[str]) -> None:
    bs = [*blocks(*before), blk("ignored", Shape(pre=1, raw=raw, code_lang=lang), len(before))]
    md = render(bs).markdown
    start = md.index("```")  # the blocks before it hold no backtick
    first_line_end = md.index("\n", start)
    fence = re.match(r"`+", md[start:]).group(0)
    assert md.endswith("\n" + fence)
    assert md[first_line_end + 1 : -len(fence) - 1] == raw
    assert len(fence) > max(map(len, re.findall("`+", raw)), default=0)
    (tok,) = [t for t in _MD.parse(md) if t.type == "fence"]
    assert tok.content == raw + "\n"


@settings(max_examples=300, deadline=None)
@given(raw=_RAW, quote=st.integers(0, 2), lists=st.sampled_from(["", "u", "o", "uo", "ou"]))
def test_fence_round_trips_inside_quotes_and_lists(raw: str, quote: int, lists: str) -> None:
    bs = [
        blk("intro", Shape(quote=quote, lists=lists, item=1 if lists else 0), 0),
        blk("x", Shape(pre=1, raw=raw, quote=quote, lists=lists, item=1 if lists else 0), 1),
    ]
    (tok,) = [t for t in _MD.parse(render(bs).markdown) if t.type == "fence"]
    assert tok.content == raw + "\n"


_ANY_TEXT = st.text(max_size=30)
_SHAPES = st.builds(
    Shape,
    heading=st.integers(-2, 9),
    lists=st.text(st.sampled_from("uox"), max_size=4),
    item=st.integers(-1, 5),
    table=st.integers(-1, 3),
    row=st.integers(-2, 4),
    col=st.integers(-2, 4),
    header=st.booleans(),
    quote=st.integers(-1, 3),
    pre=st.integers(-1, 3),
    code_lang=st.text(max_size=8),
    raw=st.none() | _ANY_TEXT,
    spans=st.lists(
        st.tuples(
            st.integers(-3, 40),
            st.integers(-3, 40),
            st.sampled_from(["code", "math", "display_math", "x"]),
        ),
        max_size=4,
    ).map(tuple),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_ANY_TEXT, st.none() | _SHAPES), max_size=12))
def test_render_never_raises_on_random_shapes(specs: list[tuple[str, Shape | None]]) -> None:
    bs = [blk(t, s, i) for i, (t, s) in enumerate(specs)]
    r = render(bs)
    assert isinstance(r.text, str) and isinstance(r.markdown, str)
    assert list(r.structure) == sorted(set(r.structure))
    assert set(r.structure) <= {"code", "math", "table"}
    assert data_tables(bs) <= {s.table for _, s in specs if s is not None}
    assert render(bs, markdown=False).text == r.text


@pytest.mark.parametrize("n", [0, 1, 50])
def test_shape_none_text_is_exactly_the_old_join(n: int) -> None:
    bs = [blk(f"block {i} text", None, i) for i in range(n)]
    assert render(bs).text == "\n\n".join(b.text for b in bs)


def test_a_line_number_gutter_beside_the_code_is_left_out() -> None:
    # Hugo's Chroma: <table class=lntable><tr><td><pre>1\n2\n3\n</pre><td><pre>code</pre>
    r = render(
        blocks(
            ("1 2 3", Shape(pre=1, raw=" 1\n 2\n 3\n")),
            ("a = 1 b = 2 c = 3", Shape(pre=2, raw="a = 1\nb = 2\nc = 3\n")),
            ("3 1 2", Shape(pre=3, raw="3\n1\n2")),  # numbers, but not a run of line numbers
        )
    )
    assert r.text == "a = 1\nb = 2\nc = 3\n\n\n3\n1\n2"
    assert r.markdown.count("```") == 4


def test_superscript_digits_in_code_are_code_not_line_numbers() -> None:
    # "²" is a digit to str.isdigit() but not a number int() reads: found by the property test
    # above, which crashed the renderer on such a <pre>.
    r = render(blocks(("x ²", Shape(pre=1, raw="1\n²\n")), ("² ³", Shape(pre=2, raw="²\n³"))))
    assert r.text == "1\n²\n\n\n²\n³"  # the first <pre> keeps its last newline
    assert r.markdown.count("```") == 4


def test_headings_and_lists_in_cells_are_the_cells_text() -> None:
    # A spec table headed by an <h3>, and a table inside a list item (every block in the list).
    headed = blocks(
        cell("JMGO N1 Specs", 0, 0, heading=3),
        cell("Value", 0, 1),
        cell("Brightness", 1, 0),
        cell("1,500 lumens", 1, 1),
    )
    in_item = blocks(
        *(cell(t, r, c, lists="u", item=1) for t, r, c in (("a", 0, 0), ("b", 0, 1), ("c", 1, 0)))
    )
    assert data_tables(headed) == frozenset({1}) and data_tables(in_item) == frozenset({1})
    assert render(headed).markdown == (
        "| JMGO N1 Specs | Value |\n| --- | --- |\n| Brightness | 1,500 lumens |"
    )


def test_a_listing_alternating_value_rows_with_detail_rows_is_a_table() -> None:
    # Hacker News: rank and title, then one cell of points; a third of the rows hold two cells.
    rows = []
    for i in range(3):
        rows += [cell(f"{i + 1}.", 3 * i, 0), cell(f"Story {i}", 3 * i, 1)]
        rows += [cell(f"{10 * i} points", 3 * i + 1, 0), cell("", 3 * i + 2, 0)]
    assert data_tables(blocks(*rows)) == frozenset({1})


_SOURCE = load_source("pipeline.render.blocks")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shaped_blocks()
    | st.lists(st.tuples(_ANY_TEXT, st.none() | _SHAPES), max_size=12).map(
        lambda specs: [blk(t, s, i) for i, (t, s) in enumerate(specs)]
    )
)
def test_the_compiled_module_renders_as_its_source(bs: list[Block]) -> None:
    """Where the build compiled the module (its Markdown accumulator an extension type, its
    per-block helpers C functions), it renders every page exactly as the ``.py`` does."""
    for markdown in (True, False):
        assert tuple(render(bs, markdown=markdown)) == tuple(_SOURCE.render(bs, markdown=markdown))
