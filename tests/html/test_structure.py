"""The segmentation walk records each block's place in the page's structure (`Block.shape`).

Every expectation below is read off the fixture page by hand: which heading level, list, item,
table cell, quote or <pre> holds the block, and the exact text a browser shows in a <pre>.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import compiled
from pipeline.html import walk as python_walk
from pipeline.html.segment import parse, segment
from pipeline.html.structure import code_language
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
    assert blocks[1].shape.raw == code
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
        "a = 1  b = 2",  # the divs' line breaks come from CSS, which a text walk cannot see
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
