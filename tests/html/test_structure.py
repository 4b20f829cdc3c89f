"""The segmentation walk records each block's place in the page's structure (`Block.shape`).

Every expectation below is read off the fixture page by hand: which heading level, list, item,
table cell, quote or <pre> holds the block, and the exact text a browser shows in a <pre>.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import compiled
from pipeline.html import walk as python_walk
from pipeline.html.segment import parse, segment, with_tex
from pipeline.html.structure import code_language
from pipeline.html.tex_text import typesets_tex
from pipeline.types import Block, Shape


def _shapes(html: str) -> list[tuple[str, Shape | None]]:
    return [(b.text, b.shape) for b in segment(html)]


def _python_blocks(html: str) -> list[Block]:
    return python_walk.walk(parse(html).root, None, False, None)


def test_a_plain_paragraph_has_no_shape() -> None:
    assert _shapes("<p>Just a paragraph.</p><div>And a div.</div>") == [
        ("Just a paragraph.", None),
        ("And a div.", None),
    ]


def test_heading_levels() -> None:
    html = "<h1>One</h1><h3>Three</h3><h6>Six</h6>"
    got = {text: shape.heading for text, shape in _shapes(html)}
    assert got == {"One": 1, "Three": 3, "Six": 6}


def test_nested_lists_give_kinds_outermost_first_and_one_serial_per_item() -> None:
    html = (
        "<ul><li>first<li><p>second, para 1</p><p>second, para 2</p>"
        "<ol><li>inner one<li>inner two</ol>tail of second</ul>"
    )
    got = [(text, s.lists, s.item) for text, s in _shapes(html)]
    assert got == [
        ("first", "u", 1),
        ("second, para 1", "u", 2),
        ("second, para 2", "u", 2),
        ("inner one", "uo", 3),
        ("inner two", "uo", 4),
        ("tail of second", "u", 2),
    ]


def test_table_cells_know_their_table_row_column_and_header() -> None:
    html = (
        "<table><thead><tr><td>Name</td><th>Value</th></tr></thead>"
        "<tbody><tr><td>alpha</td><td>1</td></tr><tr><td>beta</td><td>2</td></tr></tbody></table>"
        "<table><tr><td>second table</td></tr></table>"
    )
    got = [(text, s.table, s.row, s.col, s.header) for text, s in _shapes(html)]
    assert got == [
        ("Name", 1, 0, 0, True),  # a <td> in <thead> is a header cell
        ("Value", 1, 0, 1, True),
        ("alpha", 1, 1, 0, False),
        ("1", 1, 1, 1, False),
        ("beta", 1, 2, 0, False),
        ("2", 1, 2, 1, False),
        ("second table", 2, 0, 0, False),
    ]


def test_a_nested_table_gives_its_own_serial_and_the_outer_cell_resumes() -> None:
    html = "<table><tr><td>outer a<table><tr><td>in</td></tr></table>outer tail</td></tr></table>"
    got = [(text, s.table, s.row, s.col) for text, s in _shapes(html)]
    assert got == [("outer a", 1, 0, 0), ("in", 2, 0, 0), ("outer tail", 1, 0, 0)]


def test_quotes_count_their_depth() -> None:
    html = "<blockquote><p>once</p><blockquote><p>twice</p></blockquote></blockquote>"
    assert [(t, s.quote) for t, s in _shapes(html)] == [("once", 1), ("twice", 2)]


def test_pre_keeps_its_text_exactly_and_stays_one_block() -> None:
    code = "def f(x):\n    if x:\n\t\treturn 1\n\n    return  2   \n"
    html = f"<p>before</p><pre>{code}</pre><p>after</p>"
    blocks = segment(html)
    assert [b.text for b in blocks] == [
        "before",
        "def f(x):\nif x:\nreturn 1\nreturn 2",
        "after",
    ]
    # Every character a browser shows: the <pre>'s final line feed shows no line of its own.
    assert blocks[1].shape.raw == code[:-1]
    assert blocks[1].shape.pre == 1


def test_highlighted_pre_with_spans_lines_and_br_keeps_every_space() -> None:
    # Highlighters wrap tokens in spans and put the line breaks and indentation between them in
    # their own whitespace-only text nodes; some wrap every line in a <div>, some use <br>.
    html = (
        '<pre class="highlight"><code class="language-python"><span class="k">def</span> '
        '<span class="nf">f</span>():\n    <span class="k">return</span> <span>1</span>'
        "</code></pre>"
        "<pre><div class=line>a = 1</div><div class=line>  b = 2</div></pre>"
        "<pre>x<br>  y<br><br>z</pre>"
    )
    blocks = segment(html)
    assert [b.shape.raw for b in blocks] == [
        "def f():\n    return 1",
        "a = 1\n  b = 2",  # a <div> is a block in every browser's default style sheet
        "x\n  y\n\nz",
    ]
    assert [b.shape.pre for b in blocks] == [1, 2, 3]
    assert blocks[0].shape.code_lang == "python"


def test_code_language_hints_from_the_pre_its_code_or_enclosing_blocks() -> None:
    html = (
        '<div class="highlight-rust notranslate"><div class="highlight"><pre>fn main() {}</pre>'
        '</div></div><pre class="prettyprint lang-js">let a = 1;</pre>'
        "<pre><code class=language-c++>int x;</code></pre><pre>no hint here</pre>"
    )
    assert [b.shape.code_lang for b in segment(html)] == ["rust", "js", "c++", ""]


def test_code_language_reads_the_usual_class_conventions() -> None:
    assert code_language("language-python") == "python"
    assert code_language("sourceCode haskell") == "haskell"
    assert code_language("brush: php; gutter: false") == "php"
    assert code_language("highlight highlight-source-go") == "go"
    assert code_language("highlight-default notranslate") == ""
    assert code_language("highlight") == ""
    assert code_language(None) == ""


def test_inline_code_is_a_span_of_its_block() -> None:
    (block,) = segment("<p>Call <code>f(x)</code> or <kbd>Ctrl</kbd>+<kbd>C</kbd> now.</p>")
    assert block.text == "Call f(x) or Ctrl+C now."
    spans = [(block.text[a:b], kind) for a, b, kind in block.shape.spans]
    assert spans == [("f(x)", "code"), ("Ctrl", "code"), ("C", "code")]


def test_inline_code_spanning_line_breaks_maps_onto_the_normalised_text() -> None:
    (block,) = segment("<p>Run\n   <code>  git   status\n  </code>\n\n  then</p>")
    assert block.text == "Run\ngit status\nthen"
    assert [block.text[a:b] for a, b, _ in block.shape.spans] == ["git status"]


def test_mathml_becomes_latex_text_and_a_math_span() -> None:
    html = (
        "<p>Energy <math><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>"
        " holds.</p><div><math display='block'><mfrac><mi>a</mi><mi>b</mi></mfrac></math></div>"
    )
    first, second = segment(html)
    assert first.text == "Energy E=mc^2 holds."
    assert [(first.text[a:b], k) for a, b, k in first.shape.spans] == [("E=mc^2", "math")]
    assert second.text == r"\frac{a}{b}"
    assert second.shape.spans == ((0, len(second.text), "display_math"),)


def test_katex_keeps_its_tex_source_and_drops_its_drawing() -> None:
    html = (
        '<p>Area <span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>π'
        '</mi><msup><mi>r</mi><mn>2</mn></msup></mrow><annotation encoding="application/x-tex">'
        '\\pi r^2</annotation></semantics></math></span><span class="katex-html" '
        'aria-hidden="true"><span class="base"><span class="mord mathnormal">π</span>'
        '<span class="mord">r²</span></span></span></span> of a circle.</p>'
    )
    (block,) = segment(html)
    assert block.text == "Area \\pi r^2 of a circle."
    assert [(block.text[a:b], k) for a, b, k in block.shape.spans] == [("\\pi r^2", "math")]


FORMULA = (
    '<math><semantics><msup><mi>x</mi><mn>2</mn></msup><annotation encoding="application/x-tex">'
    "x^2</annotation></semantics></math>"
)


def test_a_formula_is_text_of_its_block_in_place() -> None:
    # The C walk hands every page with math to the Python walk, so nothing compares this code
    # with a second walk: each fact is checked here.
    first, linked, glued = segment(
        f"<body><div><p>{FORMULA}after</p></div><p>See <a href='/x'>{FORMULA} here</a> now.</p>"
        f"<p>Area{FORMULA}of a square</p></body>"
    )
    # A formula that opens its block gives it its path, and is set apart from the next word.
    assert first.text == "x^2 after" and first.dom_path == "html.body.div.p"
    assert [(first.text[a:b], k) for a, b, k in first.shape.spans] == [("x^2", "math")]
    # Inside a link, its source counts as link text: "x^2 here" is the link's.
    assert linked.text == "See x^2 here now." and linked.n_link_chars == len("x^2 here")
    # Set apart from the words on both sides, however the markup glues them.
    assert glued.text == "Area x^2 of a square"


def test_mathjax2_scripts_are_the_source_and_its_rendering_is_dropped() -> None:
    html = (
        '<p>Inline <span class="MathJax_Preview">x</span>'
        '<span class="MathJax" id="MathJax-Element-1-Frame"><nobr><span class="math">'
        '<span class="mi">x</span></span></nobr></span>'
        '<script type="math/tex" id="MathJax-Element-1">x_1</script> and</p>'
        '<div class="MathJax_Display"><span class="MathJax">drawn</span></div>'
        '<script type="math/tex; mode=display">\\sum_{i=1}^n i</script>'
        "<script>var notMath = 1;</script>"
    )
    blocks = segment(html)
    assert [(b.text, b.shape.spans) for b in blocks] == [
        ("Inline x_1 and", ((7, 10, "math"),)),
        ("\\sum_{i=1}^n i", ((0, 14, "display_math"),)),
    ]


def test_the_python_walk_gives_what_segment_gives_on_structure() -> None:
    html = (
        "<h2>T</h2><ul><li>a<li>b</ul><table><tr><th>h<td>d</table><blockquote>q</blockquote>"
        "<pre> p\n  q</pre><p>x <code>y</code> <math><mi>z</mi></math></p>"
    )
    assert segment(html) == _python_blocks(html)


_RAW = st.lists(
    st.sampled_from(["a", "bc", " ", "  ", "\n", "\r\n", "\t", "\xa0", "\u3000", "é", "中"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_RAW, st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=4))
def test_span_normalisation_gives_the_same_text_and_spans_over_the_same_characters(
    raw: str, edges: list[tuple[int, int]]
) -> None:
    spans = [(min(a, b, len(raw)), min(max(a, b), len(raw)), "code") for a, b in edges]
    source = compiled.load_source("pipeline.html.walk")  # its C-only helpers as Python
    text, n_words, moved = source._normalized_spans(raw, spans)
    assert (text, n_words) == source._normalized(raw)
    # Each span covers the same non-space characters as before; spans of only spaces go.
    expected = ["".join(raw[a:b].split()) for a, b, _ in spans if raw[a:b].strip()]
    assert ["".join(text[a:b].split()) for a, b, _ in moved] == expected
    for a, b, _ in moved:
        assert not text[a].isspace() and not text[b - 1].isspace()


# --- <pre> as a browser shows it (issue 49) ---

# shikijs/twoslash, packages/remark-shiki-twoslash/test/results/twoliner.html (MIT): the
# twoslash renderer behind typescriptlang.org writes one <div class='line'> per line, no line
# feed between them, and a language label beside the <code>. Trimmed to its first two lines.
TWOSLASH_TWOLINER = (
    '<pre class="shiki light-plus twoslash lsp" style="background-color: #ffffff; color: #000000"'
    "><div class=\"language-id\">ts</div><div class='code-container'><code><div class='line'>"
    "<span style=\"color: #008000\">// @filename: getStringLength.ts</span></div><div class='line'>"
    '<span style="color: #AF00DB">export</span><span style="color: #000000"> </span><span '
    'style="color: #0000FF">const</span><span style="color: #000000"> </span><span style="color: '
    "#795E26\"><data-lsp lsp='const getStringLength: (str: string) => number' >getStringLength"
    '</data-lsp></span><span style="color: #000000"> = (</span><span style="color: #001080">'
    "<data-lsp lsp='(parameter) str: string' >str</data-lsp></span><span style=\"color: #000000\">"
    ': </span><span style="color: #267F99">string</span><span style="color: #000000">) </span>'
    '<span style="color: #0000FF">=&gt;</span><span style="color: #000000"> </span><span '
    "style=\"color: #001080\"><data-lsp lsp='(parameter) str: string' >str</data-lsp></span><span "
    'style="color: #000000">.</span><span style="color: #001080"><data-lsp lsp=\'(property) '
    "String.length: number' >length</data-lsp></span></div></code></div></pre>"
)
# microsoft/TypeScript-Website, packages/shiki-twoslash/test/results/one.html (MIT): a one-line
# sample with the "Try" link to the playground beside its <code> (the "...}Try").
TWOSLASH_TRY = (
    '<pre class="shiki twoslash"><div class="language-id">ts</div><div class=\'code-container\'>'
    '<code><span style="color: #0000FF">const</span><span style="color: #000000"> </span><span '
    "style=\"color: #1A1A1A\"><data-lsp lsp='const getStringLength: (str: string) => number'>"
    'getStringLength</data-lsp> </span><span style="color: #000000">= (</span><span style="color: '
    "#1A1A1A\"><data-lsp lsp='(parameter) str: string'>str</data-lsp></span><span style=\"color: "
    '#000000">: string) </span><span style="color: #0000FF">=&gt;</span><span style="color: '
    '#000000"> </span><span style="color: #1A1A1A"><data-lsp lsp=\'(parameter) str: string\'>str'
    '</data-lsp></span><span style="color: #000000">.<data-lsp lsp=\'(property) String.length: '
    "number'>length</data-lsp></span></code><a href='https://www.typescriptlang.org/play/#code/"
    "MYewdgzgLgBA5gUygZSgJwJZjgGQdqACxgF4YAKaNALhiqzgEpSA'>Try</a></div></pre>"
)


def test_a_highlighter_line_per_div_keeps_its_lines_and_not_its_label() -> None:
    (block,) = segment(TWOSLASH_TWOLINER)
    assert block.shape.raw == (
        "// @filename: getStringLength.ts\n"
        "export const getStringLength = (str: string) => str.length"
    )
    # The block's text is the same lines, whitespace-normalised: "ts" is no word of it.
    assert block.text == block.shape.raw
    assert _python_blocks(TWOSLASH_TWOLINER) == [block]


def test_a_try_link_beside_the_code_is_not_code() -> None:
    (block,) = segment(TWOSLASH_TRY)
    assert block.shape.raw == "const getStringLength = (str: string) => str.length"
    assert "Try" not in block.text.split()


@pytest.mark.parametrize(
    ("pre", "shown"),
    [
        # CodeMirror (react.dev's sandboxes): a <br> ends each line's <div>; an empty line is a
        # <div> holding only a <br>. A trailing <br> in a block opens no line of its own.
        ("<div>a {<br></div><div><br></div><div>  b<br></div><div>}</div>", "a {\n\n  b\n}"),
        # A line feed between two blocks is a line of its own, blank.
        ("<div>a</div>\n<div>b</div>", "a\n\nb"),
        # ... but one at the end of a block's content is not.
        ("<div>a\n</div><div>b</div>", "a\nb"),
        ("top<div>mid</div>tail", "top\nmid\ntail"),
        (
            "<p>one</p><p>two</p><ul><li>three</li></ul>"
            "<table><tr><td>4</td><td>5</td></tr></table>",
            "one\ntwo\nthree\n45",
        ),
        # Shiki's line spans have line feeds between them: no line is doubled.
        ("<code><span class=line>a</span>\n<span class=line>  b</span>\n</code>", "a\n  b"),
        # Gatsby's highlighted lines are spans its style sheet makes blocks, with no line feed
        # between them; an empty one is drawn zero lines high.
        (
            "<code>x\n<span class='gatsby-highlight-code-line'>a;</span><span "
            "class='gatsby-highlight-code-line'></span><span class='gatsby-highlight-code-line'>"
            "  b</span>c</code>",
            "x\na;\n  b\nc",
        ),
        # prism-react-renderer ends its line spans with a <br> too.
        ("<span class=token-line>a<br></span><span class=token-line>b</span>", "a\nb"),
        # A gutter span is no line; "line-number" names none.
        ("<span class=line-number>7</span>x = 1", "7x = 1"),
        # A gutter of line numbers laid out as blocks beside the lines is left out (Twilio's
        # docs: each line a <div> of its number and a <div> of its code and line feed).
        (
            "<div><span>1</span><div><div>composer require x\n</div></div></div>"
            "<div><span>2</span><div><div>\n</div></div></div>"
            "<div><span>3</span><div><div>composer install</div></div></div>",
            "composer require x\n\ncomposer install",
        ),
        # Several <code> elements (a command synopsis): the words between them are its text.
        (
            "<span><code>git</code></span> <span><code>commit</code></span> "
            "[<span><code>-a</code></span> | <em>&lt;file&gt;</em>]",
            "git commit [-a | <file>]",
        ),
        # One <code> and a label beside it: the label goes ...
        ("<span class=prompt>Shell</span><code>ls -l</code>", "ls -l"),
        # ... unless nothing else is left, and text directly in the <pre> stays.
        ("<span class=label>Shell</span><code> </code>", "Shell "),
        ("$ <code>ls</code>", "$ ls"),
    ],
)
def test_pre_text_as_a_browser_lays_it_out(pre: str, shown: str) -> None:
    html = f"<p>before</p><pre>{pre}</pre><p>after</p>"
    blocks = segment(html)
    assert [b.shape.raw for b in blocks if b.shape is not None] == [shown]
    assert blocks == _python_blocks(html)


def test_pre_lines_survive_into_the_markdown_and_the_text() -> None:
    from pipeline.render.blocks import render

    blocks = segment(TWOSLASH_TWOLINER)
    out = render(blocks)
    lines = out.markdown.split("\n")
    assert lines[0] == "```" and lines[-1] == "```"
    assert lines[1:-1] == blocks[0].shape.raw.split("\n")
    assert out.text == blocks[0].shape.raw


# --- math from MathJax 3 and from TeX written in the text (issue 49) ---

# ZulfikriLbs/rumahsakit, frontend/views/rapor/rapordump.php: a report page saved from the browser
# after MathJax 3 (CHTML output) typeset it; one table cell, as served.
MATHJAX3_CELL = (
    '<table><tr><td>1. </td><td>Jika <mjx-container class="MathJax CtxtMenu_Attached_0" '
    'jax="CHTML" role="presentation" tabindex="0" ctxtmenu_counter="0" style="font-size: '
    '101.6%; position: relative;"><mjx-math class="MJX-TEX" aria-hidden="true"><mjx-mstyle>'
    '<mjx-mi class="mjx-i">'
    '<mjx-c class="mjx-c61"></mjx-c></mjx-mi><mjx-mo class="mjx-n" space="4"><mjx-c '
    'class="mjx-c3D"></mjx-c></mjx-mo><mjx-mn class="mjx-n" space="4"><mjx-c class="mjx-c32">'
    '</mjx-c></mjx-mn></mjx-mstyle></mjx-math><mjx-assistive-mml role="presentation" '
    'unselectable="on" display="inline"><math xmlns="http://www.w3.org/1998/Math/MathML"><mstyle '
    'displaystyle="true"><mi>a</mi><mo>=</mo><mn>2</mn></mstyle></math></mjx-assistive-mml>'
    '</mjx-container>,  <mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML" '
    'role="presentation" tabindex="0" ctxtmenu_counter="1" style="font-size: 101.6%; position: '
    'relative;"><mjx-math class="MJX-TEX" aria-hidden="true"><mjx-mstyle><mjx-mi class="mjx-i">'
    '<mjx-c class="mjx-c62"></mjx-c></mjx-mi></mjx-mstyle></mjx-math><mjx-assistive-mml '
    'role="presentation" unselectable="on" display="inline"><math '
    'xmlns="http://www.w3.org/1998/Math/MathML"><mstyle displaystyle="true"><mi>b</mi><mo>=</mo>'
    "<mn>3</mn></mstyle></math></mjx-assistive-mml></mjx-container>, maka <mjx-container "
    'class="MathJax CtxtMenu_Attached_0" jax="CHTML" role="presentation" tabindex="0" '
    'ctxtmenu_counter="2"><mjx-math class="MJX-TEX" aria-hidden="true"></mjx-math>'
    '<mjx-assistive-mml role="presentation" unselectable="on" display="inline"><math '
    'xmlns="http://www.w3.org/1998/Math/MathML"><mstyle displaystyle="true"><msup><mi>a</mi><mn>2'
    "</mn></msup><mo>+</mo><msup><mi>b</mi><mn>3</mn></msup><mo>=</mo><mo>?</mo></mstyle></math>"
    "</mjx-assistive-mml></mjx-container> </td><td>7</td></tr></table>"
)


def test_mathjax3_keeps_every_formula_from_its_assistive_mathml() -> None:
    cells = [b for b in segment(MATHJAX3_CELL) if b.shape.col == 1]
    (cell,) = cells
    assert [(cell.text[a:b], k) for a, b, k in cell.shape.spans] == [
        ("a=2", "math"),
        ("b=3", "math"),
        ("a^2+b^3=?", "math"),
    ]
    assert cell.text.startswith("Jika a=2")


def test_mathjax3_display_math_and_a_container_without_mathml() -> None:
    html = (
        '<p>Solve <mjx-container class="MathJax" jax="SVG" display="true"><svg><g><use '
        'href="#MJX-1"></use></g></svg><mjx-assistive-mml display="block"><math><mi>x</mi>'
        "</math></mjx-assistive-mml></mjx-container></p><p>Drawn only <mjx-container "
        'class="MathJax" jax="CHTML"><mjx-math><mjx-c></mjx-c></mjx-math><span>y</span>'
        "</mjx-container> here</p>"
    )
    first, second = segment(html)
    assert (first.text, first.shape.spans) == ("Solve x", ((6, 7, "display_math"),))
    # No source to read: its other text is walked as any element's, its drawing dropped.
    assert second.text == "Drawn only y here"


# lanl/FEHM, Macros/MacroVcon.html (Sphinx with MathJax 2.7.5, which typesets \( \) in the
# browser): the author's TeX is in the page's text, and its head loads MathJax.
MATHJAX2_SCRIPT = (
    '<script async="async" type="text/javascript" src="https://cdnjs.cloudflare.com/ajax/libs/'
    'mathjax/2.7.5/latest.js?config=TeX-AMS-MML_HTMLorMML"></script>'
)
SPHINX_TEX = MATHJAX2_SCRIPT + (
    '<p>Parameters related to thermal conductivity are\n<span class="math notranslate '
    'nohighlight">\\(\\lambda_{IS,300},\\gamma_1,\\gamma_2,\\alpha_4,\\alpha_3,\\alpha_2,\\alpha_1,'
    '\\alpha_0\\)</span> and <span class="math notranslate nohighlight">\\(\\phi\\)</span>.\nAn '
    "additional parameter is the specific heat of salt.</p>"
)


def test_tex_between_mathjax_delimiters_in_the_text_becomes_math() -> None:
    (block,) = segment(SPHINX_TEX)
    assert [(block.text[a:b], k) for a, b, k in block.shape.spans] == [
        ("\\lambda_{IS,300},\\gamma_1,\\gamma_2,\\alpha_4,\\alpha_3,\\alpha_2,\\alpha_1,\\alpha_0",
         "math"),
        ("\\phi", "math"),
    ]  # fmt: skip
    assert "\\(" not in block.text and "\\)" not in block.text
    assert block.n_words == len(block.text.split())
    assert block.n_chars == len(block.text)
    assert with_tex(parse(SPHINX_TEX), _python_blocks(SPHINX_TEX)) == [block]


def test_display_tex_and_what_is_not_tex() -> None:
    html = MATHJAX2_SCRIPT + (
        '<div class="math notranslate nohighlight">\n\\[H[b] = \\sum_{i=1}^{N} x_i\\]</div>'
        "<p>Costs $$5 and \\$$ and <code>\\(not math\\)</code> and a stray \\( alone.</p>"
        "<p>$$ \\int_0^1 f $$</p><pre>\\(kept as code\\)</pre>"
    )
    blocks = segment(html)
    code = blocks[1].text.index("\\(not")
    assert [(b.text, b.shape.spans if b.shape else None) for b in blocks] == [
        ("H[b] = \\sum_{i=1}^{N} x_i", ((0, 25, "display_math"),)),
        # No closing delimiter, an escaped dollar, TeX inside inline code: no math.
        (
            "Costs $$5 and \\$$ and \\(not math\\) and a stray \\( alone.",
            ((code, code + 12, "code"),),
        ),
        ("\\int_0^1 f", ((0, 10, "display_math"),)),
        ("\\(kept as code\\)", ()),  # MathJax leaves <pre> alone too
    ]
    assert blocks == with_tex(parse(html), _python_blocks(html))


# WCXB dev page 2831 (a coding agent's log): a shell command in the text, on a page that loads
# no typesetter. A browser shows its \( \) as written, and so does the block.
SHELL_FIND = (
    '<p>$ find /home/runner/work/solid-email/solid-email -type f \\( -name "*.test.ts" -o -name'
    '\n"*.test.tsx" \\)\nRead README.md</p>'
)


def test_tex_holding_a_command_is_math_on_a_page_without_a_typesetter() -> None:
    # WCXB dev page 0431, a Next.js blog whose bundled scripts typeset its TeX: no script names
    # MathJax or KaTeX, but "\\subseteq" is TeX, where a shell's "\\( -name" is not.
    html = (
        "<p>Something as wild as $$ A \\subseteq B \\land x \\in A \\Rightarrow\nx \\in B$$ can "
        "be a perfectly valid type in Lean.</p>" + SHELL_FIND
    )
    first, second = segment(html)
    assert [(first.text[a:b], k) for a, b, k in first.shape.spans] == [
        ("A \\subseteq B \\land x \\in A \\Rightarrow\nx \\in B", "display_math")
    ]
    assert second.text == SHELL_FIND[len("<p>") : -len("</p>")]


@pytest.mark.parametrize(
    ("head", "typeset"),
    [
        ("", False),
        (MATHJAX2_SCRIPT, True),
        # MathJax 3 from a CDN, its configuration inline, KaTeX's auto-render call.
        ('<script id="MathJax-script" async src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/'
         'tex-mml-chtml.js"></script>', True),
        ("<script>window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']]}};</script>", True),
        ('<script type="text/x-mathjax-config">MathJax.Hub.Config({});</script>', True),
        ('<script defer src="/js/contrib/auto-render.min.js"></script>'
         "<script>document.addEventListener('DOMContentLoaded', () => "
         "renderMathInElement(document.body));</script>", True),
        ('<script src="/js/app.js"></script><script>var price = "$$";</script>', False),
    ],
)  # fmt: skip
def test_tex_in_the_text_only_where_the_page_typesets_it(head: str, typeset: bool) -> None:
    (block,) = segment(head + SHELL_FIND)
    assert typesets_tex(parse(head + SHELL_FIND)) is typeset
    if typeset:
        assert "\\(" not in block.text
        assert [k for _, _, k in block.shape.spans] == ["math"]
    else:
        assert block.text == SHELL_FIND[len("<p>") : -len("</p>")]
        assert block.shape is None
